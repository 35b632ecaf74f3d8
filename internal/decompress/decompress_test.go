package decompress

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"testing"
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

func TestDictSize(t *testing.T) {
	for code, want := range map[byte]int64{0: 4 << 10, 1: 6 << 10, 16: 1 << 20, 22: 8 << 20, 28: 64 << 20, 29: 96 << 20, 39: 3 << 30, 40: 1<<32 - 1} {
		if got, err := DictSize(code); err != nil || got != want {
			t.Errorf("DictSize(%d) = %d, %v; want %d", code, got, err, want)
		}
	}
	for _, code := range []byte{41, 63, 0x40, 0xff} {
		if _, err := DictSize(code); !errors.Is(err, ErrDictCode) {
			t.Errorf("DictSize(%d): err = %v, want ErrDictCode", code, err)
		}
	}
}

// xzHead returns the first bytes of a real xz stream written by xz(1).
func xzHead(t *testing.T, args ...string) []byte {
	t.Helper()
	xz, err := exec.LookPath("xz")
	if err != nil {
		t.Skip("xz not installed")
	}
	cmd := exec.Command(xz, append([]string{"-c"}, args...)...)
	cmd.Stdin = bytes.NewReader(bytes.Repeat([]byte("cuda "), 1000))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestXZDict(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want int64
	}{
		{[]string{"-0"}, 256 << 10},
		{[]string{"-6"}, 8 << 20},
		{[]string{"--lzma2=dict=96MiB"}, 96 << 20},
	} {
		head := xzHead(t, tt.args...)
		if Sniff(head) != XZ {
			t.Fatalf("xz %v: not sniffed as xz", tt.args)
		}
		if got, ok, err := XZDict(head); err != nil || !ok || got != tt.want {
			t.Errorf("xz %v: XZDict = %d, %v, %v; want %d", tt.args, got, ok, err, tt.want)
		}
	}
	head := xzHead(t, "-6")
	bad := append([]byte{}, head...)
	bad[12+4] = 41
	if _, _, err := XZDict(bad); !errors.Is(err, ErrDictCode) {
		t.Errorf("code 41: err = %v, want ErrDictCode", err)
	}
	for _, short := range [][]byte{head[:12], head[:14], head[:16]} {
		if _, ok, err := XZDict(short); ok || err != nil {
			t.Errorf("XZDict of %d bytes = %v, %v; want not ok, no error", len(short), ok, err)
		}
	}
}

// FuzzXZDict: XZDict never panics, and a dictionary it reports is a valid
// code's size.
func FuzzXZDict(f *testing.F) {
	f.Add(append(append([]byte{}, MagicXZ...), 0, 4, 0xe6, 0xd6, 0xb4, 0x46, 2, 0, 0x21, 1, 22, 0, 0, 0, 0, 0))
	f.Add([]byte("BZh91AY&SY"))
	f.Fuzz(func(t *testing.T, head []byte) {
		_ = Sniff(head)
		d, ok, err := XZDict(head)
		if ok && (err != nil || d < 4<<10 || d > 1<<32-1) {
			t.Fatalf("XZDict = %d, %v, %v", d, ok, err)
		}
	})
}

// TestZstdWindow: a zstd frame asking for a window over MaxWindow is
// refused before the decoder allocates it, one at the limit is decoded, and
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
		d, err := NewZstd(bytes.NewReader(data), window, 1)
		if err != nil {
			return err
		}
		defer d.Close()
		out, err := io.ReadAll(d)
		if err == nil && !bytes.Equal(out, in) {
			t.Fatal("zstd output differs")
		}
		return err
	}
	if err := read(frame("26"), 0); err != nil {
		t.Errorf("64 MiB window refused: %v", err)
	}
	if err := read(frame("27"), 0); err == nil {
		t.Error("128 MiB window accepted")
	}
	if err := read(frame("26"), 1<<20); err == nil {
		t.Error("64 MiB window accepted under a 1 MiB limit")
	}
}
