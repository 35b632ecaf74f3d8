package decompress

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func TestSniff(t *testing.T) {
	for _, tt := range []struct {
		head []byte
		want Format
	}{
		{[]byte{0x1f, 0x8b, 8}, Gzip},
		{append([]byte{0xfd, '7', 'z', 'X', 'Z', 0}, 0, 4), XZ},
		{[]byte{0x28, 0xb5, 0x2f, 0xfd, 0}, Zstd},
		{[]byte("BZh91AY&SY...."), Bzip2},
		{[]byte("BZh9\x17\x72\x45\x38\x50\x90"), Bzip2},
		{[]byte("BZh is text, not bzip2"), None},
		{[]byte("BZh9"), None},
		{[]byte{0x04, 0x22, 0x4d, 0x18, 0x64}, LZ4},
		{[]byte("Package: x\n"), None},
		{nil, None},
		{[]byte{0xfd, '7', 'z'}, None}, // cut-short magic
	} {
		if got := Sniff(tt.head); got != tt.want {
			t.Errorf("Sniff(%q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}

// TestZstdWindow: a zstd frame asking for a window over MaxWindow is
// refused before the decoder allocates it, with an error wrapping ErrLimit
// (as an xz dictionary over the limit is); one at the limit is decoded, and
// a caller's smaller window wins.
func TestZstdWindow(t *testing.T) {
	zstdBin, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("zstd not installed")
	}
	in := bytes.Repeat([]byte("cuda "), 200)
	frame := func(long string) []byte {
		cmd := exec.Command(zstdBin, "--long="+long, "--no-content-size", "-c")
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	read := func(data []byte, window int64) error {
		d, err := Open(Zstd, bufio.NewReader(bytes.NewReader(data)), window, 1)
		if err != nil {
			return err
		}
		defer func() { _ = d.Close() }()
		out, err := io.ReadAll(d)
		if err == nil && !bytes.Equal(out, in) {
			t.Fatal("zstd output differs")
		}
		return err
	}
	if err := read(frame("26"), 0); err != nil {
		t.Errorf("64 MiB window refused: %v", err)
	}
	if err := read(frame("27"), 0); !errors.Is(err, ErrLimit) || !errors.Is(err, zstd.ErrWindowSizeExceeded) {
		t.Errorf("128 MiB window: err = %v, want ErrLimit", err)
	}
	err = read(frame("26"), 1<<20)
	if want := fmt.Sprintf("zstd: window beyond the limit of %d bytes (window size exceeded)", 1<<20); !errors.Is(
		err,
		ErrLimit,
	) ||
		err.Error() != want {
		t.Errorf("64 MiB window under a 1 MiB limit: err = %v, want %q (ErrLimit)", err, want)
	}
}

// TestOpenTable: plain data passes through, a format without a decoder is
// ErrUnsupported, and the legacy lzma header is checked against the window
// before its decoder allocates.
func TestOpenTable(t *testing.T) {
	rc, err := Open(None, bufio.NewReader(bytes.NewReader([]byte("Package: x\n"))), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(rc); string(b) != "Package: x\n" {
		t.Errorf("plain: %q", b)
	}
	if _, err := Open(LZ4, bufio.NewReader(bytes.NewReader(LZ4.Magic())), 0, 0); !errors.Is(err, ErrUnsupported) {
		t.Errorf("lz4: err = %v, want ErrUnsupported", err)
	}
	head := []byte{0x5d, 0, 0, 0, 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff} // 64 MiB dictionary
	_, err = Open(LZMA, bufio.NewReader(bytes.NewReader(head)), 1<<20, 0)
	if want := fmt.Sprintf("lzma dictionary size %d exceeds limit %d", 64<<20, 1<<20); !errors.Is(err, ErrLimit) ||
		err == nil ||
		err.Error() != want {
		t.Errorf("lzma: err = %v, want %q (ErrLimit)", err, want)
	}
	for f := None; f <= LZMA; f++ {
		if f.String() == "" {
			t.Errorf("format %d has no name", f)
		}
	}
}
