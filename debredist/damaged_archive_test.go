package debredist

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/debredist/debredist/internal/mirrorgen"
)

// TestConvertRebuildsDamagedArchive: an archive damaged in place (same size)
// is not kept by a rerun, since Convert no longer decodes every archive at
// the end: the rerun re-hashes kept archives and rebuilds this one, byte
// for byte.
func TestConvertRebuildsDamagedArchive(t *testing.T) {
	t.Parallel()
	m := mirror(t, mirrorgen.Options{Suites: []string{"r36.5"}})
	out, cache := t.TempDir(), t.TempDir()
	o := Options{
		Source:  Source{Mirror: m, CacheDir: cache},
		Release: Release{JetPack: "6"},
		Build:   Build{Out: out, Only: []string{"cuda_cudart", "cuda_nvcc"}},
	}
	res := mustConvert(t, o)
	if len(res.Packages) != 2 {
		t.Fatalf("packages %+v", res.Packages)
	}
	damaged := filepath.Join(out, filepath.FromSlash(res.Packages[0].Archive))
	if res.Packages[0].Archive == "" || !filepath.IsAbs(damaged) {
		t.Fatalf("archive path %q", res.Packages[0].Archive)
	}
	orig, err := os.ReadFile(damaged)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(orig)
	bad[len(bad)/2] ^= 0xff
	if err := os.WriteFile(damaged, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	res2 := mustConvert(t, o)
	for _, p := range res2.Packages {
		if want := p.PName != res.Packages[0].PName; p.UpToDate != want {
			t.Errorf("%s: up to date %v, want %v", p.PName, p.UpToDate, want)
		}
	}
	got, err := os.ReadFile(damaged)
	if err != nil || !bytes.Equal(got, orig) {
		t.Errorf("rebuilt archive differs from the original (err %v)", err)
	}
}
