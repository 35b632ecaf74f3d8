package archive

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// Multi-block tests use testBlock-sized blocks (Options.blockSize; set by
// writeArchive) so that they run on small inputs; bigSize spans two of them
// so that parallel compression really runs. TestGolden also pins the output
// of realBig at the production BlockSize.
const (
	testBlock = 128 << 10
	bigSize   = testBlock + testBlock/2
	realBig   = BlockSize + BlockSize/2
)

func TestWriteDeterministic(t *testing.T) {
	base := sampleEntries(bigSize)
	for _, comp := range []Compression{XZ, Zstd} {
		t.Run(comp.String(), func(t *testing.T) {
			want, wantRes := writeArchive(t, base, Options{Top: "top", Compression: comp, Workers: 1})
			if len(want) == 0 || wantRes.Size != int64(len(want)) {
				t.Fatalf("Result.Size %d, wrote %d bytes", wantRes.Size, len(want))
			}
			variants := []struct {
				name    string
				entries func() []Entry
				opts    Options
				procs   int
			}{
				{"again", func() []Entry { return base }, Options{Workers: 1}, 0},
				{"workers2", func() []Entry { return base }, Options{Workers: 2}, 0},
				{"workers8", func() []Entry { return base }, Options{Workers: 8}, 0},
				{"gomaxprocs1", func() []Entry { return base }, Options{}, 1},
				{"gomaxprocs3", func() []Entry { return base }, Options{}, 3},
				{"shuffled", func() []Entry { return shuffled(base, 7) }, Options{Workers: 2}, 0},
				{"reversed+modes", func() []Entry { return remoded(reversed(base)) }, Options{Workers: 3}, 0},
			}
			for _, v := range variants {
				t.Run(v.name, func(t *testing.T) {
					if v.procs > 0 {
						defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(v.procs))
					}
					opts := v.opts
					opts.Top, opts.Compression = "top", comp
					got, res := writeArchive(t, v.entries(), opts)
					if !bytes.Equal(got, want) {
						t.Fatalf(
							"output differs: %d bytes sha256 %s, want %d bytes sha256 %s",
							len(got),
							res.SHA256,
							len(want),
							wantRes.SHA256,
						)
					}
					if res != wantRes {
						t.Fatalf("Result = %+v, want %+v", res, wantRes)
					}
				})
			}
		})
	}
}

func shuffled(es []Entry, seed uint64) []Entry {
	out := append([]Entry(nil), es...)
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func reversed(es []Entry) []Entry {
	out := make([]Entry, len(es))
	for i, e := range es {
		out[len(es)-1-i] = e
	}
	return out
}

// remoded changes source modes without changing the normalised result.
func remoded(es []Entry) []Entry {
	out := append([]Entry(nil), es...)
	for i := range out {
		switch {
		case out[i].Type == entry.Regular && out[i].Mode&0o111 != 0:
			out[i].Mode = 0o100 | fs.ModeSetgid | fs.ModeSticky
		case out[i].Type == entry.Regular:
			out[i].Mode = 0o666
		default:
			out[i].Mode = 0o700
		}
	}
	return out
}

func TestMTime(t *testing.T) {
	es := sampleEntries(0)
	a, _ := writeArchive(t, es, Options{Top: "top"})
	b, _ := writeArchive(t, es, Options{Top: "top", MTime: time.Unix(0, 999)}) // sub-second dropped
	if !bytes.Equal(a, b) {
		t.Error("zero MTime and Unix epoch + 999ns give different archives")
	}
	c, _ := writeArchive(t, es, Options{Top: "top", MTime: time.Unix(1700000000, 0)})
	if bytes.Equal(a, c) {
		t.Error("MTime has no effect on the archive")
	}
}

// goldenBig reports whether TestGolden writes the archives of realBig bytes.
func goldenBig() bool { return testutil.Long() || *update }

// TestGolden pins the exact output bytes: any change to the tar layout, the
// xz/zstd container or the encoders shows up here. Run with -update after an
// intentional change (and say so in the changelog: archive hashes change).
func TestGolden(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	for _, comp := range []Compression{XZ, Zstd} {
		for _, big := range []int{0, realBig} {
			if big == realBig && !goldenBig() {
				continue // compresses 36 MiB twice: with DEBREDIST_LONG_TESTS=1 or -update
			}
			_, res := writeArchive(
				t,
				sampleEntries(big),
				Options{Top: "golden-1.0-archive", MTime: time.Unix(1700000000, 0), Compression: comp, blockSize: BlockSize},
			)
			fmt.Fprintf(&sb, "%s big=%d size=%d sha256=%s md5=%s nar=%s files=%d\n",
				comp, big, res.Size, res.SHA256, res.MD5, res.NAR, res.Files)
		}
	}
	golden := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !goldenBig() {
		// Only the small archives were written: compare their lines.
		var keep []string
		for _, l := range strings.SplitAfter(string(want), "\n") {
			if strings.Contains(l, " big=0 ") {
				keep = append(keep, l)
			}
		}
		want = []byte(strings.Join(keep, ""))
	}
	if got := sb.String(); got != string(want) {
		t.Errorf("archive bytes changed:\n got:\n%s\nwant:\n%s", got, want)
	}
}

func TestWriteRejects(t *testing.T) {
	ok := file("ok", 0o644, []byte("x"))
	tests := []struct {
		name    string
		top     string
		entries []Entry
		bad     string // EntryError.Name
		want    error
	}{
		{"absolute", "t", []Entry{ok, file("/etc/passwd", 0, nil)}, "/etc/passwd", ErrUnsafeName},
		{"dotdot", "t", []Entry{file("a/../../x", 0, nil)}, "a/../../x", ErrUnsafeName},
		{"dot", "t", []Entry{file("./x", 0, nil)}, "./x", ErrUnsafeName},
		{"trailing slash", "t", []Entry{dir("d/")}, "d/", ErrUnsafeName},
		{"double slash", "t", []Entry{file("a//b", 0, nil)}, "a//b", ErrUnsafeName},
		{"NUL", "t", []Entry{file("a\x00b", 0, nil)}, "a\x00b", ErrUnsafeName},
		{"empty", "t", []Entry{file("", 0, nil)}, "", ErrUnsafeName},
		{"bad top", "a/b", []Entry{ok}, "a/b", ErrUnsafeName},
		{"dotdot top", "..", []Entry{ok}, "..", ErrUnsafeName},
		{"empty top", "", []Entry{ok}, "", ErrUnsafeName},
		{"duplicate", "t", []Entry{ok, file("ok", 0o755, nil)}, "ok", ErrDuplicate},
		{"duplicate dir", "t", []Entry{dir("d"), dir("d")}, "d", ErrDuplicate},
		{"parent is file", "t", []Entry{ok, file("ok/x", 0, nil)}, "ok/x", ErrNotDir},
		{"parent is symlink", "t", []Entry{symlink("l", "."), file("l/x", 0, nil)}, "l/x", ErrNotDir},
		{"hardlink missing", "t", []Entry{hardlink("h", "nope")}, "h", ErrHardlink},
		{"hardlink loop", "t", []Entry{hardlink("a", "b"), hardlink("b", "a")}, "a", ErrHardlink},
		{"hardlink to dir", "t", []Entry{dir("d"), hardlink("e", "d")}, "e", ErrHardlink},
		{"hardlink to symlink", "t", []Entry{symlink("a", "ok"), ok, hardlink("b", "a")}, "b", ErrHardlink},
		{"hardlink self", "t", []Entry{hardlink("h", "h")}, "h", ErrHardlink},
		{"hardlink unsafe", "t", []Entry{hardlink("h", "../x")}, "h", ErrHardlink},
		{"symlink absolute", "t", []Entry{symlink("l", "/etc")}, "l", ErrSymlink},
		{"symlink escape", "t", []Entry{symlink("lib/l", "../../x")}, "lib/l", ErrSymlink},
		{"symlink to parent of top", "t", []Entry{symlink("l", "..")}, "l", ErrSymlink},
		{"symlink escape via symlink", "t", []Entry{symlink("s", "."), symlink("x", "s/..")}, "x", ErrSymlink},
		{"symlink escape via chain", "t", []Entry{symlink("d/s", ".."), symlink("d/x", "s/../..")}, "d/x", ErrSymlink},
		{"symlink loop", "t", []Entry{symlink("a", "b"), symlink("b", "a")}, "a", ErrSymlink},
		{"symlink empty", "t", []Entry{symlink("a", "")}, "a", ErrSymlink},
		{
			"negative size",
			"t",
			[]Entry{{Header: entry.Header{Path: "f", Type: entry.Regular, Size: -1}, Open: ok.Open}},
			"f",
			ErrSize,
		},
		{"no Open", "t", []Entry{{Header: entry.Header{Path: "f", Type: entry.Regular}}}, "f", ErrType},
		{"bad type", "t", []Entry{{Header: entry.Header{Path: "f", Type: entry.Type(9)}}}, "f", ErrType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := Write(context.Background(), &buf, tt.entries, Options{Top: tt.top})
			var ee *EntryError
			if !errors.As(err, &ee) {
				t.Fatalf("err = %v, want *EntryError", err)
			}
			if ee.Name != tt.bad || !errors.Is(err, tt.want) {
				t.Fatalf("err = %v (name %q), want %v naming %q", err, ee.Name, tt.want, tt.bad)
			}
			if buf.Len() != 0 {
				t.Errorf("%d bytes written before rejecting", buf.Len())
			}
		})
	}
}

func TestWriteAccepts(t *testing.T) {
	// Links that look suspicious but stay inside the top directory.
	es := []Entry{
		file("lib/real.so", 0o755, []byte("elf")),
		symlink("lib/up", "../lib/real.so"),
		symlink("lib/self", "."),
		symlink("top", "lib/../lib/real.so"),
		symlink("dangling", "does/not/exist"),
		hardlink("lib/zh1", "lib/real.so"),
		hardlink("lib/zh2", "lib/zh1"), // chain: resolves to real.so
	}
	if _, err := Write(context.Background(), io.Discard, es, Options{Top: "t"}); err != nil {
		t.Fatal(err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestWriteContentErrors(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name  string
		entry Entry
		want  error
	}{
		{"short", Entry{
			Header: entry.Header{Path: "f", Type: entry.Regular, Size: 10},
			Open: func() (io.ReadCloser, error) {
				return io.NopCloser(strings.NewReader("abc")), nil
			},
		}, ErrSize},
		{"long", Entry{
			Header: entry.Header{Path: "f", Type: entry.Regular, Size: 2},
			Open: func() (io.ReadCloser, error) {
				return io.NopCloser(strings.NewReader("abc")), nil
			},
		}, ErrSize},
		{"open fails", Entry{
			Header: entry.Header{Path: "f", Type: entry.Regular, Size: 2},
			Open: func() (io.ReadCloser, error) {
				return nil, boom
			},
		}, boom},
		{"read fails", Entry{
			Header: entry.Header{Path: "f", Type: entry.Regular, Size: 2},
			Open: func() (io.ReadCloser, error) {
				return io.NopCloser(errReader{boom}), nil
			},
		}, boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Write(context.Background(), io.Discard, []Entry{tt.entry}, Options{Top: "t"})
			var ee *EntryError
			if !errors.As(err, &ee) || ee.Name != "f" || !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want *EntryError for %q wrapping %v", err, "f", tt.want)
			}
		})
	}
}

type failWriter struct{ after int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.after -= len(p); f.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriteErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Write(ctx, io.Discard, sampleEntries(0), Options{Top: "t"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
	for _, comp := range []Compression{XZ, Zstd} {
		_, err := Write(
			context.Background(),
			&failWriter{after: 100},
			sampleEntries(bigSize),
			Options{Top: "t", Compression: comp, blockSize: testBlock},
		)
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%v: failing writer: err = %v", comp, err)
		}
	}
	for _, o := range []Options{
		{Top: "t", Preset: 99},
		{Top: "t", Compression: Zstd, Preset: -1},
		{Top: "t", Compression: 7},
	} {
		if _, err := Write(context.Background(), io.Discard, sampleEntries(0), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestCompareNames(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"a", "a", 0},
		{"a", "a/b", -1},
		{"a/b", "a-b", -1}, // tar --sort=name walks into "a" before "a-b"
		{"a-b", "a/b", 1},
		{"a/z", "ab", -1},
		{"B", "a", -1}, // byte order, not locale
		{"lib/x", "lib", 1},
	}
	for _, tt := range tests {
		if got := compareNames(tt.a, tt.b); got != tt.want {
			t.Errorf("compareNames(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestExt(t *testing.T) {
	if XZ.Ext() != ".tar.xz" || Zstd.Ext() != ".tar.zst" {
		t.Errorf("Ext: %q %q", XZ.Ext(), Zstd.Ext())
	}
}

// TestHardlinkTargetSortsLater: whichever name the caller makes the target,
// the name first in archive order carries the content and the others link
// to it, so a deb's hardlink whose target sorts after it still converts.
func TestHardlinkTargetSortsLater(t *testing.T) {
	data := []byte("shared content")
	b, _ := writeArchive(t, []Entry{hardlink("a", "z"), hardlink("m", "a"), file("z", 0o755, data)}, Options{Top: "t"})
	rep, err := Inspect(context.Background(), bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]entry.Header{}
	for _, h := range rep.Entries {
		got[h.Path] = h
	}
	if h := got["a"]; h.Type != entry.Regular || h.Size != int64(len(data)) || h.Mode&0o111 == 0 {
		t.Errorf("a = %+v, want the regular file (executable, %d bytes)", h, len(data))
	}
	for _, n := range []string{"m", "z"} {
		if h := got[n]; h.Type != entry.Hardlink || h.Link != "a" {
			t.Errorf("%s = %+v, want a hardlink to a", n, h)
		}
	}
}

// TestBudgetSharedByConcurrentWrites: archives written at once under one
// small Budget come out byte-identical to archives written alone, and the
// writers never deadlock on each other's tokens.
func TestBudgetSharedByConcurrentWrites(t *testing.T) {
	t.Parallel()
	const n = 3
	var want [n][]byte
	entries := func(i int) []Entry { return sampleEntries(testBlock + i*4096) }
	for i := range n {
		want[i], _ = writeArchive(t, entries(i), Options{Top: "t", Workers: 2})
	}
	for _, tokens := range []int{1, 2} {
		budget := NewBudget(tokens)
		var got [n][]byte
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var buf bytes.Buffer
				_, err := Write(context.Background(), &buf, entries(i), Options{
					Top:         "t",
					Workers:     2,
					Budget:      budget,
					Compression: XZ,
					blockSize:   testBlock,
				})
				if err != nil {
					errs <- err
					return
				}
				got[i] = buf.Bytes()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for i := range n {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("budget %d: archive %d differs from one written alone", tokens, i)
			}
		}
		if len(budget.tokens) != 0 {
			t.Errorf("budget %d: %d tokens not returned", tokens, len(budget.tokens))
		}
	}
}
