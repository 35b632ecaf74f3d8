package plan

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/profile"
)

var update = flag.Bool("update", false, "rewrite golden files")

// inventory loads a real jetpack-nixos inventory copied into testdata.
func inventory(t *testing.T, suite string) []apt.Package {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "inventories", suite+"-debs.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := apt.ReadLock(f)
	if err != nil {
		t.Fatal(err)
	}
	return l.Packages
}

func resolved(t *testing.T, suite string, pkgs []apt.Package) profile.Profile {
	t.Helper()
	p, err := profile.ForSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	var bins []profile.Binary
	for _, d := range pkgs {
		bins = append(bins, profile.Binary{Name: d.Name, Version: d.Version})
	}
	p, err = p.Resolve(bins)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func render(p *Grouping) string {
	var b strings.Builder
	fmt.Fprintf(
		&b,
		"profile %s suite %s cuda %s platform %s date %s\n",
		p.Profile.Name,
		p.Profile.L4T,
		p.Profile.CUDA,
		p.Profile.Platform,
		p.Profile.ReleaseDate,
	)
	for _, l := range p.Products() {
		fmt.Fprintf(&b, "label %s %s\n", l.Product, l.Label)
	}
	for _, pkg := range p.Packages {
		var debs []string
		for _, d := range pkg.Debs {
			debs = append(debs, d.Name)
		}
		fmt.Fprintf(
			&b,
			"%-8s %-22s %-16s %-13s variant=%-2s %s\n",
			pkg.Product,
			pkg.PName,
			pkg.Version,
			pkg.Platform,
			pkg.CUDAVariant,
			strings.Join(debs, " "),
		)
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(&b, "skip %s (%s): %s\n", s.Package, s.Source, s.Reason)
	}
	return b.String()
}

// TestPlanInventories checks the plan for every real inventory against a
// golden file and against facts stated in the domain notes.
func TestPlanInventories(t *testing.T) {
	type want struct{ pname, version, variant string }
	cases := map[string]struct {
		cuda, platform string
		wants          []want
		absent         []string
		debs           map[string][]string // pname -> exactly these debs
	}{
		"r35.6": {cuda: "11.4", platform: "linux-aarch64",
			wants: []want{{"cuda_cccl", "11.4.298", ""}, {"cuda_cudart", "11.4.298", ""}, {"cuda_sanitizer_api", "11.4.298", ""},
				{"cudnn", "8.6.0.166", "11"}, {"tensorrt", "8.5.2", "11"},
				{"cuda_compat", "11.4.31478197", ""}, {"libcudla", "11.4.298", ""}},
			absent: []string{"nvidia_l4t_dla_compiler", "cuda_thrust", "cuda_compat_orin"},
			debs:   map[string][]string{"cuda_cudart": {"cuda-cudart-11-4", "cuda-cudart-dev-11-4", "cuda-driver-dev-11-4"}},
		},
		"r36.4": {cuda: "12.6", platform: "linux-aarch64",
			wants: []want{{"cuda_cudart", "12.6.68", ""}, {"cudnn", "9.3.0.75", "12"}, {"tensorrt", "10.3.0.30", "12"}}},
		"r36.5": {cuda: "12.6", platform: "linux-aarch64",
			wants: []want{
				{"cuda_cudart", "12.6.68", ""},
				{"cuda_nvcc", "12.6.68", ""},
				{"cudnn", "9.3.0.75", "12"},
				{"tensorrt", "10.3.0.30", "12"},
				{"cuda_compat", "12.6.36890662", ""},
				{"nvidia_l4t_dla_compiler", "36.5.0", ""},
				{"libcublas", "12.6.1.4", ""},
				{"libcufile", "1.11.1.6", ""},
			},
			absent: []string{"cuda_crt", "cuda_compat_orin"},
			debs: map[string][]string{
				"cuda_nvcc": {"cuda-crt-12-6", "cuda-nvcc-12-6", "cuda-nvvm-12-6"},
				"cudnn":     {"libcudnn9-cuda-12", "libcudnn9-dev-cuda-12", "libcudnn9-static-cuda-12"},
			},
		},
		"r38.4": {cuda: "13.0", platform: "linux-sbsa",
			wants: []want{
				{"cuda_cudart", "13.0.48", ""},
				{"cuda_crt", "13.0.48", ""},
				{"libnvvm", "13.0.48", ""},
				{"libnvptxcompiler", "13.0.48", ""},
				{"cuda_culibos", "13.0.39", ""},
				{"cuda_compat", "580.65.06", "13.0"},
				{"cudnn", "9.12.0.46", "13"},
				{"tensorrt", "10.13.3.9", "13"},
			},
			absent: []string{"nvidia_l4t_dla_compiler", "cuda_compat_orin", "libcudla"},
			debs: map[string][]string{
				"cudnn": {
					"libcudnn9-cuda-13",
					"libcudnn9-dev-cuda-13",
					"libcudnn9-headers-cuda-13",
					"libcudnn9-static-cuda-13",
				},
				"cuda_compat": {"cuda-compat-13-0"},
			},
		},
		"r39.2": {cuda: "13.2", platform: "linux-sbsa",
			wants: []want{
				{"cuda_cudart", "13.2.75", ""},
				{"cuda_compat", "595.58.03", "13.2"},
				{"cuda_compat_orin", "13.2.44429113", ""},
				{"cudnn", "9.20.0.46", "13"},
				{"cudnn_jit", "9.20.0.46", "13"},
				{"tensorrt", "10.16.2.10", "13"},
				{"libcudla", "13.2.75", ""},
			},
			absent: []string{"nvidia_l4t_dla_compiler"},
		},
	}
	for suite, c := range cases {
		t.Run(suite, func(t *testing.T) {
			pkgs := inventory(t, suite)
			p, err := Group(resolved(t, suite, pkgs), pkgs)
			if err != nil {
				t.Fatal(err)
			}
			if p.Profile.CUDA != c.cuda || p.Profile.Platform != c.platform {
				t.Errorf("cuda %s platform %s, want %s %s", p.Profile.CUDA, p.Profile.Platform, c.cuda, c.platform)
			}
			byName := map[string]Package{}
			for _, pkg := range p.Packages {
				byName[pkg.PName] = pkg
				if strings.ContainsAny(pkg.PName, "-*") {
					t.Errorf("bad pname %q", pkg.PName)
				}
				for _, d := range pkg.Debs {
					if d.Repo != CommonRepo {
						t.Errorf("%s: deb %s from repo %s", pkg.PName, d.Name, d.Repo)
					}
				}
			}
			for _, w := range c.wants {
				got, ok := byName[w.pname]
				if !ok {
					t.Errorf("missing redist package %s", w.pname)
					continue
				}
				if got.Version != w.version || got.CUDAVariant != w.variant {
					t.Errorf("%s: version %s variant %q, want %s %q", w.pname, got.Version, got.CUDAVariant, w.version, w.variant)
				}
			}
			for _, a := range c.absent {
				if _, ok := byName[a]; ok {
					t.Errorf("unexpected redist package %s", a)
				}
			}
			for pname, want := range c.debs {
				var got []string
				for _, d := range byName[pname].Debs {
					got = append(got, d.Name)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s debs = %v, want %v", pname, got, want)
				}
			}
			// Every common deb is either converted or skipped with a reason.
			n := len(p.Skipped)
			for _, pkg := range p.Packages {
				n += len(pkg.Debs)
			}
			common := 0
			for _, d := range pkgs {
				if d.Repo == CommonRepo {
					common++
				}
			}
			if n != common {
				t.Errorf("%d debs accounted for, common repo has %d", n, common)
			}
			golden := filepath.Join("testdata", suite+".golden")
			got := render(p)
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			wantText, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/plan -update)", err)
			}
			if got != string(wantText) {
				t.Errorf("plan differs from %s (run with -update after checking):\n%s", golden, got)
			}
		})
	}
}

func TestVersionConflict(t *testing.T) {
	p, _ := profile.ForJetPack("6")
	pkgs := []apt.Package{
		{Repo: "common", Name: "libcublas-12-6", Source: "libcublas", Version: "12.6.1.4-1"},
		{Repo: "common", Name: "libcublas-dev-12-6", Source: "libcublas", Version: "12.6.1.5-1"},
	}
	_, err := Group(p, pkgs)
	if err == nil || !strings.Contains(err.Error(), "libcublas") ||
		!strings.Contains(err.Error(), "12.6.1.4 (libcublas-12-6)") ||
		!strings.Contains(err.Error(), "12.6.1.5 (libcublas-dev-12-6)") {
		t.Fatalf("want a version error listing both versions, got %v", err)
	}
}

func TestNormalizeVersion(t *testing.T) {
	for in, want := range map[string]string{
		"8.5.2-1+cuda11.4":      "8.5.2",
		"12.6.68-1":             "12.6.68",
		"1:12.6.68-1":           "12.6.68",
		"10.3.0.30-1+cuda12.5":  "10.3.0.30",
		"580.65.06-0ubuntu1":    "580.65.06",
		"36.5.0-20260115194252": "36.5.0",
		"9.3.0":                 "9.3.0",
	} {
		if got := NormalizeVersion(in); got != want {
			t.Errorf("NormalizeVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFutureMajor: a made-up L4T r40 with CUDA 20.1 is a profile file only.
// Its CUDA major (20, outside the default range 10-19) is read from package
// names, its own range makes "-21-0" a CUDA suffix, and its new product
// sorts by the order the file gives it.
func TestFutureMajor(t *testing.T) {
	if _, err := profile.ForSuite("r40.0"); err == nil ||
		!strings.Contains(err.Error(), "supported: r35, r36, r38, r39)") {
		t.Fatalf("ForSuite(r40.0) = %v, want the supported majors listed from the built-in profiles", err)
	}
	p, err := profile.LoadFile(filepath.Join("testdata", "r40.json"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := []apt.Package{
		{Repo: "common", Name: "vpi4-dev", Source: "vpi", Version: "4.1.0"},
		{Repo: "common", Name: "libcublas-20-1", Source: "libcublas", Version: "20.1.0.1-1"},
		{Repo: "common", Name: "libcublas-21-0", Source: "libcublas", Version: "21.0.0.1-1"},
		{Repo: "common", Name: "libcublas-19-0", Source: "libcublas", Version: "19.0.0.1-1"},
		{Repo: "common", Name: "cuda-cudart-20-1", Source: "cuda-cudart", Version: "20.1.5-1"},
		{Repo: "common", Name: "libcudnn10-cuda-20", Source: "cudnn", Version: "10.1.0.5-1"},
		{Repo: "common", Name: "libcudnn10-cuda-19", Source: "cudnn", Version: "10.0.0.1-1"},
	}
	pl, err := Group(p, pkgs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pk := range pl.Packages {
		got = append(got, pk.Product+"/"+pk.PName+"@"+pk.Version)
	}
	want := []string{"cuda/cuda_cudart@20.1.5", "cuda/libcublas@20.1.0.1", "cudnn/cudnn@10.1.0.5", "vpi/vpi@4.1.0"}
	if !slices.Equal(got, want) {
		t.Errorf("packages %q, want %q", got, want)
	}
	var skipped []string
	for _, s := range pl.Skipped {
		skipped = append(skipped, s.Package)
	}
	slices.Sort(skipped)
	if want := []string{"libcublas-19-0", "libcublas-21-0", "libcudnn10-cuda-19"}; !slices.Equal(skipped, want) {
		t.Errorf("skipped %q, want %q", skipped, want)
	}
}
