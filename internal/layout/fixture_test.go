package layout_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/deb"
	"github.com/debredist/debredist/internal/layout"
	"github.com/debredist/debredist/internal/mirrorgen"
	"github.com/debredist/debredist/internal/testutil"
)

// convertSuite generates a fake mirror for a suite, plans it and builds
// every redist tree, reading the debs with the real deb reader.
func convertSuite(t *testing.T, suite string, useDpkg bool) map[string]*layout.Tree {
	t.Helper()
	dir := t.TempDir()
	err := mirrorgen.Generate(context.Background(), dir, mirrorgen.Options{Suites: []string{suite}, UseDpkgDeb: useDpkg})
	if err != nil {
		t.Fatal(err)
	}
	prof, err := profile.ForSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []apt.Package
	for _, repo := range prof.Repos {
		f, err := os.Open(filepath.Join(dir, repo, "dists", suite, "main", "binary-arm64", "Packages.xz"))
		if err != nil {
			t.Fatal(err)
		}
		ps, problems, err := apt.ParsePackages(f, apt.ParseOptions{})
		f.Close()
		if err != nil || len(problems) > 0 {
			t.Fatalf("index %s: %v %v", repo, err, problems)
		}
		for i := range ps {
			ps[i].Repo = repo
		}
		pkgs = append(pkgs, ps...)
	}
	pkgs = apt.Newest(pkgs)
	var bins []profile.Binary
	for _, p := range pkgs {
		bins = append(bins, profile.Binary{Name: p.Name, Version: p.Version})
	}
	if prof, err = prof.Resolve(bins); err != nil {
		t.Fatal(err)
	}
	pl, err := plan.Group(prof, pkgs)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := layout.New(prof)
	if err != nil {
		t.Fatal(err)
	}
	trees := map[string]*layout.Tree{}
	for _, p := range pl.Packages {
		var ins []layout.Input
		content := map[string][]byte{}
		for _, d := range p.Debs {
			ins = append(ins, readDeb(t, filepath.Join(dir, d.Repo, d.Filename), d.Name, content)...)
		}
		tr, err := eng.Build(p.PName, ins, func(ref string) ([]byte, error) { return content[ref], nil })
		if err != nil {
			t.Fatalf("%s: %v", p.PName, err)
		}
		trees[p.PName] = tr
	}
	return trees
}

func readDeb(t *testing.T, file, name string, content map[string][]byte) []layout.Input {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := deb.NewReader(context.Background(), f, deb.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	var out []layout.Input
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		in := layout.FromDeb(name, e)
		if in.Type == entry.Regular {
			b, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			in.Digest, in.Ref = string(b), name+":"+e.Path
			content[in.Ref] = b
		}
		out = append(out, in)
	}
}

// shape is what NVIDIA's feature manifest records per archive.
type shape struct {
	RootDirs  []string `json:"rootDirs"`
	HasBin    bool     `json:"hasBin"`
	HasDev    bool     `json:"hasDev"`
	HasLib    bool     `json:"hasLib"`
	HasSample bool     `json:"hasSample"`
	HasStatic bool     `json:"hasStatic"`
}

func shapeOf(tr *layout.Tree) shape {
	roots := map[string]bool{}
	var s shape
	for _, n := range tr.Nodes {
		top, _, nested := strings.Cut(n.Path, "/")
		if nested || n.Type == entry.Dir {
			roots[top] = true
		}
		if n.Type == entry.Dir {
			continue
		}
		switch top {
		case "bin":
			s.HasBin = true
		case "samples":
			s.HasSample = true
		}
		if strings.HasSuffix(n.Path, ".a") {
			s.HasStatic = true
		}
		if top == "lib" && strings.Contains(filepath.Base(n.Path), ".so") {
			s.HasLib = true
		}
		if top == "include" || top == "pkg-config" {
			s.HasDev = true
		}
	}
	for r := range roots {
		s.RootDirs = append(s.RootDirs, r)
	}
	sort.Strings(s.RootDirs)
	return s
}

// shapeException is a documented difference between a tree built from
// Jetson debs and NVIDIA's linux-aarch64 archive (12.2 feature manifest):
// exactly these root dirs are extra or missing and these categories flip.
type shapeException struct {
	why            string
	extra, missing []string
	static, lib    bool // hasStatic / hasLib differ
}

// Keys are "<suite>/<pname>" or "*/<pname>".
var shapeExceptions = map[string]shapeException{
	"*/cuda_cupti": {
		why: "the cupti-dev debs carry lib/libcupti_static.a (as NVIDIA's x86_64 and sbsa archives do); the " +
			"linux-aarch64 12.2 archive had no static library",
		static: true,
	},
	"*/libcublas": {
		why: "the libcublas-dev debs ship src/ (Fortran binding sources under usr/local/cuda-X.Y/src); NVIDIA's archive " +
			"omits it; kept, since nothing is dropped silently",
		extra: []string{"src"},
	},
	"*/libnvjitlink": {
		why:     "the debs carry nothing for res/ (NVIDIA's archive has a res/ directory)",
		missing: []string{"res"},
	},
	"*/libcufile": {
		why: "the libcufile/gds-tools debs carry no etc/ or man/ content (NVIDIA's archive has etc/cufile.json and man " +
			"pages)",
		missing: []string{"etc", "man"},
	},
	"r39.2/cuda_nvcc": {
		why: "CUDA 13 moved nvvm/ and libnvptxcompiler_static.a into the libnvvm and libnvptxcompiler components; the " +
			"reference table is CUDA 12.2's",
		missing: []string{"lib", "nvvm"},
		static:  true,
	},
	"r39.2/cuda_nvtx": {
		why:     "CUDA 13's NVTX is header-only (libnvToolsExt and its .pc are gone); the reference table is CUDA 12.2's",
		missing: []string{"lib", "pkg-config"},
		lib:     true,
	},
}

// expected applies an exception to NVIDIA's shape.
func (x shapeException) expected(s shape) shape {
	roots := map[string]bool{}
	for _, r := range s.RootDirs {
		roots[r] = true
	}
	for _, r := range x.extra {
		roots[r] = true
	}
	for _, r := range x.missing {
		delete(roots, r)
	}
	s.RootDirs = s.RootDirs[:0:0]
	for r := range roots {
		s.RootDirs = append(s.RootDirs, r)
	}
	sort.Strings(s.RootDirs)
	s.HasStatic = s.HasStatic != x.static
	s.HasLib = s.HasLib != x.lib
	return s
}

// TestShapeAgainstNVIDIA compares top-level directories and content
// categories of every converted tree with NVIDIA's linux-aarch64 archives.
func TestShapeAgainstNVIDIA(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "archive-contents_linux-aarch64_12.2.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	var nvidia map[string]json.RawMessage
	if err := json.Unmarshal(b, &nvidia); err != nil {
		t.Fatal(err)
	}
	for _, suite := range []string{"r35.6", "r36.5", "r39.2"} {
		t.Run(suite, func(t *testing.T) {
			trees := convertSuite(t, suite, false)
			for pname, tr := range trees {
				raw, ok := nvidia[pname]
				if !ok {
					continue
				}
				var want shape
				if err := json.Unmarshal(raw, &want); err != nil {
					t.Fatal(err)
				}
				got := shapeOf(tr)
				key := suite + "/" + pname
				x, ok := shapeExceptions[key]
				if !ok {
					x, ok = shapeExceptions["*/"+pname]
				}
				if ok {
					want = x.expected(want)
				}
				if strings.Join(got.RootDirs, ",") != strings.Join(want.RootDirs, ",") || got.HasBin != want.HasBin ||
					got.HasLib != want.HasLib ||
					got.HasStatic != want.HasStatic ||
					got.HasSample != want.HasSample ||
					got.HasDev != want.HasDev {
					t.Errorf("%s: shape %+v, NVIDIA's archive with documented exceptions %+v (exception: %s)", key, got, want, x.why)
				}
			}
		})
	}
}

// TestFixtureTrees checks the paths every JetPack's converted trees must
// have, on mirrors built by mirrorgen (and, for JetPack 6, by the real
// dpkg-deb).
func TestFixtureTrees(t *testing.T) {
	want := map[string]map[string][]string{
		"r35.6": {
			"cuda_cudart": {
				"include/cuda_runtime.h",
				"lib/libcudart.so.11.4.298",
				"lib/stubs/libcuda.so",
				"pkg-config/cudart-11.4.pc",
				"LICENSE",
			},
			"cudnn":       {"include/cudnn.h", "lib/libcudnn.so", "lib/libcudnn.so.8"},
			"cuda_compat": {"compat/libcuda.so.1.1"},
		},
		"r36.5": {
			"cuda_cudart": {
				"include/cuda_runtime.h",
				"lib/libcudart.so.12.6.68",
				"lib/libcudart.so.12",
				"lib/libcudart.so",
				"lib/stubs/libcuda.so",
				"pkg-config/cudart-12.6.pc",
				"LICENSE",
			},
			"cudnn":                   {"include/cudnn.h", "lib/libcudnn.so", "lib/libcudnn.so.9"},
			"cuda_compat":             {"compat/libcuda.so.1.1"},
			"tensorrt":                {"bin/trtexec", "include/NvInfer.h"},
			"nvidia_l4t_dla_compiler": {"lib/libnvdla_compiler.so"},
		},
		"r39.2": {
			"cuda_cudart": {
				"include/cuda_runtime.h",
				"lib/libcudart.so.13.2.75",
				"lib/stubs/libcuda.so",
				"pkg-config/cudart-13.2.pc",
			},
			"cudnn":    {"include/cudnn.h", "lib/libcudnn.so", "lib/libcudnn.so.9"},
			"tensorrt": {"bin/trtexec"},
		},
	}
	for suite, pkgs := range want {
		t.Run(suite, func(t *testing.T) {
			trees := convertSuite(t, suite, false)
			for pname, paths := range pkgs {
				tr, ok := trees[pname]
				if !ok {
					t.Errorf("no tree for %s", pname)
					continue
				}
				have := map[string]layout.Node{}
				for _, n := range tr.Nodes {
					have[n.Path] = n
				}
				for _, p := range paths {
					if _, ok := have[p]; !ok {
						t.Errorf("%s: missing %s", pname, p)
					}
				}
				for p := range have {
					if strings.HasPrefix(p, "usr/") || strings.HasPrefix(p, "targets/") || strings.HasPrefix(p, "lib64/") ||
						strings.HasPrefix(p, "etc/ld.so") {
						t.Errorf("%s: unnormalized %s", pname, p)
					}
				}
				if lic := have["LICENSE"]; len(lic.Data) == 0 || !bytes.Contains(lic.Data, []byte("==>")) {
					t.Errorf("%s: LICENSE missing or not assembled", pname)
				}
			}
		})
	}
}

// TestFixtureWithRealDpkgDeb builds the JetPack 6 fixture with the real
// dpkg-deb and checks the engine yields the same trees as from debtest's
// debs: same paths, types, link targets and content.
func TestFixtureWithRealDpkgDeb(t *testing.T) {
	testutil.RequireTool(t, "dpkg-deb")
	if !testutil.Long() {
		t.Skip("builds ~100 debs with dpkg-deb: runs with DEBREDIST_LONG_TESTS=1 (as in CI)")
	}
	ours := convertSuite(t, "r36.5", false)
	real := convertSuite(t, "r36.5", true)
	if len(ours) != len(real) {
		t.Fatalf("%d trees from debtest debs, %d from dpkg-deb debs", len(ours), len(real))
	}
	for pname, a := range ours {
		b := real[pname]
		if b == nil {
			t.Errorf("%s missing from the dpkg-deb conversion", pname)
			continue
		}
		sig := func(tr *layout.Tree) []string {
			var out []string
			for _, n := range tr.Nodes {
				out = append(out, n.Path+"|"+n.Type.String()+"|"+n.Link+"|"+n.Digest+"|"+string(n.Data))
			}
			return out
		}
		if x, y := strings.Join(sig(a), "\n"), strings.Join(sig(b), "\n"); x != y {
			t.Errorf("%s: trees differ:\n--- debtest\n%s\n--- dpkg-deb\n%s", pname, x, y)
		}
	}
}
