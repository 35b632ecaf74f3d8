package apt

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
)

// benchStanza writes a realistic ~800-byte stanza for package i.
func benchStanza(w io.Writer, i int) {
	fmt.Fprintf(w, `Package: libbench%[1]d-cuda-12
Architecture: arm64
Version: 12.6.%[1]d-1+cuda12.6
Priority: optional
Section: libs
Source: bench%[2]d (12.6.%[1]d-1)
Maintainer: cudatools <cudatools@nvidia.com>
Installed-Size: %[1]d
Depends: libc6 (>= 2.34), libgcc-s1 (>= 3.0), libstdc++6 (>= 11), cuda-toolkit-12-6-config-common
Provides: libbench-cuda-%[2]d
Filename: pool/main/b/bench%[2]d/libbench%[1]d-cuda-12_12.6.%[1]d-1+cuda12.6_arm64.deb
Size: %[1]d
MD5sum: 0c5b6e0ea52ed1ba7a35c5a0c35c6b42
SHA1: 3c1b1cb9c9b86d4a2dfa4de3a9fd0a1b2fb0b7c4
SHA256: 54456ed3372670d6a6d7e19d5971ec234800fe620dfb822aa751bc7d80f2a516
Homepage: http://developer.nvidia.com/cuda-zone
Description: Benchmark library %[1]d for CUDA
 This stanza stands in for a CUDA library package. Its description runs
 over a few continuation lines, as real ones do.
 .
 A second paragraph follows the empty line.

`, i, i%500)
}

var (
	benchOnce  sync.Once
	benchIndex []byte
)

// largeIndex returns a 50k-stanza index (~45 MB), built once.
func largeIndex() []byte {
	benchOnce.Do(func() {
		var buf bytes.Buffer
		for i := range 50000 {
			benchStanza(&buf, i)
		}
		benchIndex = buf.Bytes()
	})
	return benchIndex
}

func BenchmarkParsePackages(b *testing.B) {
	data := largeIndex()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		pkgs, probs, err := ParsePackages(bytes.NewReader(data), ParseOptions{})
		if err != nil || len(pkgs) != 50000 || len(probs) != 0 {
			b.Fatalf("%d packages, %d problems, %v", len(pkgs), len(probs), err)
		}
	}
}

// BenchmarkScanner streams without keeping the packages.
func BenchmarkScanner(b *testing.B) {
	data := largeIndex()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := NewScanner(bytes.NewReader(data), ParseOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, err := s.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		_ = s.Close()
		if n != 50000 {
			b.Fatalf("%d packages", n)
		}
	}
}

func BenchmarkNewest(b *testing.B) {
	pkgs, _, err := ParsePackages(bytes.NewReader(largeIndex()), ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(Newest(pkgs)) != 50000 {
			b.Fatal("wrong count")
		}
	}
}

// generator produces an endless stream of stanzas up to limit bytes,
// without holding the stream in memory.
type generator struct {
	i, limit, sent int
	buf            bytes.Buffer
}

func (g *generator) Read(p []byte) (int, error) {
	for g.buf.Len() < len(p) && g.sent+g.buf.Len() < g.limit {
		benchStanza(&g.buf, g.i)
		g.i++
	}
	if g.buf.Len() == 0 {
		return 0, io.EOF
	}
	n, _ := g.buf.Read(p)
	g.sent += n
	return n, nil
}

// TestScannerHeapFlat streams a 200 MB index through the Scanner without
// keeping the results and checks that the live heap stays small: memory must
// not grow with the index.
func TestScannerHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 200 MB stream")
	}
	const total = 200 << 20
	const limit = 64 << 20
	g := &generator{limit: total}
	s, err := NewScanner(g, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	var ms runtime.MemStats
	var peak uint64
	n := 0
	for {
		_, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n%20000 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	if g.sent < total-(1<<20) || n < 200000 {
		t.Fatalf("streamed only %d bytes, %d stanzas", g.sent, n)
	}
	if peak > limit {
		t.Errorf("heap in use reached %d MiB while streaming %d MiB, want < %d MiB", peak>>20, g.sent>>20, limit>>20)
	}
	t.Logf("%d stanzas, %d MiB streamed, peak heap in use %.1f MiB", n, g.sent>>20, float64(peak)/(1<<20))
}
