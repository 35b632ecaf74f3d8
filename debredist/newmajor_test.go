package debredist_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/mirrorgen"
)

// TestNewMajorIsData: a made-up L4T major (r40, testdata/r40/jetpack8.json)
// converts with no Go change: its profile file is the only release
// knowledge. The fixture mirror is r39.2's with its suite renamed.
func TestNewMajorIsData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := t.TempDir()
	if err := mirrorgen.Generate(ctx, m, mirrorgen.Options{Suites: []string{"r39.2"}}); err != nil {
		t.Fatal(err)
	}
	renamed := 0
	err := filepath.WalkDir(m, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "r39.2" {
			renamed++
			if err := os.Rename(p, filepath.Join(filepath.Dir(p), "r40.0")); err != nil {
				return err
			}
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil || renamed == 0 {
		t.Fatalf("renaming the r39.2 suite: %v (%d directories)", err, renamed)
	}
	root := t.TempDir()
	o := debredist.Options{
		Source:  debredist.Source{Mirror: m, CacheDir: filepath.Join(root, "cache")},
		Release: debredist.Release{ProfileFile: "testdata/r40/jetpack8.json"},
		Build:   debredist.Build{Out: filepath.Join(root, "out"), Jobs: 2},
	}
	res, err := debredist.Convert(ctx, o)
	if err != nil {
		t.Fatalf("converting the made-up r40 release: %v", err)
	}
	if res.Profile.L4T != "r40.0" || len(res.Packages) < 10 {
		t.Fatalf("converted %d packages of %s", len(res.Packages), res.Profile.L4T)
	}
	products := map[string]bool{}
	for _, p := range res.Products {
		products[p.Product] = true
	}
	for _, want := range []string{"cuda", "cudnn", "tensorrt"} {
		if !products[want] {
			t.Errorf("no %s manifest (products %v)", want, products)
		}
	}
	rep, err := verify.Dir(ctx, o.Build.Out)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Errorf("verify: %v", err)
	}
	if !strings.Contains(res.Packages[0].Archive, "linux-sbsa") {
		t.Errorf("archive %s is not under the profile's platform", res.Packages[0].Archive)
	}
}
