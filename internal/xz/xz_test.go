package xz

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os/exec"
	"testing"

	"github.com/debredist/debredist/internal/lzma"
	"github.com/debredist/debredist/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

func TestDictSize(t *testing.T) {
	for code, want := range map[byte]int64{
		0:  4 << 10,
		1:  6 << 10,
		16: 1 << 20,
		22: 8 << 20,
		28: 64 << 20,
		29: 96 << 20,
		39: 3 << 30,
		40: 1<<32 - 1,
	} {
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

func TestFirstDict(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want int64
	}{
		{[]string{"-0"}, 256 << 10},
		{[]string{"-6"}, 8 << 20},
		{[]string{"--lzma2=dict=96MiB"}, 96 << 20},
	} {
		head := xzHead(t, tt.args...)
		if !bytes.HasPrefix(head, Magic) {
			t.Fatalf("xz %v: no xz magic", tt.args)
		}
		if got, ok, err := FirstDict(head); err != nil || !ok || got != tt.want {
			t.Errorf("xz %v: FirstDict = %d, %v, %v; want %d", tt.args, got, ok, err, tt.want)
		}
	}
	head := xzHead(t, "-6")
	bad := append([]byte{}, head...)
	bad[12+4] = 41
	if _, _, err := FirstDict(bad); !errors.Is(err, ErrDictCode) {
		t.Errorf("code 41: err = %v, want ErrDictCode", err)
	}
	for _, short := range [][]byte{head[:12], head[:14], head[:16]} {
		if _, ok, err := FirstDict(short); ok || err != nil {
			t.Errorf("FirstDict of %d bytes = %v, %v; want not ok, no error", len(short), ok, err)
		}
	}
}

// FuzzFirstDict: FirstDict never panics, and a dictionary it reports is a valid
// code's size.
func FuzzFirstDict(f *testing.F) {
	f.Add(append(append([]byte{}, Magic...), 0, 4, 0xe6, 0xd6, 0xb4, 0x46, 2, 0, FilterLZMA2, 1, 22, 0, 0, 0, 0, 0))
	f.Add([]byte("BZh91AY&SY"))
	f.Fuzz(func(t *testing.T, head []byte) {
		d, ok, err := FirstDict(head)
		if ok && (err != nil || d < 4<<10 || d > 1<<32-1) {
			t.Fatalf("FirstDict = %d, %v, %v", d, ok, err)
		}
	})
}

// TestDictByte: the code DictByte picks is the smallest whose size holds
// the dictionary, and exact for 2^n and 3*2^n.
func TestDictByte(t *testing.T) {
	for code := byte(0); code < 40; code++ {
		size, _ := DictSize(code)
		if got := DictByte(int(size)); got != code {
			t.Errorf("DictByte(%d) = %d, want %d", size, got, code)
		}
	}
	if got := DictByte(5 << 10); got != 1 { // 6 KiB holds 5 KiB
		t.Errorf("DictByte(5 KiB) = %d, want 1", got)
	}
}

// stream writes src as an xz stream of blocks of at most block bytes.
func stream(t testing.TB, src []byte, block int, p lzma.Params) []byte {
	t.Helper()
	var out bytes.Buffer
	s := NewStream(&out)
	for len(src) > 0 {
		n := min(block, len(src))
		if err := s.WriteBlock(EncodeBlock(src[:n], p)); err != nil {
			t.Fatal(err)
		}
		src = src[n:]
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestRoundTrip: streams of EncodeBlock and Stream read back through
// NewReader, at every level, with zero, one and several blocks, and
// concatenated; xz(1) reads them too when installed.
func TestRoundTrip(t *testing.T) {
	src := bytes.Repeat([]byte("libcudart.so.12 \x00\x7fELF cuda "), 20000)
	for n := 1; n <= lzma.MaxLevel; n++ {
		p, err := lzma.Level(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range [][]byte{nil, src[:1], src[:100000], src} {
			data := stream(t, in, 200000, p)
			for _, twice := range []bool{false, true} {
				all, want := data, in
				if twice {
					all = append(append([]byte{}, data...), data...)
					want = append(append([]byte{}, in...), in...)
				}
				r, err := NewReader(bufio.NewReader(bytes.NewReader(all)), 0)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(r)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("level %d, %d bytes (twice %v): %d bytes back, %v", n, len(in), twice, len(got), err)
				}
			}
		}
	}
	xzBin, err := exec.LookPath("xz")
	if err != nil {
		return
	}
	p, _ := lzma.Level(lzma.DefaultLevel)
	cmd := exec.Command(xzBin, "-dc")
	cmd.Stdin = bytes.NewReader(stream(t, src, 200000, p))
	got, err := cmd.Output()
	if err != nil || !bytes.Equal(got, src) {
		t.Errorf("xz -dc: %d bytes, %v", len(got), err)
	}
}

// TestReaderLimit: a block whose dictionary exceeds the reader's limit is
// refused with ErrLimit before it is decoded.
func TestReaderLimit(t *testing.T) {
	p, _ := lzma.Level(1)
	data := stream(t, bytes.Repeat([]byte("cuda "), 1<<20), 8<<20, p) // 8 MiB dictionary declared
	r, err := NewReader(bufio.NewReader(bytes.NewReader(data)), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(r); !errors.Is(err, ErrLimit) {
		t.Errorf("err = %v, want ErrLimit", err)
	}
}
