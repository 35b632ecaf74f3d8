package debredist

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/publish"
)

// redistribFiles lists every file matching redistrib_* under OUT.
func redistribFiles(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "redistrib_") {
			rel, _ := filepath.Rel(out, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSidecarNameAndMigration: only manifests match redistrib_* in a
// product directory (NVIDIA's shell-parse.sh takes every such file for a
// release); an OUT written with the old sidecar name fails verify with a
// message naming it, and a rerun keeps the archives and renames it.
func TestSidecarNameAndMigration(t *testing.T) {
	t.Parallel()
	out, cache := t.TempDir(), t.TempDir()
	o := Options{
		Source:  Source{Mirror: filepath.Join("..", "testdata", "sample-mirror"), CacheDir: cache},
		Release: Release{JetPack: "6"},
		Build:   Build{Out: out, Only: []string{"cuda_cudart", "cudnn"}},
	}
	mustConvert(t, o)
	for _, f := range redistribFiles(t, out) {
		if !redist.IsManifestName(filepath.Base(f)) || strings.Contains(f, "provenance") {
			t.Errorf("%s matches redistrib_* but is not a manifest", f)
		}
	}
	cur := filepath.Join(out, "cuda", "redist", "debredist-provenance_12.6.68.json")
	if publish.FileSize(cur) <= 0 {
		t.Fatalf("sidecar %s missing", cur)
	}
	// An OUT as older versions left it.
	legacy := filepath.Join(out, "cuda", "redist", "redistrib_12.6.68.provenance.json")
	if err := os.Rename(cur, legacy); err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Dir(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Err(); e == nil ||
		!strings.Contains(e.Error(), "redistrib_12.6.68.provenance.json is a provenance sidecar under its old name") {
		t.Errorf("verify of an old-style OUT: want the old sidecar name reported, got %v", e)
	}
	for _, a := range rep.Artifacts {
		if len(a.Problems) > 0 {
			t.Errorf("%s: the old sidecar must still be read: %v", a.Path, a.Problems)
		}
	}
	res := mustConvert(t, o)
	for _, p := range res.Packages {
		if !p.UpToDate {
			t.Errorf("%s rebuilt: the legacy sidecar's records should keep it up to date", p.PName)
		}
	}
	if publish.FileSize(legacy) >= 0 {
		t.Errorf("%s left behind after the rerun", legacy)
	}
	if publish.FileSize(cur) <= 0 {
		t.Errorf("%s not written by the rerun", cur)
	}
	if rep, err := verify.Dir(context.Background(), out); err != nil || rep.Err() != nil {
		t.Errorf("verify after migration: %v %v", err, rep.Err())
	}
	// A stray redistrib_* file is reported.
	if err := os.WriteFile(filepath.Join(out, "cudnn", "redist", "redistrib_notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, _ := verify.Dir(context.Background(), out); rep.Err() == nil ||
		!strings.Contains(rep.Err().Error(), "redistrib_notes.txt is not a redistrib_<label>.json manifest") {
		t.Errorf("stray redistrib_* file not reported: %v", rep.Err())
	}
}
