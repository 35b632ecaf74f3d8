package reldiff

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/layout"
)

func deb(name, version, sha string) apt.Package {
	return apt.Package{Repo: "common", Name: name, Version: version, SHA256: sha}
}

func release(t *testing.T, suite string, pkgs ...plan.Package) *Input {
	t.Helper()
	p, err := profile.ForSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	if p.CUDA == "" {
		p.CUDA = "12.6"
	}
	return &Input{Ref: suite, Origin: "mirror", Profile: p, Packages: pkgs}
}

func TestCompareComponents(t *testing.T) {
	from := release(
		t,
		"r36.4",
		plan.Package{PName: "cuda_cudart", Product: "cuda", Version: "11.4.298", Platform: "linux-aarch64",
			Debs: []apt.Package{deb("cuda-cudart-11-4", "11.4.298-1", "a1"), deb("cuda-driver-dev-11-4", "11.4.298-1", "a2")}},
		plan.Package{PName: "cuda_nvcc", Product: "cuda", Version: "12.6.68", Platform: "linux-aarch64",
			Debs: []apt.Package{deb("cuda-nvcc-12-6", "12.6.68-1", "b1"), deb("old-tool", "1", "b2")}},
		plan.Package{
			PName:    "cuda_gone",
			Product:  "cuda",
			Version:  "1.0",
			Platform: "linux-aarch64",
			Debs:     []apt.Package{deb("cuda-gone", "1.0-1", "c1")},
		},
		plan.Package{PName: "cudnn", Product: "cudnn", Version: "9.3.0.75", Platform: "linux-aarch64", CUDAVariant: "12",
			Debs: []apt.Package{deb("libcudnn9-cuda-12", "9.3.0.75-1", "d1")}},
	)
	to := release(t, "r36.5",
		plan.Package{PName: "cuda_cudart", Product: "cuda", Version: "12.6.68", Platform: "linux-aarch64",
			Debs: []apt.Package{deb("cuda-cudart-12-6", "12.6.68-1", "e1"), deb("cuda-driver-dev-12-6", "12.6.68-1", "e2")}},
		plan.Package{PName: "cuda_nvcc", Product: "cuda", Version: "12.6.68", Platform: "linux-aarch64",
			Debs: []apt.Package{deb("cuda-nvcc-12-6", "12.6.68-1", "b1-reuploaded"), deb("cuda-crt-12-6", "12.6.68-1", "f1")}},
		plan.Package{PName: "cudnn", Product: "cudnn", Version: "9.3.0.75", Platform: "linux-aarch64", CUDAVariant: "12",
			Debs: []apt.Package{deb("libcudnn9-cuda-12", "9.3.0.75-1", "d1")}},
		plan.Package{PName: "nvidia_l4t_dla_compiler", Product: "l4t", Version: "36.5.0", Platform: "linux-aarch64",
			Debs: []apt.Package{deb("nvidia-l4t-dla-compiler", "36.5.0-20260115194252", "g1")}},
	)
	r := Compare(from, to)
	if r.Empty() {
		t.Fatal("Empty() on a real difference")
	}
	got := map[string]Product{}
	var order []string
	for _, p := range r.Products {
		got[p.Product] = p
		order = append(order, p.Product)
	}
	if want := []string{"cuda", "cudnn", "l4t"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("products %v, want %v", order, want)
	}
	if c := got["cudnn"]; len(c.Components) != 0 || c.Unchanged != 1 || c.FromLabel != "9.3.0" || c.ToLabel != "9.3.0" {
		t.Errorf("cudnn: %+v, want 1 unchanged component, label 9.3.0", c)
	}
	if l := got["l4t"]; l.FromLabel != "" || l.ToLabel != "36.5.0" || len(l.Components) != 1 ||
		l.Components[0].Status != Added {
		t.Errorf("l4t: %+v, want a new product with one added component", l)
	}
	cuda := got["cuda"]
	byName := map[string]ComponentChange{}
	for _, c := range cuda.Components {
		byName[c.PName] = c
	}
	cudart := byName["cuda_cudart"]
	if cudart.Status != Changed || cudart.FromVersion != "11.4.298" || cudart.ToVersion != "12.6.68" {
		t.Errorf("cuda_cudart: %+v", cudart)
	}
	wantRenames := []DebRename{
		{From: Deb{"common", "cuda-cudart-11-4", "11.4.298-1"}, To: Deb{"common", "cuda-cudart-12-6", "12.6.68-1"}},
		{From: Deb{"common", "cuda-driver-dev-11-4", "11.4.298-1"}, To: Deb{"common", "cuda-driver-dev-12-6", "12.6.68-1"}},
	}
	if !reflect.DeepEqual(cudart.DebsRenamed, wantRenames) || len(cudart.DebsAdded)+len(cudart.DebsRemoved) != 0 {
		t.Errorf(
			"cuda_cudart renames %+v added %v removed %v, want %+v only",
			cudart.DebsRenamed,
			cudart.DebsAdded,
			cudart.DebsRemoved,
			wantRenames,
		)
	}
	nvcc := byName["cuda_nvcc"]
	if nvcc.Status != Changed || len(nvcc.DebsAdded) != 1 || nvcc.DebsAdded[0].Name != "cuda-crt-12-6" ||
		len(nvcc.DebsRemoved) != 1 || nvcc.DebsRemoved[0].Name != "old-tool" ||
		len(nvcc.DebsChanged) != 1 || !nvcc.DebsChanged[0].Rebuilt || nvcc.DebsChanged[0].Name != "cuda-nvcc-12-6" {
		t.Errorf("cuda_nvcc: %+v", nvcc)
	}
	if g := byName["cuda_gone"]; g.Status != Removed || g.FromVersion != "1.0" || len(g.DebsRemoved) != 1 {
		t.Errorf("cuda_gone: %+v", g)
	}
	// JSON: no nulls where tools expect arrays; files (not compared here)
	// and others (not known: no side lists them) are null, never absent.
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(strings.ReplaceAll(string(b), `"files":null`, ""), `"others":null`, "")
	if strings.Contains(s, "null") {
		t.Errorf("JSON has null: %s", b)
	}
	if strings.Count(string(b), `"files":null`) != 4 || !strings.Contains(string(b), `"others":null`) {
		t.Errorf("files and others are not null in every place without them: %s", b)
	}
}

func TestCompareSelfIsEmpty(t *testing.T) {
	pkgs := []plan.Package{{PName: "cuda_cudart", Product: "cuda", Version: "12.6.68", Platform: "linux-aarch64",
		Debs: []apt.Package{deb("cuda-cudart-12-6", "12.6.68-1", "e1")}}}
	r := Compare(release(t, "r36.5", pkgs...), release(t, "r36.5", pkgs...))
	if !r.Empty() || len(r.Products) != 1 || r.Products[0].Unchanged != 1 {
		t.Errorf("self diff: %+v", r)
	}
}

// TestLayoutUnplacedAndFiles: a path no rule places is reported (not an
// error) and the rest of the component is still laid out and compared.
func TestLayoutUnplacedAndFiles(t *testing.T) {
	p := release(t, "r36.5").Profile
	eng, err := layout.New(p)
	if err != nil {
		t.Fatal(err)
	}
	root := "usr/local/cuda-12.6/targets/aarch64-linux/"
	lic := "usr/share/doc/cuda-cudart-12-6/copyright"
	read := func(string) ([]byte, error) { return []byte("license\n"), nil }
	base := []layout.Input{
		{
			Header: entry.Header{Path: root + "lib/libcudart.so.12.6.68", Type: entry.Regular, Mode: 0o644, Size: 1},
			Deb:    "cuda-cudart-12-6",
			Digest: "x",
			Ref:    "r",
		},
		{
			Header: entry.Header{Path: root + "lib/libcudart.so.12", Type: entry.Symlink, Link: "libcudart.so.12.6.68"},
			Deb:    "cuda-cudart-12-6",
		},
		{
			Header: entry.Header{Path: root + "include/cuda.h", Type: entry.Regular, Mode: 0o644, Size: 1},
			Deb:    "cuda-cudart-12-6",
			Digest: "y",
			Ref:    "r",
		},
		{
			Header: entry.Header{Path: lic, Type: entry.Regular, Mode: 0o644, Size: 8},
			Deb:    "cuda-cudart-12-6",
			Digest: "z",
			Ref:    "l",
		},
	}
	layOut := func(inputs []layout.Input) Listing {
		tree, unplaced, err := eng.BuildPartial("cuda_cudart", inputs, read)
		return NewListing(tree.Headers(), unplaced, err)
	}
	old := layOut(base)
	if old.Problem != "" || len(old.Unplaced) != 0 {
		t.Fatalf("old listing: problem %q unplaced %v", old.Problem, old.Unplaced)
	}
	if e, ok := old.Nodes["lib/libcudart.so.12"]; !ok || e.Type != entry.Symlink || e.Link != "libcudart.so.12.6.68" {
		t.Fatalf("old listing lacks lib/libcudart.so.12 -> libcudart.so.12.6.68: %+v", old.Nodes)
	}
	next := []layout.Input{
		{
			Header: entry.Header{Path: root + "lib/libcudart.so.12.6.77", Type: entry.Regular, Mode: 0o644, Size: 1},
			Deb:    "cuda-cudart-12-6",
			Digest: "x",
			Ref:    "r",
		},
		{
			Header: entry.Header{Path: root + "lib/libcudart.so.12", Type: entry.Symlink, Link: "libcudart.so.12.6.77"},
			Deb:    "cuda-cudart-12-6",
		},
		{Header: entry.Header{Path: root + "include/cuda.h", Type: entry.Dir, Mode: 0o755}, Deb: "cuda-cudart-12-6"},
		{
			Header: entry.Header{Path: root + "include/cuda.h/inner.h", Type: entry.Regular, Mode: 0o644, Size: 1},
			Deb:    "cuda-cudart-12-6",
			Digest: "y",
			Ref:    "r",
		},
		{
			Header: entry.Header{Path: lic, Type: entry.Regular, Mode: 0o644, Size: 8},
			Deb:    "cuda-cudart-12-6",
			Digest: "z",
			Ref:    "l",
		},
		{
			Header: entry.Header{Path: "srv/nvidia/strange.bin", Type: entry.Regular, Mode: 0o644, Size: 1},
			Deb:    "cuda-cudart-12-6",
			Digest: "w",
			Ref:    "r",
		},
	}
	cur := layOut(next)
	if cur.Problem != "" {
		t.Fatalf("new listing problem: %s", cur.Problem)
	}
	if want := []fault.DebPath{{Deb: "cuda-cudart-12-6", Path: "srv/nvidia/strange.bin"}}; !reflect.DeepEqual(
		cur.Unplaced,
		want,
	) {
		t.Fatalf("unplaced %v, want %v", cur.Unplaced, want)
	}
	f := CompareFiles(&old, &cur)
	if !reflect.DeepEqual(f.Added, []string{"include/cuda.h/inner.h", "lib/libcudart.so.12.6.77"}) ||
		!reflect.DeepEqual(f.Removed, []string{"lib/libcudart.so.12.6.68"}) {
		t.Errorf("added %v removed %v", f.Added, f.Removed)
	}
	if !reflect.DeepEqual(f.TypeChanged, []TypeChange{{Path: "include/cuda.h", From: entry.Regular, To: entry.Dir}}) {
		t.Errorf("type changes %v", f.TypeChanged)
	}
	if !reflect.DeepEqual(
		f.LinkChanged,
		[]LinkChange{{Path: "lib/libcudart.so.12", From: "libcudart.so.12.6.68", To: "libcudart.so.12.6.77"}},
	) {
		t.Errorf("link changes %v", f.LinkChanged)
	}
	if len(f.Unplaced) != 1 || f.Empty() {
		t.Errorf("files %+v: want the unplaced path reported", f)
	}
	broken := Listing{Problem: "redist package cuda_cudart: conflict"}
	if g := CompareFiles(&broken, &cur); g.FromProblem != broken.Problem || len(g.Added)+len(g.Removed) != 0 ||
		len(g.Unplaced) != 1 {
		t.Errorf("old side unlistable: %+v", g)
	}
	if same := CompareFiles(&old, &old); !same.Empty() {
		t.Errorf("a listing against itself: %+v", same)
	}
}

// TestAddFilesReportsUnplacedOfUnchanged: a component whose debs did not
// change still shows up when the new release's rules leave paths unplaced.
func TestAddFilesReportsUnplacedOfUnchanged(t *testing.T) {
	pkg := plan.Package{PName: "cuda_cudart", Product: "cuda", Version: "12.6.68", Platform: "linux-aarch64",
		Debs: []apt.Package{deb("cuda-cudart-12-6", "12.6.68-1", "e1")}}
	from, to := release(t, "r36.4", pkg), release(t, "r36.5", pkg)
	r := Compare(from, to)
	if !r.Empty() {
		t.Fatalf("same debs: %+v", r)
	}
	un := &Listing{Nodes: map[string]entry.Header{}, Unplaced: []fault.DebPath{{Deb: "cuda-cudart-12-6", Path: "srv/x"}}}
	AddFiles(r, to, map[string]*Listing{}, map[string]*Listing{"cuda_cudart": un})
	if r.Empty() || !r.Files {
		t.Fatal("unplaced paths of an unchanged component not reported")
	}
	c := r.Products[0].Components
	if len(c) != 1 || c[0].Status != Unchanged || c[0].Files == nil || len(c[0].Files.Unplaced) != 1 ||
		r.Products[0].Unchanged != 0 {
		t.Errorf("components %+v (unchanged count %d)", c, r.Products[0].Unchanged)
	}
}

func TestCompareOthers(t *testing.T) {
	from, to := release(t, "r36.4"), release(t, "r36.5")
	from.Others = []apt.Package{
		deb("nvidia-jetpack", "6.2.1+b38", "1"),
		deb("nvidia-cudnn9", "6.1+b123", "2"),
		deb("same", "1", "3"),
		deb("reup", "1", "4"),
	}
	to.Others = []apt.Package{
		deb("nvidia-jetpack", "6.2.2+b24", "5"),
		deb("holoscan-cuda-12", "3.11.0-1", "6"),
		deb("same", "1", "3"),
		deb("reup", "1", "7"),
	}
	r := Compare(from, to)
	want := &Others{
		Added:   []Deb{{"common", "holoscan-cuda-12", "3.11.0-1"}},
		Removed: []Deb{{"common", "nvidia-cudnn9", "6.1+b123"}},
		Changed: []DebChange{
			{Repo: "common", Name: "nvidia-jetpack", FromVersion: "6.2.1+b38", ToVersion: "6.2.2+b24"},
			{Repo: "common", Name: "reup", FromVersion: "1", ToVersion: "1", Rebuilt: true},
		},
	}
	if !reflect.DeepEqual(r.Others, want) || r.Empty() {
		t.Errorf("others %+v, want %+v", r.Others, want)
	}
	to.Others = nil // an output directory: unknown, not compared
	if r := Compare(from, to); r.Others != nil || !r.Empty() {
		t.Errorf("others compared against an unknown side: %+v", r.Others)
	}
}
