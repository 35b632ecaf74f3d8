package mirrorgen

import (
	"context"
	"strings"
	"testing"
)

// BenchmarkGenerate measures generating one suite (r36.5, ~107 debs) with
// the default tiny payloads; MB/s counts the deb bytes written.
func BenchmarkGenerate(b *testing.B) {
	benchGenerate(b, Options{Suites: []string{"r36.5"}})
}

// BenchmarkGenerateLarge is the benchmark-corpus shape: 256 KiB per shared
// object and static library, CUDA libraries only.
func BenchmarkGenerateLarge(b *testing.B) {
	benchGenerate(b, Options{
		Suites: []string{"r36.5"},
		Only:   func(repo, pkg string) bool { return strings.HasPrefix(pkg, "libcu") },
		SizeOf: func(pkg, p string) int64 {
			if strings.Contains(p, ".so") || strings.HasSuffix(p, ".a") {
				return 256 << 10
			}
			return DefaultSizeOf(pkg, p)
		},
	})
}

func benchGenerate(b *testing.B, opts Options) {
	var total int64
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		if err := Generate(context.Background(), dir, opts); err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			for _, h := range treeSizes(b, dir) {
				total += h
			}
			b.SetBytes(total)
		}
	}
}
