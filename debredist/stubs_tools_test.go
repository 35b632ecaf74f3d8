package debredist

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/elfstub"
	"github.com/debredist/debredist/internal/mirrorgen"
	"github.com/debredist/debredist/internal/testutil"
)

// TestStubs converts the JetPack 5, 6 and 7 fixture
// mirrors (whose stubbed libraries are real aarch64 ELF objects built by
// gcc) and checks the synthesized stubs with binutils and gcc (the first of
// each package of a sample, or every stub of every package with
// DEBREDIST_LONG_TESTS=1):
// readelf -d shows the real library's SONAME and no NEEDED; nm -D
// --defined-only --with-symbol-versions lists the same symbols, versions
// and classes as for the real library; a program using a function, an
// object and a TLS variable of the library links against the stub with
// -L<stubs> -l<name> and records the SONAME as NEEDED. Stubs the debs
// ship (cuda_cudart's libcuda.so) are kept byte for byte.
//
// Without the tools (skipped, or failing under DEBREDIST_REQUIRE_TOOLS=1)
// the test still checks that the expected stubs were synthesized and
// recorded, and parse back with the real library's SONAME and exports.
func TestStubs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		jetpack, suite string
		want           []string // pname:stub that must be synthesized
	}{
		{
			"5",
			"r35.6",
			[]string{"libcublas:lib/stubs/libcublasLt.so", "libcudla:lib/stubs/libcudla.so",
				"cuda_nvrtc:lib/stubs/libnvrtc.so", "tensorrt:lib/stubs/libnvparsers.so"},
		},
		{
			"6",
			"r36.5",
			[]string{"libcublas:lib/stubs/libcublas.so", "libnpp:lib/stubs/libnppc.so",
				"libnvjitlink:lib/stubs/libnvJitLink.so", "tensorrt:lib/stubs/libnvinfer_lean.so"},
		},
		{
			"7",
			"r39.2",
			[]string{"libcusparse:lib/stubs/libcusparse.so", "libcufft:lib/stubs/libcufftw.so",
				"libcudla:lib/stubs/libcudla.so", "tensorrt:lib/stubs/libnvinfer.so"},
		},
	} {
		t.Run("jetpack"+c.jetpack, func(t *testing.T) {
			t.Parallel()
			m := mirror(t, mirrorgen.Options{Suites: []string{c.suite}})
			out := t.TempDir()
			var only []string // every package with DEBREDIST_LONG_TESTS=1
			if !testutil.Long() {
				only = []string{"cuda_cudart"}
				for _, w := range c.want {
					only = append(only, strings.Split(w, ":")[0])
				}
			}
			res := mustConvert(
				t,
				Options{
					Source:  Source{Mirror: m, CacheDir: t.TempDir()},
					Release: Release{JetPack: c.jetpack},
					Build:   Build{Out: out, Only: only},
				},
			)
			prev := outProvenance(t, out)
			var got []string
			recs := map[string]redist.Archive{}
			for _, p := range res.Packages {
				rec, ok := provenanceOf(prev, p)
				if !ok {
					t.Fatalf("%s: no provenance record", p.PName)
				}
				recs[p.PName] = rec
				ents := archiveEntries(t, filepath.Join(out, filepath.FromSlash(p.Archive)))
				for _, s := range rec.Stubs {
					got = append(got, p.PName+":"+s.Path)
					if h, ok := ents[s.Path]; !ok || h.Size <= 0 || !strings.HasPrefix(s.From, "lib/") ||
						!strings.HasSuffix(s.FromDeb, ".deb") ||
						s.Symbols == 0 {
						t.Errorf("%s: stub %+v: archive entry %+v", p.PName, s, h)
					}
				}
			}
			for _, w := range c.want {
				if !slices.Contains(got, w) {
					t.Errorf("stub %s not synthesized (got %v)", w, got)
				}
			}
			if _, ok := recs["cuda_cudart"]; !ok {
				t.Fatal("no cuda_cudart")
			}
			for _, s := range recs["cuda_cudart"].Stubs {
				t.Errorf("cuda_cudart: %s synthesized although its debs ship lib/stubs", s.Path)
			}

			t.Run("toolchain", func(t *testing.T) {
				readelf := testutil.RequireTool(t, "aarch64-linux-gnu-readelf")
				nm := testutil.RequireTool(t, "aarch64-linux-gnu-nm")
				gcc := testutil.RequireTool(t, "aarch64-linux-gnu-gcc")
				tar := testutil.RequireTool(t, "tar")
				testutil.RequireTool(t, "xz")
				for _, p := range res.Packages {
					rec := recs[p.PName]
					if len(rec.Stubs) == 0 && p.PName != "cuda_cudart" {
						continue
					}
					dir := filepath.Join(t.TempDir(), p.PName)
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					cmd := exec.Command(
						tar,
						"-xJf",
						filepath.Join(out, filepath.FromSlash(p.Archive)),
						"-C",
						dir,
						"--strip-components=1",
					)
					if b, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("%s: tar: %v\n%s", p.Archive, err, b)
					}
					stubs := rec.Stubs
					if !testutil.Long() && len(stubs) > 1 {
						stubs = stubs[:1] // one per package; all with DEBREDIST_LONG_TESTS=1
					}
					for _, s := range stubs {
						checkStub(t, readelf, nm, gcc, dir, s)
					}
					if p.PName == "cuda_cudart" {
						checkShippedStub(t, dir)
					}
				}
			})
		})
	}
}

// provenanceOf finds a package's archive record in the sidecars.
func provenanceOf(sidecars map[string]*redist.Provenance, p PackageResult) (redist.Archive, bool) {
	for _, prov := range sidecars {
		for _, a := range prov.Archives {
			if a.PName == p.PName && a.Product == p.Product && a.SHA256 == p.SHA256 {
				return a, true
			}
		}
	}
	return redist.Archive{}, false
}

func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// nmSet returns nm's "class name@version" lines without addresses.
func nmSet(t *testing.T, nm, file string) []string {
	var out []string
	for _, l := range strings.Split(
		strings.TrimSpace(runTool(t, nm, "-D", "--defined-only", "--with-symbol-versions", file)),
		"\n",
	) {
		f := strings.Fields(l)
		if len(f) == 3 {
			out = append(out, f[1]+" "+f[2])
		} else {
			t.Fatalf("nm line %q", l)
		}
	}
	sort.Strings(out)
	return out
}

func checkStub(t *testing.T, readelf, nm, gcc, dir string, s redist.Stub) {
	t.Helper()
	stub, real := filepath.Join(dir, filepath.FromSlash(s.Path)), filepath.Join(dir, filepath.FromSlash(s.From))
	dyn := runTool(t, readelf, "-d", stub)
	if !strings.Contains(dyn, "Library soname: ["+s.SOName+"]") {
		t.Errorf("%s: readelf -d shows no SONAME %s:\n%s", s.Path, s.SOName, dyn)
	}
	if strings.Contains(dyn, "(NEEDED)") {
		t.Errorf("%s: has NEEDED entries:\n%s", s.Path, dyn)
	}
	if !strings.Contains(runTool(t, readelf, "-d", real), "Library soname: ["+s.SOName+"]") {
		t.Errorf("%s: SONAME %s is not the real library's", s.Path, s.SOName)
	}
	want, got := nmSet(t, nm, real), nmSet(t, nm, stub)
	if !slices.Equal(want, got) || len(got) != s.Symbols {
		t.Errorf("%s: nm differs from %s:\nstub %v\nreal %v", s.Path, s.From, got, want)
	}
	// Link a program against the stub alone.
	f, err := os.Open(real)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	lib, err := elfstub.Read(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var decl, use []string
	kinds := map[elfstub.Kind]bool{}
	for _, sym := range lib.Symbols {
		if sym.Hidden || sym.Bind != elf.STB_GLOBAL || kinds[sym.Kind] {
			continue
		}
		switch sym.Kind {
		case elfstub.Func:
			decl, use = append(decl, "extern int "+sym.Name+"(void);"), append(use, sym.Name+"()")
		case elfstub.Object:
			decl, use = append(decl, "extern char "+sym.Name+"[];"), append(use, sym.Name+"[0]")
		case elfstub.TLS:
			decl, use = append(decl, "extern __thread int "+sym.Name+";"), append(use, sym.Name)
		default:
			continue
		}
		kinds[sym.Kind] = true
	}
	if len(kinds) != 3 {
		t.Fatalf("%s: the fixture should export a function, an object and a TLS variable: %v", s.From, kinds)
	}
	work := t.TempDir()
	src := filepath.Join(work, "main.c")
	prog := strings.Join(decl, "\n") + "\nint main(void) { return " + strings.Join(use, " + ") + "; }\n"
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(strings.TrimPrefix(path.Base(s.Path), "lib"), ".so")
	exe := filepath.Join(work, "prog")
	runTool(t, gcc, "-o", exe, src, "-L"+filepath.Dir(stub), "-l"+name)
	if d := runTool(t, readelf, "-d", exe); !strings.Contains(d, "(NEEDED)             Shared library: ["+s.SOName+"]") {
		t.Errorf("%s: the program linked against it does not need %s:\n%s", s.Path, s.SOName, d)
	}
}

// checkShippedStub: cuda_cudart's lib/stubs/libcuda.so is the deb's file
// (the sample's cuda-driver-dev ships a real stub, mirrorgen's
// stubs/libcuda.so.1 fixture), not one debredist synthesized.
func checkShippedStub(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "lib/stubs/libcuda.so"))
	if err != nil {
		t.Fatalf("cuda_cudart: %v", err)
	}
	deb, err := mirrorgen.ELFLibrary("stubs/libcuda.so.1")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, deb) {
		t.Errorf(
			"cuda_cudart's lib/stubs/libcuda.so (%d bytes) is not the deb's stub (%d bytes): it was replaced",
			len(b),
			len(deb),
		)
	}
}
