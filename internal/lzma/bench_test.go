package lzma

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/debredist/debredist/internal/testutil"
)

// TestMeasureFile compresses $LZMA_MEASURE_FILE (a file, or every file of a
// directory) in blocks of $LZMA_MEASURE_BLOCK_MB (default 8) MiB, each file
// cut on its own, with parameter sets from $LZMA_MEASURE_PARAMS ("o:depth:nice"
// or "f:depth:nice", comma-separated; "g" greedy, a "b" suffix the binary
// tree, a "4" in the first field no 3-byte hash, an "a" ParseAll; optional
// ":dictMiB:hashBits") on $LZMA_MEASURE_WORKERS (default 2) goroutines and
// logs size and time. $LZMA_MEASURE_MB takes that many MiB from the middle
// of each file. $LZMA_MEASURE_VERIFY=1 decodes every block (ulikunitz/xz) and
// compares (outside the timing only in CPU: the time includes it). It is a
// measuring aid, skipped unless the variable is set.
func TestMeasureFile(t *testing.T) {
	path := os.Getenv("LZMA_MEASURE_FILE")
	if path == "" {
		t.Skip("LZMA_MEASURE_FILE not set")
	}
	files := []string{path}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		ents, err := os.ReadDir(path)
		if err != nil {
			t.Fatal(err)
		}
		files = files[:0]
		for _, e := range ents {
			files = append(files, filepath.Join(path, e.Name()))
		}
	}
	bs := 8 << 20
	if mb, _ := strconv.Atoi(os.Getenv("LZMA_MEASURE_BLOCK_MB")); mb > 0 {
		bs = mb << 20
	}
	verify := os.Getenv("LZMA_MEASURE_VERIFY") != ""
	workers := 2
	if w, _ := strconv.Atoi(os.Getenv("LZMA_MEASURE_WORKERS")); w > 0 {
		workers = w
	}
	var blocks [][]byte
	total := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if lim, _ := strconv.Atoi(os.Getenv("LZMA_MEASURE_MB")); lim > 0 && lim<<20 < len(data) {
			off := (len(data) - lim<<20) / 2
			data = data[off : off+lim<<20]
		}
		total += len(data)
		for i := 0; i < len(data); i += bs {
			blocks = append(blocks, data[i:min(i+bs, len(data))])
		}
	}
	for _, spec := range strings.Split(os.Getenv("LZMA_MEASURE_PARAMS"), ",") {
		f := strings.Split(spec, ":")
		depth, _ := strconv.Atoi(f[1])
		nice, _ := strconv.Atoi(f[2])
		p := Params{
			Optimal:    f[0][0] == 'o',
			BinaryTree: strings.Contains(f[0], "b"),
			Greedy:     f[0][0] == 'g',
			Depth:      depth,
			Nice:       nice,
			NoHash3:    strings.Contains(f[0], "4"),
			ParseAll:   strings.Contains(f[0], "a"),
		}
		if len(f) > 3 {
			mb, _ := strconv.Atoi(f[3])
			p.DictSize = mb << 20
		}
		if len(f) > 4 {
			p.HashBits, _ = strconv.Atoi(f[4])
		}
		sizes := make([]int, len(blocks))
		var ru0, ru1 syscall.Rusage
		testutil.Must(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru0))
		start := time.Now()
		var wg sync.WaitGroup
		next := make(chan int, len(blocks))
		for i := range blocks {
			next <- i
		}
		close(next)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e := NewEncoder(p)
				var out []byte
				for i := range next {
					out = e.Encode(out[:0], blocks[i])
					sizes[i] = len(out)
					if verify && !bytes.Equal(decodeUlikunitz(t, out, len(blocks[i])), blocks[i]) {
						t.Errorf("%s: block %d does not round-trip", spec, i)
					}
				}
			}()
		}
		wg.Wait()
		el := time.Since(start)
		testutil.Must(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru1))
		cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
		out := 0
		for _, s := range sizes {
			out += s
		}
		fmt.Printf("%-14s in %d out %d ratio %.4f  wall %.1fs cpu %.1fs  %.2f MB/cpu-s\n", spec, total, out,
			float64(out)/float64(total), el.Seconds(), cpu.Seconds(), float64(total)/1e6/cpu.Seconds())
	}
}
