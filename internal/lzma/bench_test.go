package lzma

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMeasureFile compresses $LZMA_MEASURE_FILE in 8 MiB blocks with
// parameter sets from $LZMA_MEASURE_PARAMS ("o:depth:nice" or
// "f:depth:nice", comma-separated; "g" greedy, a "b" suffix the binary tree,
// a "4" in the first field no 3-byte hash; optional ":dictMiB:hashBits") on
// 2 goroutines and logs size and time.
// It is a measuring aid, skipped unless the variable is set.
func TestMeasureFile(t *testing.T) {
	path := os.Getenv("LZMA_MEASURE_FILE")
	if path == "" {
		t.Skip("LZMA_MEASURE_FILE not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lim, _ := strconv.Atoi(os.Getenv("LZMA_MEASURE_MB")); lim > 0 && lim<<20 < len(data) {
		off := (len(data) - lim<<20) / 2
		data = data[off : off+lim<<20]
	}
	for _, spec := range strings.Split(os.Getenv("LZMA_MEASURE_PARAMS"), ",") {
		f := strings.Split(spec, ":")
		depth, _ := strconv.Atoi(f[1])
		nice, _ := strconv.Atoi(f[2])
		p := Params{Optimal: f[0][0] == 'o', BinaryTree: strings.HasSuffix(f[0], "b"), Greedy: f[0][0] == 'g', Depth: depth, Nice: nice,
			NoHash3: strings.Contains(f[0], "4")}
		if len(f) > 3 {
			mb, _ := strconv.Atoi(f[3])
			p.DictSize = mb << 20
		}
		if len(f) > 4 {
			p.HashBits, _ = strconv.Atoi(f[4])
		}
		bs := 8 << 20
		if mb, _ := strconv.Atoi(os.Getenv("LZMA_MEASURE_BLOCK_MB")); mb > 0 {
			bs = mb << 20
		}
		var blocks [][]byte
		for i := 0; i < len(data); i += bs {
			blocks = append(blocks, data[i:min(i+bs, len(data))])
		}
		sizes := make([]int, len(blocks))
		var ru0, ru1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
		start := time.Now()
		var wg sync.WaitGroup
		next := make(chan int, len(blocks))
		for i := range blocks {
			next <- i
		}
		close(next)
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e := NewEncoder(p)
				var out []byte
				for i := range next {
					out = e.Encode(out[:0], blocks[i])
					sizes[i] = len(out)
				}
			}()
		}
		wg.Wait()
		el := time.Since(start)
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
		total := 0
		for _, s := range sizes {
			total += s
		}
		fmt.Printf("%-12s in %d out %d ratio %.4f  wall %.1fs cpu %.1fs  %.2f MB/cpu-s\n", spec, len(data), total,
			float64(total)/float64(len(data)), el.Seconds(), cpu.Seconds(), float64(len(data))/1e6/cpu.Seconds())
	}
}
