// Package mirrorgen builds realistic FAKE NVIDIA Jetson (L4T) apt mirrors for
// tests, the bundled sample mirror and benchmark corpora: real package names,
// versions, Source fields, Filenames and in-deb paths of an L4T suite, with
// small synthetic (or caller-supplied) payloads, written as real .debs plus
// real Packages indexes. It is test infrastructure, not a packaging tool: it
// never reads or validates real debs and never touches the network.
//
// The committed sample mirror is regenerated with:
//
//go:generate go run ./cmd/mkmirror -clean -out ../../testdata/sample-mirror -suites r35.6,r36.4,r36.5,r39.2
package mirrorgen
