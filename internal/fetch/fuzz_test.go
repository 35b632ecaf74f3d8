package fetch

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
)

// FuzzContentRange: the header comes from the network. Whatever it says, an
// accepted answer must round-trip to the same start offset.
func FuzzContentRange(f *testing.F) {
	for _, s := range []string{"bytes 100-199/200", "bytes 0-0/1", "bytes 5-4/10", "bytes */200",
		"bytes -1-5/6", "bytes 9223372036854775807-9223372036854775807/*", "items 1-2/3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start, ok := parseContentRange(s)
		if !ok {
			return
		}
		if start < 0 {
			t.Fatalf("%q: negative start %d", s, start)
		}
		rng, _, _ := strings.Cut(strings.TrimPrefix(s, "bytes "), "/")
		a, _, _ := strings.Cut(rng, "-")
		if n, err := strconv.ParseInt(a, 10, 64); err != nil || n != start {
			t.Fatalf("%q: start %d, text %q", s, start, a)
		}
	})
}

// FuzzInRelease: an InRelease file from the network must never panic the
// signature code, and with a keyring nothing unsigned may pass.
func FuzzInRelease(f *testing.F) {
	key := newKey(f, "fuzz")
	text := []byte("Origin: test\nSuite: r36.5\nSHA256:\n " + strings.Repeat("a", 64) + " 1 main/binary-arm64/Packages\n")
	signed := clearsigned(f, key, text)
	f.Add(signed)
	f.Add(text)
	f.Add(bytes.Replace(signed, []byte("Suite"), []byte("Suitf"), 1))
	f.Add(
		[]byte(
			"-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nx\n-----BEGIN PGP SIGNATURE-----\n\n" +
				"-----END PGP SIGNATURE-----\n",
		),
	)
	with := &Fetcher{keyring: openpgp.EntityList{key}}
	without := &Fetcher{}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, signed, _ := without.inRelease(data); signed {
			t.Fatal("signed without a keyring")
		}
		plain, signed, err := with.inRelease(data)
		if err == nil && (!signed || plain == nil) {
			t.Fatalf("accepted without a verified signature (signed %v)", signed)
		}
		if err == nil && !bytes.Contains(data, []byte("-----BEGIN PGP SIGNATURE-----")) {
			t.Fatal("accepted data without a signature block")
		}
	})
}
