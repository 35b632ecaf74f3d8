package debredist

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/verify"
)

// TestEmptyComponentNotEmitted: a redist package whose debs carry nothing
// the layout keeps (here cuda_nvprune, whose only payload a profile rule
// drops) is not emitted by convert, and plan lists it as skipped with the
// reason once its debs are in the cache. Built packages whose declared
// nixpkgs outputs stay empty are warned about by name.
func TestEmptyComponentNotEmitted(t *testing.T) {
	t.Parallel()
	prof := filepath.Join(t.TempDir(), "jp6-noprune.json")
	if err := os.WriteFile(prof, []byte(`{"name": "jp6-noprune", "l4t": "r36.5", "repos": ["common", "t234"], "cuda": "12.6",
		"platform": "linux-aarch64", "target": "aarch64-linux", "triple": "aarch64-linux-gnu", "release_date": "2026-01-15",
		"rules": {"rules": [{"match": "usr/local/cuda-{cuda}/bin/nvprune", "drop": "test: nothing of cuda_nvprune is kept"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mirror := filepath.Join("..", "testdata", "sample-mirror")
	cache, out := t.TempDir(), t.TempDir()
	pl, err := Plan(context.Background(), Options{Source: Source{Mirror: mirror, CacheDir: cache}, Release: Release{ProfileFile: prof}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(pl.Packages, func(p plan.Package) bool { return p.PName == "cuda_nvprune" }) || len(pl.SkippedPackages) != 0 {
		t.Fatalf("with nothing cached the plan cannot know: want cuda_nvprune planned, got skipped %v", pl.SkippedPackages)
	}
	res := convert(t, Options{Source: Source{Mirror: mirror, CacheDir: cache}, Release: Release{ProfileFile: prof}, Build: Build{Out: out}})
	if len(res.Skipped) != 1 || res.Skipped[0].PName != "cuda_nvprune" || !strings.Contains(res.Skipped[0].Reason, "nothing the redist layout keeps") {
		t.Errorf("convert: want cuda_nvprune skipped with the reason, got %+v", res.Skipped)
	}
	for _, p := range res.Packages {
		if p.PName == "cuda_nvprune" {
			t.Errorf("cuda_nvprune emitted: %+v", p)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "cuda", "redist", "cuda_nvprune")); !os.IsNotExist(err) {
		t.Errorf("cuda_nvprune directory written: %v", err)
	}
	m, err := os.ReadFile(filepath.Join(out, "cuda", "redist", "redistrib_12.6.68.json"))
	if err != nil || strings.Contains(string(m), "cuda_nvprune") {
		t.Errorf("manifest names cuda_nvprune (or is missing: %v)", err)
	}
	if rep, err := verify.Dir(context.Background(), out); err != nil || rep.Err() != nil {
		t.Errorf("verify: %v %v", err, rep.Err())
	}
	for _, w := range res.Warnings {
		if !strings.Contains(w, "nixpkgs' declared output") && !strings.Contains(w, "nixpkgs marks it insecure (tensorrt 10.3.0.30 is below 10.16.1: CVE-2026-24188") {
			t.Errorf("warning names neither an output nor the TensorRT vulnerability: %s", w)
		}
	}

	// Now the debs are cached: plan sees it without converting.
	pl, err = Plan(context.Background(), Options{Source: Source{Mirror: mirror, CacheDir: cache}, Release: Release{ProfileFile: prof}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.SkippedPackages) != 1 || pl.SkippedPackages[0].PName != "cuda_nvprune" || !slices.Contains(pl.SkippedPackages[0].Debs, "cuda-nvprune-12-6") {
		t.Errorf("plan: want cuda_nvprune skipped, got %+v", pl.SkippedPackages)
	}
	if slices.ContainsFunc(pl.Packages, func(p plan.Package) bool { return p.PName == "cuda_nvprune" }) {
		t.Error("plan still lists cuda_nvprune as a package to build")
	}
}

// TestOutputWarningNamesOutput: convert warns about a declared nixpkgs
// output the debs leave empty (TensorRT 10.3 without its samples, which a
// profile rule drops here), naming package and output, and about a version
// nixpkgs marks insecure, naming the CVE; TensorRT 10.16 (JetPack 7.2, no
// samples deb) needs neither.
func TestOutputWarningNamesOutput(t *testing.T) {
	t.Parallel()
	prof := filepath.Join(t.TempDir(), "jp6-nosamples.json")
	if err := os.WriteFile(prof, []byte(`{"name": "jp6-nosamples", "l4t": "r36.5",
		"rules": {"rules": [{"match": "usr/src/tensorrt/samples/**", "drop": "test: no samples"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mirror := filepath.Join("..", "testdata", "sample-mirror")
	res := convert(t, Options{Source: Source{Mirror: mirror, CacheDir: t.TempDir()}, Release: Release{ProfileFile: prof}, Build: Build{Out: t.TempDir(), Only: []string{"tensorrt"}}})
	got := strings.Join(res.Warnings, "\n")
	for _, want := range []string{`redist package tensorrt: nixpkgs' declared output "samples" would be empty`,
		"redist package tensorrt: nixpkgs marks it insecure (tensorrt 10.3.0.30 is below 10.16.1: CVE-2026-24188: OOB write)"} {
		if !strings.Contains(got, want) {
			t.Errorf("want a warning %q, got %q", want, res.Warnings)
		}
	}
	res = convert(t, Options{Source: Source{Mirror: mirror, CacheDir: t.TempDir()}, Release: Release{JetPack: "7"}, Build: Build{Out: t.TempDir(), Only: []string{"tensorrt"}}})
	if len(res.Warnings) != 0 {
		t.Errorf("JetPack 7.2 tensorrt: %q, want no warning", res.Warnings)
	}
}
