package apt

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestDecompressBomb: an index of valid stanzas repeated to 256 MiB (a
// zstd or xz stream of a few KB per 4 MiB) is refused by ratio once past
// RatioMinBytes.
func TestDecompressBomb(t *testing.T) {
	stanza := "Package: libcublas-12-6\nVersion: 1\nArchitecture: arm64\nFilename: pool/a.deb\nSize: 2136\n" +
		"SHA256: " + strings.Repeat(
		"ab",
		32,
	) + "\n\n"
	chunk := []byte(strings.Repeat(stanza, (4<<20)/len(stanza)))
	for _, format := range []string{"zstd", "xz"} {
		t.Run(format, func(t *testing.T) {
			c := goCompress(t, format, chunk)
			bomb := bytes.Repeat(c, 64) // concatenated streams: 256 MiB
			rc, err := Decompress(bytes.NewReader(bomb))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = rc.Close() }()
			n, err := io.Copy(io.Discard, rc)
			var be *BombError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), "MaxRatio=200x") {
				t.Fatalf("got %v after %d bytes, want a *BombError", err, n)
			}
			if n > RatioMinBytes+1<<20 {
				t.Errorf("handed out %d bytes before refusing", n)
			}
			// A legitimate stream of the same content, once, passes.
			rc2, err := Decompress(bytes.NewReader(c))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = rc2.Close() }()
			if n, err := io.Copy(io.Discard, rc2); err != nil || n != int64(len(chunk)) {
				t.Fatalf("one chunk: %d bytes, %v", n, err)
			}
		})
	}
}
