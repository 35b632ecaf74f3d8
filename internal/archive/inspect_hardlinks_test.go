package archive

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"
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
