module github.com/debredist/debredist

go 1.26.8

require (
	github.com/CycloneDX/cyclonedx-go v0.9.3
	github.com/ProtonMail/go-crypto v1.5.2
	github.com/blakesmith/ar v0.0.0-20190502131153-809d4375e1fb
	github.com/cenkalti/backoff/v5 v5.0.3
	github.com/go-json-experiment/json v1.27.2
	github.com/gofrs/flock v0.13.1
	github.com/klauspost/compress v1.20.3
	github.com/spdx/tools-golang v0.5.5
	github.com/ulikunitz/xz v0.5.17
	github.com/vbauerster/mpb/v8 v8.9.3
	golang.org/x/sync v0.24.0
	golang.org/x/sys v0.49.0
	golang.org/x/tools v0.52.0
	pault.ag/go/debian v0.18.0
)

require github.com/anchore/go-struct-converter v0.0.0-20221118182256-c68fdcfa2092 // indirect

require (
	github.com/VividCortex/ewma v1.2.0 // indirect
	github.com/acarl005/stripansi v0.0.0-20180116102854-5a71ef0e047d // indirect
	github.com/cloudflare/circl v1.6.3 // indirect
	github.com/mattn/go-runewidth v0.0.16 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/crypto v0.41.0 // indirect
)
