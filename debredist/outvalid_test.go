package debredist

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/testutil"
)

// cudartOut converts JetPack 6's cuda_cudart (and libcublas) from the
// sample mirror into a new OUT and returns it with the generation's
// directory of the cuda product.
func cudartOut(t *testing.T) (out, genCuda string) {
	t.Helper()
	out = filepath.Join(t.TempDir(), "out")
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: sampleMirror, CacheDir: t.TempDir()},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: out, Only: []string{"cuda_cudart", "libcublas"}},
		},
	)
	gen, err := filepath.EvalSymlinks(filepath.Join(out, "cuda"))
	if err != nil {
		t.Fatal(err)
	}
	return out, gen
}

// copyOut copies OUT (links kept) to a new directory.
func copyOut(t *testing.T, out string) string {
	t.Helper()
	c := filepath.Join(t.TempDir(), "out")
	if b, err := exec.Command("cp", "-a", out, c).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, b)
	}
	return c
}

// edit replaces old by new in the file at p (one occurrence, which must
// be there).
func edit(t *testing.T, p, old, new string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	e := strings.Replace(string(b), old, new, 1)
	if e == string(b) {
		t.Fatalf("%s holds no %q", p, old)
	}
	if err := os.WriteFile(p, []byte(e), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readers runs every reader of OUT that turns it into output: sbom (both
// formats), nix, nix --derivations, and diff against itself.
func readers(out string) map[string]error {
	errs := map[string]error{}
	for _, f := range []string{SBOMSPDX, SBOMCycloneDX} {
		errs["sbom "+f] = SBOM(context.Background(), out, SBOMOptions{Format: f}, io.Discard)
	}
	_, errs["nix"] = Nix(context.Background(), out, NixOptions{})
	_, errs["nix --derivations"] = Nix(context.Background(), out, NixOptions{Derivations: true})
	_, errs["diff"] = Diff(context.Background(), DiffOptions{}, out, out)
	return errs
}

// TestReadersRefuseWhatVerifyRefuses: what verify refuses, no other reader
// of OUT turns into output (issue 37): a provenance whose pname or version
// disagrees with the manifest, an empty pname, a name nixpkgs' package set
// uses for itself, a NUL in a version, another component's archive with the
// manifest's and provenance's hashes rewritten to match, an archive
// hard-linked to a file outside OUT.
func TestReadersRefuseWhatVerifyRefuses(t *testing.T) {
	clean, _ := cudartOut(t)
	for _, errs := range []map[string]error{readers(clean)} {
		for r, err := range errs {
			if err != nil {
				t.Fatalf("%s of a clean OUT: %v", r, err)
			}
		}
	}
	const manifest, sidecar = "redistrib_12.6.68.json", "debredist-provenance_12.6.68.json"
	for _, tc := range []struct {
		name   string
		attack func(t *testing.T, gen string)
		want   string // in verify's report and every reader's error
	}{
		{"provenance pname disagrees", func(t *testing.T, gen string) {
			edit(t, filepath.Join(gen, "redist", sidecar), `"pname": "cuda_cudart"`, `"pname": "cuda_nvcc"`)
		}, `field pname (the component's key): the manifest says "cuda_cudart", the provenance sidecar records "cuda_nvcc"`},
		{"provenance version disagrees", func(t *testing.T, gen string) {
			edit(t, filepath.Join(gen, "redist", sidecar), `"version": "12.6.68",`, `"version": "12.6.69",`)
		}, `field version: the manifest says "12.6.68", the provenance sidecar records "12.6.69"`},
		{"empty pname", func(t *testing.T, gen string) {
			edit(t, filepath.Join(gen, "redist", sidecar), `"pname": "cuda_cudart"`, `"pname": ""`)
		}, `archives[0].pname: "" is not a redist package name`},
		{"component named pkgs", func(t *testing.T, gen string) {
			edit(t, filepath.Join(gen, "redist", manifest), `"cuda_cudart": {`, `"pkgs": {`)
		}, `component "pkgs": not a redist package name`},
		{"NUL in a version", func(t *testing.T, gen string) {
			edit(t, filepath.Join(gen, "redist", manifest), `"version": "12.6.68"`, `"version": "12.6.68\u0000-evil"`)
		}, `cuda_cudart.version: "12.6.68\x00-evil" is not dotted numbers`},
		{"version longer than CycloneDX takes", func(t *testing.T, gen string) {
			long := strings.Repeat("1.", 550) + "1" // 1101 bytes: CycloneDX 1.6 allows 1024
			edit(t, filepath.Join(gen, "redist", manifest), `"version": "12.6.68"`, `"version": "`+long+`"`)
			edit(t, filepath.Join(gen, "redist", sidecar), `"version": "12.6.68",`, `"version": "`+long+`",`)
		}, `cuda_cudart.version: ` +
			`"1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.` +
			`1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1."… (1101 bytes) is not ` +
			`dotted numbers`},
		{"another component's archive", func(t *testing.T, gen string) {
			// libcublas's archive under cudart's name, every hash rewritten
			rd := filepath.Join(gen, "redist")
			var p redist.Provenance
			b, _ := os.ReadFile(filepath.Join(rd, sidecar))
			testutil.Must(t, json.Unmarshal(b, &p))
			var cudart, cublas redist.Archive
			for _, a := range p.Archives {
				switch a.PName {
				case "cuda_cudart":
					cudart = a
				case "libcublas":
					cublas = a
				}
			}
			data, _ := os.ReadFile(filepath.Join(rd, filepath.FromSlash(cublas.RelativePath)))
			testutil.Must(t, os.WriteFile(filepath.Join(rd, filepath.FromSlash(cudart.RelativePath)), data, 0o644))
			for _, f := range []string{manifest, sidecar} {
				b, _ := os.ReadFile(filepath.Join(rd, f))
				b = bytes.ReplaceAll(b, []byte(cudart.SHA256), []byte(cublas.SHA256))
				b = bytes.ReplaceAll(b, []byte(cudart.MD5), []byte(cublas.MD5))
				b = bytes.ReplaceAll(b, []byte(cudart.NAR), []byte(cublas.NAR))
				b = bytes.ReplaceAll(b, []byte(`"size": "`+itoa(cudart.Size)+`"`), []byte(`"size": "`+itoa(cublas.Size)+`"`))
				b = bytes.ReplaceAll(b, []byte(`"size": `+itoa(cudart.Size)+`,`), []byte(`"size": `+itoa(cublas.Size)+`,`))
				testutil.Must(t, os.WriteFile(filepath.Join(rd, f), b, 0o644))
			}
		}, `top-level directory is "libcublas-linux-aarch64-12.6.1.4-archive", want ` +
			`"cuda_cudart-linux-aarch64-12.6.68-archive"`},
		{"archive hard-linked outside OUT", func(t *testing.T, gen string) {
			a := filepath.Join(gen, "redist", "cuda_cudart", "linux-aarch64", "cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz")
			if err := os.Link(a, filepath.Join(t.TempDir(), "elsewhere")); err != nil {
				t.Fatal(err)
			}
		}, "hard-linked to 1 file(s) outside OUT (2 links)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := copyOut(t, clean)
			gen, err := filepath.EvalSymlinks(filepath.Join(out, "cuda"))
			if err != nil {
				t.Fatal(err)
			}
			tc.attack(t, gen)
			rep, err := verify.Dir(context.Background(), out)
			if err != nil || rep.OK() || !strings.Contains(fmt.Sprint(rep.Err()), tc.want) {
				t.Errorf("verify: %v; report %v; want it to say %q", err, rep.Err(), tc.want)
			}
			for r, err := range readers(out) {
				if r == "diff" && (tc.name == "another component's archive" || tc.name == "archive hard-linked outside OUT") {
					continue // diff reads the provenance only, never an archive
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: %v\nwant a refusal saying %q", r, err, tc.want)
				}
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestOutFilesBounded: a 70 MB provenance is "too large", not JSON cut
// short; a manifest nested 60,000 arrays deep is refused in bounded memory;
// current pointing outside OUT is reported as such (issue 37).
func TestOutFilesBounded(t *testing.T) {
	clean, _ := cudartOut(t)

	out := copyOut(t, clean)
	gen, _ := filepath.EvalSymlinks(filepath.Join(out, "cuda"))
	big := filepath.Join(gen, "redist", "debredist-provenance_12.6.68.json")
	b, _ := os.ReadFile(big)
	testutil.Must(t, os.WriteFile(big, append(b, bytes.Repeat([]byte(" "), 70<<20)...), 0o644))
	if rep, err := verify.Dir(context.Background(), out); err != nil ||
		!strings.Contains(fmt.Sprint(rep.Err()), "too large: more than 67108864 bytes (64 MiB), not read") {
		t.Errorf("70 MB provenance: %v %v", err, rep.Err())
	}

	out = copyOut(t, clean)
	gen, _ = filepath.EvalSymlinks(filepath.Join(out, "cuda"))
	deep := filepath.Join(gen, "redist", "redistrib_12.6.68.json")
	testutil.Must(t, os.WriteFile(deep, []byte(strings.Repeat("[", 60000)+strings.Repeat("]", 60000)), 0o644))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rep, err := verify.Dir(context.Background(), out)
	runtime.ReadMemStats(&after)
	if err != nil || !strings.Contains(fmt.Sprint(rep.Err()), "nested deeper than 64 arrays and objects") {
		t.Errorf("deep manifest: %v %v", err, rep.Err())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("verify of a 120 KB deep manifest allocated %d MiB", alloc>>20)
	}

	out = copyOut(t, clean)
	cur := filepath.Join(out, ".debredist", "current")
	testutil.Must(t, os.Remove(cur))
	testutil.Must(t, os.Symlink(filepath.Dir(t.TempDir()), cur))
	if _, err := verify.Dir(context.Background(), out); err == nil ||
		!strings.Contains(err.Error(), "not to a generation of OUT") {
		t.Errorf("current outside OUT: verify: %v", err)
	}
	if _, err := Nix(context.Background(), out, NixOptions{}); err == nil ||
		!strings.Contains(err.Error(), "not to a generation of OUT") {
		t.Errorf("current outside OUT: nix: %v", err)
	}
}

// TestLockConversionRecordsInputs: a conversion from a lock file given by
// a relative path records it absolute, and the mirror it read the debs
// from, so that nix --derivations run from anywhere fetches them from that
// mirror (issue 37: it fell back to NVIDIA's).
func TestLockConversionRecordsInputs(t *testing.T) {
	dir := t.TempDir()
	mirror, err := filepath.Abs(sampleMirror)
	if err != nil {
		t.Fatal(err)
	}
	cache, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	var lock bytes.Buffer
	if err := Inventory(context.Background(), Options{
		Source:  Source{Mirror: mirror, CacheDir: cache},
		Release: Release{JetPack: "6"},
	}, &lock, InventoryLock); err != nil {
		t.Fatal(err)
	}
	testutil.Must(t, os.WriteFile(filepath.Join(dir, "jp6.lock.json"), lock.Bytes(), 0o644))
	t.Chdir(dir)
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: mirror, CacheDir: cache},
			Release: Release{LockFile: "jp6.lock.json"},
			Build:   Build{Out: out, Only: []string{"cuda_cudart"}},
		},
	)
	p := outProvenance(t, out)["cuda/redist/redistrib_12.6.68.json"]
	if len(p.Indexes) != 1 || p.Indexes[0].URL != filepath.Join(dir, "jp6.lock.json") || p.Mirror != mirror {
		t.Errorf(
			"provenance indexes %+v, mirror %q; want the lock at %s and the mirror %s",
			p.Indexes,
			p.Mirror,
			filepath.Join(dir, "jp6.lock.json"),
			mirror,
		)
	}
	t.Chdir(t.TempDir())
	r, err := Nix(context.Background(), out, NixOptions{Derivations: true})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Debs map[string]struct{ URL string } `json:"debs"`
	}
	testutil.Must(t, json.Unmarshal(r.Data, &d))
	for _, deb := range d.Debs {
		if !strings.HasPrefix(deb.URL, "file://"+mirror+"/") {
			t.Errorf("deb fetched from %s, want the mirror %s", deb.URL, mirror)
		}
	}
	if len(d.Debs) == 0 {
		t.Error("no debs")
	}
}
