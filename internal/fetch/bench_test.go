package fetch

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
)

const benchSize = 64 << 20

// BenchmarkCacheFill downloads a 64 MiB deb from a loopback http server into
// the cache (hash, fsync, rename) per iteration. Allocations must not grow
// with the file size.
func BenchmarkCacheFill(b *testing.B) {
	body := randomBytes(benchSize, 42)
	srv := newServer(b)
	pkg, path := testPkg("libbig", body)
	srv.put(path, body)
	benchFill(b, srv.URL, pkg)
}

// BenchmarkCacheFillDir is the same from a directory mirror.
func BenchmarkCacheFillDir(b *testing.B) {
	body := randomBytes(benchSize, 42)
	dir := b.TempDir()
	pkg, path := testPkg("libbig", body)
	p := filepath.Join(dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, body, 0o644); err != nil {
		b.Fatal(err)
	}
	benchFill(b, dir, pkg)
}

func benchFill(b *testing.B, base string, pkg apt.Package) {
	o := testOptions(b, base, nil)
	f := mustNew(b, o)
	ctx := context.Background()
	pkgs := []apt.Package{pkg}
	b.SetBytes(benchSize)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := f.Fetch(ctx, pkgs); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := os.Remove(f.CachePath(pkg.SHA256)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkCacheHitVerify re-hashes a 64 MiB cache entry (VerifyCache).
func BenchmarkCacheHitVerify(b *testing.B) {
	body := randomBytes(benchSize, 43)
	srv := newServer(b)
	pkg, path := testPkg("libbig", body)
	srv.put(path, body)
	o := testOptions(b, srv.URL, nil)
	o.VerifyCache = true
	f := mustNew(b, o)
	if _, err := f.Fetch(context.Background(), []apt.Package{pkg}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(benchSize)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := f.Fetch(context.Background(), []apt.Package{pkg}); err != nil {
			b.Fatal(err)
		}
	}
}
