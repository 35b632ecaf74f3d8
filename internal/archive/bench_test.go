package archive

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/lzma"
	"github.com/debredist/debredist/internal/testutil"
	"github.com/debredist/debredist/internal/xz"
)

// benchCorpusDir returns a directory holding at least size bytes of real
// shared libraries and Go tool binaries (copied once into os.TempDir(), the
// same corpus bench/compress.sh uses), and the entries for it.
func benchCorpus(b *testing.B, size int64) []Entry {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("debredist-bench-corpus-%dM", size>>20))
	if err := testutil.BinaryCorpus(dir, size); err != nil {
		b.Skipf("cannot build benchmark corpus: %v", err)
	}
	var es []Entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".complete" {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		es = append(es, Entry{
			Header: entry.Header{Path: filepath.ToSlash(rel), Type: entry.Regular, Mode: fi.Mode(), Size: fi.Size()},
			Open:   func() (io.ReadCloser, error) { return os.Open(p) },
		})
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return es
}

type countingDiscard struct{ n int64 }

func (c *countingDiscard) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// peakHeap samples the in-use heap while f runs.
func peakHeap(f func()) uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	return peak.Load()
}

func benchWrite(b *testing.B, es []Entry, opts Options) {
	var in int64
	for _, e := range es {
		in += e.Size
	}
	b.SetBytes(in)
	b.ReportAllocs()
	var out countingDiscard
	runtime.GC()
	cpu0 := cpuTime()
	peak := peakHeap(func() {
		for b.Loop() {
			out.n = 0
			if _, err := Write(context.Background(), &out, es, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(out.n)/float64(in), "ratio")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	// CPU seconds per op: unlike ns/op, not inflated by other processes
	// competing for the cores.
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// cpuTime is the user+system CPU time of this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWriteXZ measures the whole Write path (tar + NAR + parallel xz)
// over 256 MiB of binaries. Run with -benchtime=1x; compare workers=1/2.
func BenchmarkWriteXZ(b *testing.B) {
	es := benchCorpus(b, 256<<20)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			benchWrite(b, es, Options{Top: "bench", Workers: w})
		})
	}
}

// BenchmarkWriteZstd is the zstd counterpart of BenchmarkWriteXZ.
func BenchmarkWriteZstd(b *testing.B) {
	es := benchCorpus(b, 256<<20)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			benchWrite(b, es, Options{Top: "bench", Workers: w, Compression: Zstd})
		})
	}
}

// BenchmarkXZPresets compares the xz presets on 64 MiB.
func BenchmarkXZPresets(b *testing.B) {
	es := benchCorpus(b, 64<<20)
	for p := 1; p <= lzma.MaxLevel; p++ {
		b.Run(fmt.Sprintf("preset=%d", p), func(b *testing.B) {
			benchWrite(b, es, Options{Top: "bench", Workers: 2, Preset: p})
		})
	}
}

// BenchmarkXZBlock measures one block through the LZMA2 encoder alone.
func BenchmarkXZBlock(b *testing.B) {
	src := content(9, BlockSize)
	p, _ := lzma.Level(DefaultPreset)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		xz.EncodeBlock(src, p)
	}
}

// BenchmarkInspect measures reading back (xz decode + tar + hashes + NAR).
func BenchmarkInspect(b *testing.B) {
	es := benchCorpus(b, 64<<20)
	f, err := os.CreateTemp(b.TempDir(), "*.tar.xz")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := Write(context.Background(), f, es, Options{Top: "bench"}); err != nil {
		b.Fatal(err)
	}
	var in int64
	for _, e := range es {
		in += e.Size
	}
	b.SetBytes(in)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			b.Fatal(err)
		}
		if _, err := Inspect(context.Background(), f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkXZBlockParallel shows how the bare LZMA2 block encoder scales
// with cores (run with -cpu 1,2): the ceiling for Write's worker speedup.
func BenchmarkXZBlockParallel(b *testing.B) {
	src := content(9, BlockSize)
	p, _ := lzma.Level(DefaultPreset)
	b.SetBytes(int64(len(src)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			xz.EncodeBlock(src, p)
		}
	})
}
