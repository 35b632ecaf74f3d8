package debredist

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/reldiff"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/mirrorgen"
)

func diff(t *testing.T, o DiffOptions, from, to string) *reldiff.Result {
	t.Helper()
	r, err := Diff(context.Background(), o, from, to)
	if err != nil {
		t.Fatalf("diff %s %s: %v", from, to, err)
	}
	return r
}

func product(t *testing.T, r *reldiff.Result, name string) reldiff.Product {
	t.Helper()
	for _, p := range r.Products {
		if p.Product == name {
			return p
		}
	}
	t.Fatalf("no product %s in %+v", name, r.Products)
	return reldiff.Product{}
}

func component(t *testing.T, p reldiff.Product, pname string) reldiff.ComponentChange {
	t.Helper()
	for _, c := range p.Components {
		if c.PName == pname {
			return c
		}
	}
	t.Fatalf("%s: no component %s in %+v", p.Product, pname, p.Components)
	return reldiff.ComponentChange{}
}

// TestDiffR364R365 checks the diff of the two JetPack 6 fixtures against
// facts read by hand from testdata/inventories/r36.{4,5}-debs.json: every
// CUDA, cuDNN and TensorRT deb is identical in both suites (same version
// and sha256); nvidia-l4t-dla-compiler moves from 36.4.4-20250616085344 to
// 36.5.0-20260115194252, so the l4t manifest's label moves 36.4.4 ->
// 36.5.0; the release dates derived from the nvidia-l4t-* versions are
// 2025-06-16 and 2026-01-15.
func TestDiffR364R365(t *testing.T) {
	t.Parallel()
	m := mirror(t, mirrorgen.Options{Suites: []string{"r36.4", "r36.5"}})
	o := DiffOptions{Source: Source{Mirror: m, CacheDir: t.TempDir()}}
	r := diff(t, o, "r36.4", "r36.5")
	if r.From.L4T != "r36.4" || r.To.L4T != "r36.5" || r.From.ReleaseDate != "2025-06-16" ||
		r.To.ReleaseDate != "2026-01-15" {
		t.Errorf("sides %+v -> %+v", r.From, r.To)
	}
	for _, c := range []struct{ product, label string }{{"cuda", "12.6.68"}, {"cudnn", "9.3.0"}, {"tensorrt", "10.3.0"}} {
		p := product(t, r, c.product)
		if p.FromLabel != c.label || p.ToLabel != c.label || len(p.Components) != 0 || p.Unchanged == 0 {
			t.Errorf("%s: %+v, want label %s both sides and no changed component", c.product, p, c.label)
		}
	}
	l4t := product(t, r, "l4t")
	if l4t.FromLabel != "36.4.4" || l4t.ToLabel != "36.5.0" {
		t.Errorf("l4t label %s -> %s, want 36.4.4 -> 36.5.0", l4t.FromLabel, l4t.ToLabel)
	}
	dla := component(t, l4t, "nvidia_l4t_dla_compiler")
	want := []reldiff.DebChange{
		{Name: "nvidia-l4t-dla-compiler", FromVersion: "36.4.4-20250616085344", ToVersion: "36.5.0-20260115194252"},
	}
	if dla.Status != "changed" || dla.FromVersion != "36.4.4" || dla.ToVersion != "36.5.0" ||
		!reflect.DeepEqual(dla.DebsChanged, want) {
		t.Errorf("dla compiler: %+v, want 36.4.4 -> 36.5.0 with deb change %+v", dla, want)
	}
	if r.Files || dla.Files != nil {
		t.Error("paths compared without Files")
	}
	// Debs outside the components (the fixture carries the meta-packages
	// and a few nvidia-l4t-* debs of t234): nvidia-cudnn9(-dev) are gone in
	// r36.5, nvidia-jetpack goes 6.2.1+b38 -> 6.2.2+b24, nvidia-l4t-core
	// 36.4.4-20250616085344 -> 36.5.0-20260115194252.
	if r.Others == nil {
		t.Fatal("no comparison of the other debs")
	}
	var removed []string
	for _, d := range r.Others.Removed {
		removed = append(removed, d.Repo+"/"+d.Name)
	}
	if want := []string{"common/nvidia-cudnn9", "common/nvidia-cudnn9-dev"}; !reflect.DeepEqual(removed, want) ||
		len(r.Others.Added) != 0 {
		t.Errorf("other debs removed %v added %v, want removed %v", removed, r.Others.Added, want)
	}
	for _, want := range []reldiff.DebChange{
		{Repo: "common", Name: "nvidia-jetpack", FromVersion: "6.2.1+b38", ToVersion: "6.2.2+b24"},
		{Repo: "t234", Name: "nvidia-l4t-core", FromVersion: "36.4.4-20250616085344", ToVersion: "36.5.0-20260115194252"},
	} {
		if !slices.Contains(r.Others.Changed, want) {
			t.Errorf("other debs changed %+v: want %+v", r.Others.Changed, want)
		}
	}

	// --files: the dla compiler's files are the same paths in both.
	o.Files = true
	r = diff(t, o, "r36.4", "r36.5")
	dla = component(t, product(t, r, "l4t"), "nvidia_l4t_dla_compiler")
	if !r.Files || dla.Files == nil || !dla.Files.Empty() {
		t.Errorf("dla compiler files: %+v, want compared and equal", dla.Files)
	}
}

// TestDiffFilesJetPack5To6: path-level changes between CUDA 11.4 and 12.6.
func TestDiffFilesJetPack5To6(t *testing.T) {
	t.Parallel()
	m := mirror(t, mirrorgen.Options{Suites: []string{"r35.6", "r36.5"}})
	r := diff(t, DiffOptions{Source: Source{Mirror: m, CacheDir: t.TempDir()}, Files: true}, "jetpack5", "jetpack6")
	cuda := product(t, r, "cuda")
	if cuda.FromLabel != "11.4.298" || cuda.ToLabel != "12.6.68" {
		t.Errorf("cuda label %s -> %s", cuda.FromLabel, cuda.ToLabel)
	}
	cudart := component(t, cuda, "cuda_cudart")
	if !slices.ContainsFunc(cudart.DebsRenamed, func(d reldiff.DebRename) bool {
		return d.From.Name == "cuda-cudart-11-4" && d.To.Name == "cuda-cudart-12-6" && d.To.Version == "12.6.68-1"
	}) {
		t.Errorf("cuda_cudart renames %+v: want cuda-cudart-11-4 => cuda-cudart-12-6", cudart.DebsRenamed)
	}
	f := cudart.Files
	if f == nil || !slices.Contains(f.Added, "lib/libcudart.so.12.6.68") ||
		!slices.Contains(f.Removed, "lib/libcudart.so.11.4.298") ||
		!slices.Contains(f.Added, "pkg-config/cudart-12.6.pc") {
		t.Fatalf("cuda_cudart files %+v", f)
	}
	if !slices.Contains(
		f.LinkChanged,
		reldiff.LinkChange{Path: "lib/libcudart.so", From: "libcudart.so.11.0", To: "libcudart.so.12"},
	) {
		t.Errorf("cuda_cudart link changes %+v", f.LinkChanged)
	}
	nvcc := component(t, cuda, "cuda_nvcc")
	var added []string
	for _, d := range nvcc.DebsAdded {
		added = append(added, d.Name)
	}
	if !reflect.DeepEqual(added, []string{"cuda-crt-12-6", "cuda-nvvm-12-6"}) {
		t.Errorf("cuda_nvcc debs added %v", added)
	}
	// r35 has no DLA compiler deb (the library is inside nvidia-l4t-core).
	l4t := product(t, r, "l4t")
	if l4t.FromLabel != "" || l4t.ToLabel != "36.5.0" || component(t, l4t, "nvidia_l4t_dla_compiler").Status != "added" {
		t.Errorf("l4t %+v", l4t)
	}
	for _, p := range r.Products {
		for _, c := range p.Components {
			if c.Files != nil && (len(c.Files.Unplaced) > 0 || c.Files.Problem != "") {
				t.Errorf("%s: the fixture's paths are all placed by the built-in rules, got %+v", c.PName, c.Files)
			}
		}
	}
}

// TestDiffSelfAndLockVsOut: a release against itself, and a lock (ours and
// jetpack-nixos') against the output directory converted from it, are empty.
func TestDiffSelfAndLockVsOut(t *testing.T) {
	t.Parallel()
	m := mirror(t, mirrorgen.Options{Suites: []string{"r35.6", "r36.5"}})
	dir, cache := t.TempDir(), t.TempDir()
	o := DiffOptions{Source: Source{Mirror: m, CacheDir: cache}, Files: true}
	if r := diff(t, o, "r36.5", "jetpack6"); !r.Empty() {
		t.Errorf("r36.5 vs jetpack6: %+v", r)
	}
	lock, out := filepath.Join(dir, "r36.5.lock.json"), filepath.Join(dir, "out")
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: m, CacheDir: cache},
			Release: Release{L4T: "r36.5"},
			Build:   Build{Out: out, LockOut: lock},
		},
	)
	for _, pair := range [][2]string{{lock, out}, {out, lock}, {"r36.5", out}} {
		r := diff(t, o, pair[0], pair[1])
		if !r.Empty() {
			t.Errorf("%s vs %s: %+v", pair[0], pair[1], r)
		}
		if r.From.L4T != "r36.5" || r.To.L4T != "r36.5" {
			t.Errorf("%s vs %s: suites %s %s", pair[0], pair[1], r.From.L4T, r.To.L4T)
		}
	}
	// jetpack-nixos' format: the suite comes from the file name.
	nixos := filepath.Join(dir, "r36.5-debs.json")
	f, err := os.Create(nixos)
	if err != nil {
		t.Fatal(err)
	}
	if err := Inventory(
		context.Background(),
		Options{Source: Source{Mirror: m}, Release: Release{L4T: "r36.5"}},
		f,
		InventoryJetPackNixos,
	); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if r := diff(t, o, nixos, out); !r.Empty() || r.From.Origin != "lock" || r.To.Origin != "out" {
		t.Errorf("jetpack-nixos inventory vs out: %+v", r)
	}
	renamed := filepath.Join(dir, "sourceinfo.json")
	if err := os.Rename(nixos, renamed); err != nil {
		t.Fatal(err)
	}
	var ue *fault.UsageError
	if _, err := Diff(context.Background(), o, renamed, out); !errors.As(err, &ue) {
		t.Errorf("jetpack-nixos file without a suite: err %v, want a usage error", err)
	}
	if r := diff(t, o, renamed+"@r36.5", out); !r.Empty() {
		t.Errorf("FILE@r36.5 vs out: %+v", r)
	}
	// Against the mirror it was made from: the same, although the format
	// leaves out the meta-packages (cuda-12-6, nvidia-jetpack, ...).
	if r := diff(t, o, renamed+"@r36.5", "r36.5"); !r.Empty() || r.Others != nil {
		t.Errorf("FILE@r36.5 vs r36.5: %+v (others %+v)", r, r.Others)
	}

	// An OUT holding two releases (labels of their own) needs OUT@suite.
	o.Files = false
	mustConvert(
		t,
		Options{Source: Source{Mirror: m, CacheDir: cache}, Release: Release{L4T: "r35.6"}, Build: Build{Out: out}},
	)
	if _, err := Diff(context.Background(), o, lock, out); !errors.As(err, &ue) {
		t.Errorf("OUT with r35.6 and r36.5: err %v, want a usage error asking for OUT@suite", err)
	}
	if r := diff(t, o, lock, out+"@r36.5"); !r.Empty() {
		t.Errorf("lock vs OUT@r36.5: %+v", r)
	}
	r := diff(t, o, out+"@r35.6", out+"@r36.5")
	if cuda := product(t, r, "cuda"); cuda.FromLabel != "11.4.298" || cuda.ToLabel != "12.6.68" {
		t.Errorf("OUT@r35.6 vs OUT@r36.5: cuda %+v", cuda)
	}
	if _, err := Diff(context.Background(), o, out+"@r38.4", lock); err == nil {
		t.Error("OUT@r38.4: no error for a release OUT does not hold")
	}
}

func TestDiffBadRefs(t *testing.T) {
	t.Parallel()
	o := DiffOptions{Source: Source{Mirror: t.TempDir(), CacheDir: t.TempDir()}}
	var ue *fault.UsageError
	for _, ref := range []string{"jetpack99", "no-such-file.json", "r99.1"} {
		if _, err := Diff(context.Background(), o, ref, "r36.5"); !errors.As(err, &ue) {
			t.Errorf("%s: err %v, want a usage error", ref, err)
		}
	}
	if _, err := Diff(context.Background(), o, t.TempDir(), "r36.5"); err == nil {
		t.Error("an empty directory read as an output directory")
	}
}

// TestDiffUnplacedThenProfileFix is the README's new-release loop: TO has a
// deb path no built-in rule places; diff --files names it (and the
// conversion fails on it); a profile file with one rule fixes the
// conversion.
func TestDiffUnplacedThenProfileFix(t *testing.T) {
	t.Parallel()
	m := freshMirror(t, mirrorgen.Options{Suites: []string{"r36.5"}})
	dir, cache := t.TempDir(), t.TempDir()
	ctx := context.Background()

	// The "new release": r36.5 whose libcublas-12-6 also ships
	// srv/nvidia/cublas-telemetry.json.
	files, err := mirrorgen.Files("r36.5", "common", "libcublas-12-6")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files,
		debtest.File{Name: "srv", Type: tar.TypeDir}, debtest.File{Name: "srv/nvidia", Type: tar.TypeDir},
		debtest.File{Name: "srv/nvidia/cublas-telemetry.json", Body: []byte("{}\n")})
	b, err := debtest.Build(
		debtest.Deb{Control: "Package: libcublas-12-6\nVersion: 12.6.1.4-2\nArchitecture: arm64\n", Files: files},
	)
	if err != nil {
		t.Fatal(err)
	}
	const filename = "pool/main/libc/libcublas/libcublas-12-6_12.6.1.4-2_arm64.deb"
	mustWrite(t, filepath.Join(m, "common", filepath.FromSlash(filename)), b)
	sum := sha256.Sum256(b)

	var lb bytes.Buffer
	if err := Inventory(ctx, Options{
		Source:  Source{Mirror: m},
		Release: Release{L4T: "r36.5"},
	}, &lb, InventoryLock); err != nil {
		t.Fatal(err)
	}
	var lock map[string]any
	if err := json.Unmarshal(lb.Bytes(), &lock); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range lock["packages"].([]any) {
		e := p.(map[string]any)
		if e["package"] == "libcublas-12-6" {
			e["version"], e["filename"], e["sha256"], e["size"] = "12.6.1.4-2", filename, hex.EncodeToString(sum[:]), len(b)
			found = true
		}
	}
	if !found {
		t.Fatal("libcublas-12-6 not in the r36.5 lock")
	}
	next := filepath.Join(dir, "next.lock.json")
	nb, _ := json.Marshal(lock)
	mustWrite(t, next, nb)

	o := DiffOptions{Source: Source{Mirror: m, CacheDir: cache}, Files: true}
	r := diff(t, o, "r36.5", next)
	cublas := component(t, product(t, r, "cuda"), "libcublas")
	want := []fault.DebPath{{Deb: "libcublas-12-6", Path: "srv/nvidia/cublas-telemetry.json"}}
	if cublas.Files == nil || !reflect.DeepEqual(cublas.Files.Unplaced, want) || cublas.Files.Problem != "" {
		t.Fatalf("libcublas files %+v, want unplaced %v", cublas.Files, want)
	}
	if len(cublas.DebsChanged) != 1 || cublas.DebsChanged[0].ToVersion != "12.6.1.4-2" {
		t.Errorf("libcublas deb changes %+v", cublas.DebsChanged)
	}

	conv := Options{
		Source:  Source{Mirror: m, CacheDir: cache},
		Release: Release{LockFile: next},
		Build:   Build{Out: filepath.Join(dir, "out")},
	}
	var ue *fault.UnplacedError
	if _, err := Convert(ctx, conv); !errors.As(err, &ue) {
		t.Fatalf("convert without a fix: err %v, want the unplaced path", err)
	}
	prof := filepath.Join(dir, "my-r36.5.json")
	mustWrite(
		t,
		prof,
		[]byte(
			`{"name": "my-r36.5", "l4t": "r36.5", "rules": {"rules": [{"match": "srv/nvidia/**", "drop": "telemetry config, `+
				`not part of the redist"}]}}`,
		),
	)
	conv.Release.ProfileFile = prof
	res := mustConvert(t, conv)
	if len(res.Packages) == 0 {
		t.Fatal("nothing converted")
	}
	// The profile file is a diff side too: laid out with its rules, the
	// release has nothing unplaced.
	r = diff(t, o, "r36.5", prof)
	if !r.Empty() {
		t.Errorf("r36.5 vs its own suite through a profile file: %+v", r)
	}
	// Rules that move paths show up for components whose debs did not
	// change.
	moved := filepath.Join(dir, "moved.json")
	mustWrite(
		t,
		moved,
		[]byte(
			`{"name": "moved", "l4t": "r36.5", "rules": {"rules": [{"match": `+
				`"usr/local/cuda-{cuda}/targets/{target}/include/**", "to": "include/v2", "packages": ["libcufft"]}]}}`,
		),
	)
	r = diff(t, o, "r36.5", moved)
	cufft := component(t, product(t, r, "cuda"), "libcufft")
	if cufft.Status != "unchanged" || cufft.Files == nil || !slices.Contains(cufft.Files.Added, "include/v2/cufft.h") ||
		!slices.Contains(cufft.Files.Removed, "include/cufft.h") {
		t.Errorf("libcufft under moved rules: %+v", cufft)
	}
	rep, err := verify.Dir(ctx, conv.Build.Out)
	if err == nil {
		err = rep.Err()
	}
	if err != nil {
		t.Fatalf("verify after the fix: %v", err)
	}
}
