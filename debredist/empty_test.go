package debredist

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/redist"
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
	profJSON := `{"name": "jp6-noprune", "l4t": "r36.5", "repos": ["common", "t234"], "cuda": "12.6",
		"platform": "linux-aarch64", "target": "aarch64-linux", "triple": "aarch64-linux-gnu", "release_date": "2026-01-15",
		"rules": {"rules": [{"match": "usr/local/cuda-{cuda}/bin/nvprune", ` +
		`"drop": "test: nothing of cuda_nvprune is kept"}]}}`
	if err := os.WriteFile(prof, []byte(profJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	mirror := filepath.Join("..", "testdata", "sample-mirror")
	cache, out := t.TempDir(), t.TempDir()
	pl, err := Plan(
		context.Background(),
		Options{Source: Source{Mirror: mirror, CacheDir: cache}, Release: Release{ProfileFile: prof}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(pl.Packages, func(p plan.Package) bool { return p.PName == "cuda_nvprune" }) ||
		len(pl.SkippedPackages) != 0 {
		t.Fatalf("with nothing cached the plan cannot know: want cuda_nvprune planned, got skipped %v", pl.SkippedPackages)
	}
	res := mustConvert(
		t,
		Options{Source: Source{Mirror: mirror, CacheDir: cache}, Release: Release{ProfileFile: prof}, Build: Build{Out: out}},
	)
	if len(res.Skipped) != 1 || res.Skipped[0].PName != "cuda_nvprune" ||
		!strings.Contains(res.Skipped[0].Reason, "nothing the redist layout keeps") {
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
		if !strings.Contains(w.Message, "nixpkgs' declared output") &&
			!strings.Contains(w.Message, "nixpkgs marks it insecure (tensorrt 10.3.0.30 is below 10.16.1: CVE-2026-24188") {
			t.Errorf("warning names neither an output nor the TensorRT vulnerability: %s", w)
		}
	}

	// Now the debs are cached: Plan, a function of the indexes and the
	// profile, still plans cuda_nvprune; PlanCached's look-ahead sees it
	// empty without converting.
	pl, err = Plan(
		context.Background(),
		Options{Source: Source{Mirror: mirror, CacheDir: cache}, Release: Release{ProfileFile: prof}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(pl.Packages, func(p plan.Package) bool { return p.PName == "cuda_nvprune" }) ||
		len(pl.SkippedPackages) != 0 {
		t.Fatalf("Plan read the cache: want cuda_nvprune planned, got skipped %v", pl.SkippedPackages)
	}
	pl, err = PlanCached(
		context.Background(),
		Options{Source: Source{Mirror: mirror, CacheDir: cache}, Release: Release{ProfileFile: prof}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.SkippedPackages) != 1 || pl.SkippedPackages[0].PName != "cuda_nvprune" ||
		!slices.Contains(pl.SkippedPackages[0].Debs, "cuda-nvprune-12-6") {
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
	res := mustConvert(
		t,
		Options{
			Source:  Source{Mirror: mirror, CacheDir: t.TempDir()},
			Release: Release{ProfileFile: prof},
			Build:   Build{Out: t.TempDir(), Only: []string{"tensorrt"}},
		},
	)
	for _, want := range []redist.Warning{
		{
			Code:    redist.WarnEmptyOutput,
			Package: "tensorrt",
			Message: `redist package tensorrt: nixpkgs' declared output "samples" would be empty`,
		},
		{
			Code:    redist.WarnInsecure,
			Package: "tensorrt",
			Message: "redist package tensorrt: nixpkgs marks it insecure (tensorrt 10.3.0.30 is below 10.16.1: " +
				"CVE-2026-24188: OOB write)",
		}} {
		if !slices.ContainsFunc(res.Warnings, func(w redist.Warning) bool {
			return w.Code == want.Code && w.Package == want.Package && strings.HasPrefix(w.Message, want.Message)
		}) {
			t.Errorf("want a warning %+v, got %+v", want, res.Warnings)
		}
	}
	res = mustConvert(
		t,
		Options{
			Source:  Source{Mirror: mirror, CacheDir: t.TempDir()},
			Release: Release{JetPack: "7"},
			Build:   Build{Out: t.TempDir(), Only: []string{"tensorrt"}},
		},
	)
	if len(res.Warnings) != 0 {
		t.Errorf("JetPack 7.2 tensorrt: %q, want no warning", res.Warnings)
	}
}

// TestWarningsAreData (issue 31 item 2): warnings carry a stable code and
// the package, are recorded in the provenance, and a no-op rerun or an
// --only run of the same OUT reports the same list as the run that built
// it; FailOnWarnings fails on any code AllowWarnings does not name, after
// writing OUT.
func TestWarningsAreData(t *testing.T) {
	t.Parallel()
	mirror := filepath.Join("..", "testdata", "sample-mirror")
	cache, out := t.TempDir(), t.TempDir()
	opts := func(b Build) Options {
		b.Out = out
		return Options{Source: Source{Mirror: mirror, CacheDir: cache}, Release: Release{JetPack: "6"}, Build: b}
	}
	first := mustConvert(t, opts(Build{Only: []string{"tensorrt", "cuda_cudart"}}))
	insecure := slices.IndexFunc(
		first.Warnings,
		func(w redist.Warning) bool { return w.Code == redist.WarnInsecure && w.Package == "tensorrt" },
	)
	if insecure < 0 {
		t.Fatalf("no %s warning for tensorrt: %+v", redist.WarnInsecure, first.Warnings)
	}
	prov, _, err := redist.ReadSidecar(filepath.Join(out, "tensorrt", "redist", "redistrib_10.3.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(prov.Archives) != 1 || !slices.Equal(prov.Archives[0].Warnings, first.Warnings[insecure:insecure+1]) {
		t.Errorf("provenance warnings %+v, want the result's %+v", prov.Archives[0].Warnings, first.Warnings[insecure])
	}
	for _, b := range []Build{
		{Only: []string{"tensorrt", "cuda_cudart"}},
		{Only: []string{"tensorrt"}},
		{Only: []string{"cuda_cudart"}},
	} {
		again := mustConvert(t, opts(b))
		if !slices.Equal(again.Warnings, first.Warnings) {
			t.Errorf("--only %v on the same OUT: warnings %+v, want %+v", b.Only, again.Warnings, first.Warnings)
		}
	}
	// Failing on warnings: the insecure one fails the run unless allowed.
	res, err := Convert(context.Background(), opts(Build{Only: []string{"tensorrt"}, FailOnWarnings: true}))
	var we *redist.WarningsError
	if !errors.As(err, &we) || res == nil || len(we.Warnings) != 1 || we.Warnings[0].Code != redist.WarnInsecure ||
		!strings.Contains(err.Error(), "nixpkgs-insecure (1)") {
		t.Errorf(
			"FailOnWarnings: err = %v (result %v), want a *redist.WarningsError for %s",
			err,
			res != nil,
			redist.WarnInsecure,
		)
	}
	if _, err := Convert(context.Background(), opts(Build{
		Only:           []string{"tensorrt"},
		FailOnWarnings: true,
		AllowWarnings:  []string{redist.WarnInsecure},
	})); err != nil {
		t.Errorf("FailOnWarnings with the code allowed: %v", err)
	}
	var ue *fault.UsageError
	if _, err := Convert(context.Background(), opts(Build{
		FailOnWarnings: true,
		AllowWarnings:  []string{"cve"},
	})); !errors.As(err, &ue) || !strings.Contains(err.Error(), redist.WarnInsecure) {
		t.Errorf("an unknown code: err = %v, want a usage error listing the codes", err)
	}
}

// TestProfileRuleUnused (issue 31 item 4): a rule of the profile that
// places and drops nothing is a profile-rule-unused warning naming it (a
// rule that emptied a package is used); a no-op rerun says the same.
func TestProfileRuleUnused(t *testing.T) {
	t.Parallel()
	prof := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(prof, []byte(`{"name": "p", "l4t": "r36.5", "rules": {"rules": [
		{"match": "usr/src/tensorrt/samples/**", "drop": "test: no samples"},
		{"match": "usr/local/cuda-{cuda}/bin/nvprune", "drop": "test: empties cuda_nvprune"},
		{"match": "srv/nvidia/**", "drop": "test: matches nothing"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mirror := filepath.Join("..", "testdata", "sample-mirror")
	o := Options{
		Source:  Source{Mirror: mirror, CacheDir: t.TempDir()},
		Release: Release{ProfileFile: prof},
		Build:   Build{Out: t.TempDir(), Only: []string{"tensorrt", "cuda_nvprune"}},
	}
	for run := range 2 {
		res := mustConvert(t, o)
		var unused []redist.Warning
		for _, w := range res.Warnings {
			if w.Code == redist.WarnRuleUnused {
				unused = append(unused, w)
			}
		}
		if len(unused) != 1 || !strings.Contains(unused[0].Message, `layout rule {match "srv/nvidia/**", drop}`) ||
			unused[0].Package != "" {
			t.Errorf("run %d: want one %s warning naming srv/nvidia/**, got %+v", run+1, redist.WarnRuleUnused, unused)
		}
	}
}
