package debredist

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/mirrorgen"
)

// benchMirror returns the mirror BenchmarkConvert converts:
// $DEBREDIST_BENCH_MIRROR (a bench/corpus mirror, e.g. from bench/e2e.sh),
// or else an r36.5 mirror generated once under b.TempDir with ~40 MiB of
// default payload (libraries of 1-4 MiB).
func benchMirror(b *testing.B) string {
	if m := os.Getenv("DEBREDIST_BENCH_MIRROR"); m != "" {
		return m
	}
	dir := b.TempDir()
	sizeOf := func(pkg, p string) int64 {
		base := path.Base(p)
		if strings.Contains(base, ".so.") || strings.HasSuffix(base, ".a") {
			return 1<<20 + int64(len(p)%4)<<20
		}
		return mirrorgen.DefaultSizeOf(pkg, p)
	}
	err := mirrorgen.Generate(context.Background(), dir, mirrorgen.Options{Suites: []string{"r36.5"}, SizeOf: sizeOf})
	if err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkConvert runs Convert end to end (cache pre-filled, fresh OUT);
// MB/s are input (deb) bytes per second;
// out-bytes/op is the total archive size.
//
//	DEBREDIST_BENCH_MIRROR=/tmp/debredist-e2e/mirror-64 \
//	  go test -run '^$' -bench Convert -benchtime 1x -cpuprofile cpu.prof ./debredist/
func BenchmarkConvert(b *testing.B) {
	m := benchMirror(b)
	cache := b.TempDir()
	ctx := context.Background()
	// Pre-fill the cache: fetching is not what is measured.
	if _, err := Convert(ctx, Options{
		Source:  Source{Mirror: m, CacheDir: cache},
		Release: Release{JetPack: "6"},
		Build:   Build{Out: b.TempDir(), Jobs: 2},
	}); err != nil {
		b.Fatal(err)
	}
	var debBytes int64
	err := filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if st, err := d.Info(); err == nil {
				debBytes += st.Size()
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(debBytes)
	b.ResetTimer()
	var out int64
	for b.Loop() {
		res, err := Convert(
			ctx,
			Options{
				Source:  Source{Mirror: m, CacheDir: cache, Offline: true},
				Release: Release{JetPack: "6"},
				Build:   Build{Out: b.TempDir(), Jobs: 2},
			},
		)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range res.Packages {
			if p.UpToDate {
				b.Fatalf("%s up to date in a fresh OUT", p.PName)
			}
			out += p.Size
		}
	}
	b.ReportMetric(float64(out)/float64(b.N), "out-bytes/op")
}
