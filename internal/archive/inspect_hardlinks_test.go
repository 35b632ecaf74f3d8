package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/testutil"
	"github.com/klauspost/compress/zstd"
)

// countingReaderAt counts every byte read through Read and ReadAt.
type countingReaderAt struct {
	*bytes.Reader
	n int64
}

func (c *countingReaderAt) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.Reader.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// hardlinkBomb is a 1 MiB file with links hardlinks to it, some chained
// (a link to a link), the shape that made Inspect decode the archive once
// per link.
func hardlinkBomb(links int) []Entry {
	es := []Entry{file("a-big", 0o755, content(7, 1<<20))}
	for i := range links {
		target := "a-big"
		if i%2 == 1 {
			target = fmt.Sprintf("link%04d", i-1)
		}
		es = append(es, hardlink(fmt.Sprintf("link%04d", i), target))
	}
	return es
}

// TestInspectHardlinksReadOnce: with 200 hardlinks Inspect reads the
// archive at most twice (one pass, plus one for the hardlinked content in
// the NAR) and still gets the NAR right, with the targets held in memory
// or spooled to a file.
func TestInspectHardlinksReadOnce(t *testing.T) {
	data, res := writeArchive(t, hardlinkBomb(200), Options{Top: "top", Compression: XZ})
	for _, held := range []int64{MaxHeldBytes, 0} {
		t.Run(fmt.Sprintf("held=%d", held), func(t *testing.T) {
			heldLimit = held
			defer func() { heldLimit = MaxHeldBytes }()
			r := &countingReaderAt{Reader: bytes.NewReader(data)}
			rep, err := Inspect(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if rep.NAR != res.NAR || rep.SHA256 != res.SHA256 {
				t.Errorf("NAR %s sha %s, want %s %s", rep.NAR, rep.SHA256, res.NAR, res.SHA256)
			}
			if r.n > 2*int64(len(data)) {
				t.Errorf("read %d bytes of a %d-byte archive: more than two passes", r.n, len(data))
			}
		})
	}
}

// BenchmarkInspectHardlinks is the hostile figure: a 1 MiB file and 200
// hardlinks to it.
func BenchmarkInspectHardlinks(b *testing.B) {
	data, _ := writeArchive(b, hardlinkBomb(200), Options{Top: "top", Compression: XZ})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		start := time.Now()
		if _, err := Inspect(context.Background(), bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/inspect")
	}
}

// TestInspectBomb: an archive of zeros past MaxRatio is refused once past
// RatioMinBytes instead of being decoded in full.
func TestInspectBomb(t *testing.T) {
	data, _ := writeArchive(t, []Entry{file("zeros", 0o644, make([]byte, 96<<20))}, Options{Top: "top", Compression: Zstd})
	r := &countingReaderAt{Reader: bytes.NewReader(data)}
	_, err := Inspect(context.Background(), r)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("MaxRatio=1000x")) {
		t.Fatalf("got %v, want a MaxRatio error", err)
	}
}

// TestInspectHardlinkAmplification: hardlinks whose content the NAR would
// hash again count against MaxRatio, so many links to one large file are
// refused instead of hashed for hours.
func TestInspectHardlinkAmplification(t *testing.T) {
	es := []Entry{file("a-big", 0o644, make([]byte, 1<<20))}
	for i := range 100 {
		es = append(es, hardlink(fmt.Sprintf("link%04d", i), "a-big"))
	}
	data, _ := writeArchive(t, es, Options{Top: "top", Compression: Zstd})
	_, err := Inspect(context.Background(), bytes.NewReader(data))
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("hardlinks counted")) {
		t.Fatalf("got %v, want a limit error counting hardlinks", err)
	}
}

// sparseArchive is a zstd tar whose top directory holds one GNU sparse
// file of 1 GB (a size that a regression hashes in seconds, not minutes)
// in 3 KB of tar: typ 'S' (the old GNU header) or '0' with PAX GNU.sparse
// records.
func sparseArchive(t *testing.T, typ byte) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	testutil.Must(t, tw.WriteHeader(&tar.Header{Name: "top/", Typeflag: tar.TypeDir, Mode: 0o755}))
	testutil.Must(t, tw.Flush())
	// The headers are written raw: tar.Writer drops GNU.sparse records
	// and writes no type 'S'.
	raw := func(name string, typ byte, body []byte, realsize int64) {
		var h [512]byte
		copy(h[0:], name)
		copy(h[100:], "0000644\x00")
		copy(h[108:], "0000000\x00")
		copy(h[116:], "0000000\x00")
		copy(h[124:], fmt.Sprintf("%011o\x00", len(body)))
		copy(h[136:], "00000000000\x00")
		h[156] = typ
		if typ == tar.TypeGNUSparse {
			copy(h[257:], "ustar  \x00")                                        // GNU magic
			copy(h[386:], fmt.Sprintf("%011o\x00%011o\x00", realsize-512, 512)) // one data fragment at the end
			copy(h[483:], fmt.Sprintf("%011o\x00", realsize))
		} else {
			copy(h[257:], "ustar\x0000")
		}
		for i := 148; i < 156; i++ {
			h[i] = ' '
		}
		sum := 0
		for _, c := range h {
			sum += int(c)
		}
		copy(h[148:], fmt.Sprintf("%06o\x00 ", sum))
		b.Write(h[:])
		b.Write(body)
		b.Write(make([]byte, (512-len(body)%512)%512))
	}
	if typ == tar.TypeGNUSparse {
		raw("top/s", typ, make([]byte, 512), 1<<30)
	} else {
		rec := paxRec("GNU.sparse.major", "1") + paxRec("GNU.sparse.minor", "0") + paxRec("GNU.sparse.name", "top/s") +
			paxRec("GNU.sparse.realsize", fmt.Sprint(1<<30))
		raw("top/PaxHeaders/s", 'x', []byte(rec), 0)
		raw("top/s", '0', append([]byte("1\n0\n0\n"), make([]byte, 506)...), 0)
	}
	b.Write(make([]byte, 1024))
	c, err := zstdCompress(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestInspectSparseRefused: a GNU sparse file (3 KB of tar, 1 GB of
// synthesized zeros) is refused by Inspect, not hashed, and by Walk, not
// handed over: entry.FromTar refuses it for both.
func TestInspectSparseRefused(t *testing.T) {
	for _, typ := range []byte{'0', tar.TypeGNUSparse} {
		c := sparseArchive(t, typ)
		_, err := Inspect(context.Background(), bytes.NewReader(c))
		if !errors.Is(err, ErrType) || !errors.Is(err, entry.ErrSparse) ||
			!strings.Contains(err.Error(), "unsupported entry type: sparse file") {
			t.Errorf("type %q: Inspect: got %v, want a sparse-file ErrType", typ, err)
		}
		err = Walk(context.Background(), bytes.NewReader(c), "", func(h entry.Header, content io.Reader) error {
			if h.Type == entry.Regular {
				t.Errorf("type %q: Walk handed over %s (%d bytes)", typ, h.Path, h.Size)
			}
			return nil
		})
		var ee *EntryError
		if !errors.Is(err, ErrType) || !errors.Is(err, entry.ErrSparse) || !errors.As(err, &ee) || ee.Name != "top/s" {
			t.Errorf("type %q: Walk: got %v, want a sparse-file ErrType on top/s", typ, err)
		}
	}
}

func paxRec(k, v string) string {
	s := " " + k + "=" + v + "\n"
	for n := len(s) + 1; ; n++ {
		if len(fmt.Sprint(n))+len(s) == n {
			return fmt.Sprint(n) + s
		}
	}
}

func zstdCompress(b []byte) ([]byte, error) {
	var out bytes.Buffer
	w, err := zstd.NewWriter(&out)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// TestInspectHardlinkAmplificationRefused: links that would make the NAR
// hash more than MaxLinkedFactor times the tar stream (here 40 links to an
// 8 MiB file: 320 MiB again, over 4 x RatioMinBytes) are refused as a
// limit before the second pass hashes anything, while 200 links to 1 MiB
// (TestInspectHardlinksReadOnce) stay within it.
func TestInspectHardlinkAmplificationRefused(t *testing.T) {
	es := []Entry{file("a-big", 0o644, content(3, 8<<20))}
	for i := range 40 {
		es = append(es, hardlink(fmt.Sprintf("link%02d", i), "a-big"))
	}
	data, _ := writeArchive(t, es, Options{Top: "top", Compression: Zstd})
	r := &countingReaderAt{Reader: bytes.NewReader(data)}
	_, err := Inspect(context.Background(), r)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxLinkedFactor") {
		t.Fatalf("err = %v, want ErrLimit naming MaxLinkedFactor", err)
	}
	if r.n > int64(len(data)) {
		t.Errorf("read %d bytes of a %d-byte archive: the refusal came after a second pass", r.n, len(data))
	}
}

// TestWalkBounded: Walk, which verify --nixpkgs and sbom decode archives
// with, refuses a decompression bomb as Inspect does, and an archive whose
// entries are not all below the one top directory its name says (issue
// 37: readers agree with verify on what an archive is).
func TestWalkBounded(t *testing.T) {
	walk := func(data []byte, top string) error {
		return Walk(context.Background(), bytes.NewReader(data), top, func(entry.Header, io.Reader) error { return nil })
	}
	bomb, _ := writeArchive(t, []Entry{file("zeros", 0o644, make([]byte, 96<<20))}, Options{Top: "top", Compression: Zstd})
	if err := walk(bomb, "top"); !errors.Is(err, ErrLimit) {
		t.Errorf("bomb: got %v, want ErrLimit", err)
	}
	data, _ := writeArchive(t, []Entry{file("a", 0o644, []byte("x"))}, Options{Top: "other-archive", Compression: Zstd})
	if err := walk(data, "top"); !errors.Is(err, ErrTopDir) {
		t.Errorf("another archive's top: got %v, want ErrTopDir", err)
	}
	if err := walk(data, ""); err != nil {
		t.Errorf("any top: %v", err)
	}
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, n := range []string{"one/", "one/a", "two/", "two/b"} {
		typ := byte(tar.TypeReg)
		if strings.HasSuffix(n, "/") {
			typ = tar.TypeDir
		}
		testutil.Must(t, tw.WriteHeader(&tar.Header{Name: n, Typeflag: typ, Mode: 0o644}))
	}
	testutil.Must(t, tw.Close())
	two, err := zstdCompress(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := walk(two, ""); !errors.Is(err, ErrTopDir) {
		t.Errorf("two tops: got %v, want ErrTopDir", err)
	}
}
