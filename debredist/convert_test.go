package debredist

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/mirrorgen"
	"github.com/debredist/debredist/internal/publish"
)

// mirror returns a fake Jetson mirror for opts that the test only reads:
// the committed sample mirror (generated from the same inventories, see
// internal/mirrorgen's TestSampleMirrorUpToDate) when opts selects its
// default packages of some of the sample's suites, else a fresh one.
func mirror(t *testing.T, opts mirrorgen.Options) string {
	t.Helper()
	if opts.Only == nil && opts.Payload == nil && opts.SizeOf == nil && opts.Indexes == nil &&
		!slices.ContainsFunc(opts.Suites, func(s string) bool { return !slices.Contains(mirrorgen.SampleSuites(), s) }) {
		return sampleMirror
	}
	return freshMirror(t, opts)
}

// freshMirror generates a fake Jetson mirror that the test may change.
func freshMirror(t *testing.T, opts mirrorgen.Options) string {
	t.Helper()
	dir := t.TempDir()
	if err := mirrorgen.Generate(context.Background(), dir, opts); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustConvert(t *testing.T, o Options) *Result {
	t.Helper()
	res, err := Convert(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// archiveEntries lists the entries (relative to the top dir) of an archive.
func archiveEntries(t *testing.T, file string) map[string]entry.Header {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := archive.Inspect(context.Background(), f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	out := map[string]entry.Header{}
	for _, h := range r.Entries {
		out[h.Path] = h
	}
	return out
}

// snapshot maps every file under dir (except the lock) to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := walkOut(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() == publish.MutexFile {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestConvertJetPacks converts JetPack 5, 6 and 7 fixture mirrors and checks
// packages, versions, paths inside the archives, and that verify passes.
func TestConvertJetPacks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		jetpack string
		suite   string
		product map[string]string // product -> manifest
		paths   map[string][]string
	}{
		{
			"5",
			"r35.6",
			map[string]string{
				"cuda":     "cuda/redist/redistrib_11.4.298.json",
				"cudnn":    "cudnn/redist/redistrib_8.6.0.json",
				"tensorrt": "tensorrt/redist/redistrib_8.5.2.json",
			},
			map[string][]string{
				"cuda/redist/cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-11.4.298-archive.tar.xz": {
					"include/cuda_runtime.h",
					"lib/libcudart.so.11.4.298",
					"lib/stubs/libcuda.so",
					"pkg-config/cudart-11.4.pc",
					"LICENSE",
				},
				"cudnn/redist/cudnn/linux-aarch64/cudnn-linux-aarch64-8.6.0.166_cuda11-archive.tar.xz": {
					"include/cudnn.h",
					"lib/libcudnn.so",
				},
				"cuda/redist/cuda_compat/linux-aarch64/cuda_compat-linux-aarch64-11.4.31478197-archive.tar.xz": {
					"compat/libcuda.so.1.1",
				},
			},
		},
		{
			"6",
			"r36.5",
			map[string]string{
				"cuda":     "cuda/redist/redistrib_12.6.68.json",
				"cudnn":    "cudnn/redist/redistrib_9.3.0.json",
				"tensorrt": "tensorrt/redist/redistrib_10.3.0.json",
				"l4t":      "l4t/redist/redistrib_36.5.0.json",
			},
			map[string][]string{
				"cuda/redist/cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz": {
					"include/cuda_runtime.h",
					"lib/libcudart.so.12.6.68",
					"lib/stubs/libcuda.so",
					"pkg-config/cudart-12.6.pc",
					"LICENSE",
				},
				"cudnn/redist/cudnn/linux-aarch64/cudnn-linux-aarch64-9.3.0.75_cuda12-archive.tar.xz": {
					"include/cudnn.h",
					"lib/libcudnn.so",
					"lib/libcudnn.so.9",
				},
				"cuda/redist/cuda_compat/linux-aarch64/cuda_compat-linux-aarch64-12.6.36890662-archive.tar.xz": {
					"compat/libcuda.so.1.1",
				},
				"tensorrt/redist/tensorrt/linux-aarch64/tensorrt-linux-aarch64-10.3.0.30_cuda12-archive.tar.xz": {
					"bin/trtexec",
					"include/NvInfer.h",
				},
			},
		},
		{
			"7",
			"r39.2",
			map[string]string{
				"cuda":     "cuda/redist/redistrib_13.2.75.json",
				"cudnn":    "cudnn/redist/redistrib_9.20.0.json",
				"tensorrt": "tensorrt/redist/redistrib_10.16.2.json",
			},
			map[string][]string{
				"cuda/redist/cuda_cudart/linux-sbsa/cuda_cudart-linux-sbsa-13.2.75-archive.tar.xz": {
					"include/cuda_runtime.h",
					"lib/libcudart.so.13.2.75",
					"lib/stubs/libcuda.so",
					"pkg-config/cudart-13.2.pc",
				},
				"cudnn/redist/cudnn/linux-sbsa/cudnn-linux-sbsa-9.20.0.46_cuda13-archive.tar.xz": {
					"include/cudnn.h",
					"lib/libcudnn.so",
				},
			},
		},
	}
	for _, c := range cases {
		t.Run("jetpack"+c.jetpack, func(t *testing.T) {
			t.Parallel()
			m := mirror(t, mirrorgen.Options{Suites: []string{c.suite}})
			out := t.TempDir()
			res := mustConvert(
				t,
				Options{
					Source:  Source{Mirror: m, CacheDir: t.TempDir()},
					Release: Release{JetPack: c.jetpack},
					Build:   Build{Out: out},
				},
			)
			for product, manifest := range c.product {
				f, err := os.Open(filepath.Join(out, manifest))
				if err != nil {
					t.Errorf("%s manifest: %v", product, err)
					continue
				}
				mf, err := redist.ReadManifest(f)
				f.Close()
				if err != nil || mf.ReleaseProduct != product {
					t.Errorf("%s: %v %+v", manifest, err, mf)
				}
			}
			for file, paths := range c.paths {
				ents := archiveEntries(t, filepath.Join(out, file))
				for _, p := range paths {
					if _, ok := ents[p]; !ok {
						t.Errorf("%s: missing %s", file, p)
					}
				}
			}
			for _, p := range res.Packages {
				if p.UpToDate || p.Size <= 0 || len(p.SHA256) != 64 || !strings.HasPrefix(p.NAR, "sha256-") {
					t.Errorf("package result %+v", p)
				}
				if _, err := os.Stat(filepath.Join(out, p.Product, "redist", p.PName, "LICENSE.txt")); err != nil {
					t.Errorf("%s: LICENSE.txt: %v", p.PName, err)
				}
			}
			rep, err := verify.Dir(context.Background(), out)
			if err != nil || rep.Err() != nil {
				t.Fatalf("verify: %v %v", err, rep.Err())
			}
			if _, err := os.Stat(filepath.Join(out, publish.TmpDir)); !os.IsNotExist(err) {
				t.Errorf("temporary directory left in OUT")
			}
		})
	}
}

// TestConvertReproducibleAndIncremental: byte-identical output across runs
// and --jobs, a no-op rerun, a changed deb rebuilding one package, and an
// interrupted run that a rerun completes to the same bytes.
func TestConvertReproducibleAndIncremental(t *testing.T) {
	t.Parallel()
	m := mirror(t, mirrorgen.Options{Suites: []string{"r36.5"}})
	cache := t.TempDir()
	outA, outB := t.TempDir(), t.TempDir()
	mustConvert(
		t,
		Options{Source: Source{Mirror: m, CacheDir: cache}, Release: Release{JetPack: "6"}, Build: Build{Out: outA, Jobs: 1}},
	)
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: m, CacheDir: t.TempDir()},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: outB, Jobs: 4},
		},
	)
	a, b := snapshot(t, outA), snapshot(t, outB)
	if strings.Join(keys(a), "\n") != strings.Join(keys(b), "\n") {
		t.Fatalf("different file sets:\n%v\n%v", keys(a), keys(b))
	}
	for k := range a {
		if a[k] != b[k] {
			t.Errorf("%s differs between --jobs 1 and --jobs 4", k)
		}
	}

	// A rerun is a no-op.
	res := mustConvert(
		t,
		Options{Source: Source{Mirror: m, CacheDir: cache}, Release: Release{JetPack: "6"}, Build: Build{Out: outA}},
	)
	for _, p := range res.Packages {
		if !p.UpToDate {
			t.Errorf("rerun rebuilt %s", p.PName)
		}
	}
	if after := snapshot(t, outA); !equalSnapshots(after, a) {
		t.Errorf("a no-op rerun changed OUT")
	}

	// One changed deb rebuilds exactly its package.
	m2 := mirror(t, mirrorgen.Options{Suites: []string{"r36.5"}, Payload: func(pkg, path string, size int64) []byte {
		b := mirrorgen.DefaultPayload(pkg, path, size)
		if pkg == "libcublas-12-6" {
			b = append([]byte("changed "), b...)
		}
		return b
	}})
	res = mustConvert(
		t,
		Options{Source: Source{Mirror: m2, CacheDir: cache}, Release: Release{JetPack: "6"}, Build: Build{Out: outA}},
	)
	var rebuilt []string
	for _, p := range res.Packages {
		if !p.UpToDate {
			rebuilt = append(rebuilt, p.PName)
		}
	}
	if strings.Join(rebuilt, ",") != "libcublas" {
		t.Errorf("rebuilt %v, want only libcublas", rebuilt)
	}
	for k, v := range snapshot(t, outA) {
		if !strings.HasSuffix(k, ".tar.xz") || strings.Contains(k, "libcublas") {
			continue
		}
		if a[k] != v {
			t.Errorf("%s changed although only libcublas was rebuilt", k)
		}
	}

	// Interrupt after the first package is built, then rerun.
	outC := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	_, err := Convert(ctx, Options{
		Source:  Source{Mirror: m, CacheDir: cache},
		Release: Release{JetPack: "6"},
		Build:   Build{Out: outC, Jobs: 1},
		OnEvent: func(e event.Event) {
			if e.Kind == event.BuildDone {
				once.Do(cancel)
			}
		},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted convert: want context.Canceled, got %v", err)
	}
	for k := range snapshot(t, outC) {
		if strings.HasPrefix(k, publish.TmpDir) || strings.Contains(k, "redistrib_") {
			t.Errorf("interrupted run left %s (no manifest may be written before all archives)", k)
		}
	}
	mustConvert(
		t,
		Options{Source: Source{Mirror: m, CacheDir: cache}, Release: Release{JetPack: "6"}, Build: Build{Out: outC}},
	)
	c := snapshot(t, outC)
	for k := range a {
		if c[k] != a[k] {
			t.Errorf("%s: interrupted-then-rerun output differs from an uninterrupted run", k)
		}
	}
	if !bytes.Equal([]byte(strings.Join(keys(c), "\n")), []byte(strings.Join(keys(a), "\n"))) {
		t.Errorf("file sets differ after interrupt+rerun:\n%v\n%v", keys(c), keys(a))
	}
}

// TestLockReproduces: a lock written by one run reproduces the same output
// in a second run after the mirror's index and debs changed underneath
// (the cache still holds the pinned debs, by sha256).
func TestLockReproduces(t *testing.T) {
	t.Parallel()
	m := freshMirror(t, mirrorgen.Options{Suites: []string{"r36.5"}})
	cache := t.TempDir()
	lock := filepath.Join(t.TempDir(), "jetpack6.lock.json")
	outA := t.TempDir()
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: m, CacheDir: cache},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: outA, LockOut: lock, Only: []string{"libcublas", "cuda_cudart"}},
		},
	)

	// NVIDIA re-uploads libcublas under the same name with new bytes.
	if err := mirrorgen.Generate(context.Background(), m, mirrorgen.Options{
		Suites: []string{"r36.5"},
		Payload: func(pkg, path string, size int64) []byte {
			return append([]byte("re-uploaded "), mirrorgen.DefaultPayload(pkg, path, size)...)
		},
	}); err != nil {
		t.Fatal(err)
	}
	outB := t.TempDir()
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: m, CacheDir: cache},
			Release: Release{LockFile: lock},
			Build:   Build{Out: outB, Only: []string{"libcublas", "cuda_cudart"}},
		},
	)
	a, b := snapshot(t, outA), snapshot(t, outB)
	for k, v := range a {
		if redist.IsSidecarName(filepath.Base(k)) {
			continue // records the lock instead of the index: differs by design
		}
		if b[k] != v {
			t.Errorf("%s differs between the live run and the locked rerun", k)
		}
	}
	// Without the cache the pinned bytes are gone upstream: a clear size/hash mismatch.
	_, err := Convert(
		context.Background(),
		Options{
			Source:  Source{Mirror: m, CacheDir: t.TempDir()},
			Release: Release{LockFile: lock},
			Build:   Build{Out: t.TempDir(), Only: []string{"libcublas"}},
		},
	)
	if err == nil || !strings.Contains(err.Error(), "libcublas-12-6") ||
		!strings.Contains(err.Error(), "replaced under the same name") {
		t.Errorf("want a mismatch naming the package and the likely re-upload, got %v", err)
	}
}

func equalSnapshots(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestInterruptedRebuildKeepsOutConsistent: a rebuild over an existing OUT
// (here: every archive changes because the mtime does) that is cancelled
// half-way leaves the previous output intact and verifiable; a rerun then
// completes it.
func TestInterruptedRebuildKeepsOutConsistent(t *testing.T) {
	t.Parallel()
	sample := filepath.Join("..", "testdata", "sample-mirror")
	cache := t.TempDir()
	out := t.TempDir()
	mustConvert(
		t,
		Options{Source: Source{Mirror: sample, CacheDir: cache}, Release: Release{JetPack: "6"}, Build: Build{Out: out}},
	)
	before := snapshot(t, out)

	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	newTime := time.Unix(1_000_000_000, 0)
	_, err := Convert(ctx, Options{
		Source:  Source{Mirror: sample, CacheDir: cache},
		Release: Release{JetPack: "6"},
		Build:   Build{Out: out, Jobs: 1, MTime: newTime},
		OnEvent: func(e event.Event) {
			if e.Kind == event.BuildDone {
				once.Do(cancel)
			}
		},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if after := snapshot(t, out); !equalSnapshots(after, before) {
		t.Errorf("a cancelled rebuild changed OUT")
	}
	if rep, err := verify.Dir(context.Background(), out); err != nil || rep.Err() != nil {
		t.Fatalf("OUT no longer verifies after a cancelled rebuild: %v %v", err, rep.Err())
	}
	res := mustConvert(
		t,
		Options{
			Source:  Source{Mirror: sample, CacheDir: cache},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: out, MTime: newTime},
		},
	)
	for _, p := range res.Packages {
		if p.UpToDate {
			t.Errorf("%s kept although its mtime changed", p.PName)
		}
	}
	if rep, err := verify.Dir(context.Background(), out); err != nil || rep.Err() != nil {
		t.Fatalf("verify after the completed rebuild: %v %v", err, rep.Err())
	}
}

// TestOnlyAndOtherReleasesShareOut: --only rebuilds some components and
// keeps the rest of their manifests; converting another release into the
// same OUT leaves the first release's manifests and archives alone.
func TestOnlyAndOtherReleasesShareOut(t *testing.T) {
	t.Parallel()
	sample := filepath.Join("..", "testdata", "sample-mirror")
	cache := t.TempDir()
	out := t.TempDir()
	full := mustConvert(
		t,
		Options{Source: Source{Mirror: sample, CacheDir: cache}, Release: Release{JetPack: "6"}, Build: Build{Out: out}},
	)
	before := snapshot(t, out)

	res := mustConvert(
		t,
		Options{
			Source:  Source{Mirror: sample, CacheDir: cache},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: out, Only: []string{"cuda_cudart"}, MTime: time.Unix(1_000_000_000, 0)},
		},
	)
	if len(res.Packages) != 1 || res.Packages[0].UpToDate {
		t.Fatalf("--only cuda_cudart with a new mtime: %+v", res.Packages)
	}
	f, err := os.Open(filepath.Join(out, "cuda", "redist", "redistrib_12.6.68.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := redist.ReadManifest(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	cuda := 0
	for _, p := range full.Packages {
		if p.Product == "cuda" {
			cuda++
		}
	}
	if len(m.Components) != cuda {
		t.Errorf("cuda manifest has %d components after --only, want all %d", len(m.Components), cuda)
	}
	if rep, err := verify.Dir(context.Background(), out); err != nil || rep.Err() != nil {
		t.Fatalf("verify after --only: %v %v", err, rep.Err())
	}

	mustConvert(
		t,
		Options{Source: Source{Mirror: sample, CacheDir: cache}, Release: Release{JetPack: "5"}, Build: Build{Out: out}},
	)
	after := snapshot(t, out)
	for k, v := range before {
		if strings.Contains(k, "cuda_cudart") || strings.HasPrefix(k, "cuda/redist/redistrib_12.6.68") ||
			strings.HasPrefix(k, "cuda/redist/debredist-provenance_12.6.68") {
			continue // rebuilt by --only above
		}
		if strings.HasSuffix(k, "/LICENSE.txt") {
			continue // <pname>/LICENSE.txt is one file per component for all releases, as in NVIDIA's tree
		}
		if after[k] != v {
			t.Errorf("%s of JetPack 6 changed or vanished when JetPack 5 was converted into the same OUT", k)
		}
	}
	if rep, err := verify.Dir(context.Background(), out); err != nil || rep.Err() != nil || len(rep.Manifests) != 4+3 {
		t.Fatalf("verify with two releases in OUT: %v %v, %d manifests", err, rep.Err(), len(rep.Manifests))
	}
}

// walkOut walks OUT like filepath.WalkDir (a test's view of all it holds), following the product
// symlinks into the current generation (paths are reported under OUT) and
// skipping debredist's own entries (.debredist, the temporary directory).
func walkOut(out string, fn fs.WalkDirFunc) error {
	out = filepath.Clean(out) // "./out" and "out/" name the same OUT as "out"
	return filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fn(p, d, err)
		}
		if p != out && filepath.Dir(p) == out {
			if d.Name() == publish.GenDir || d.Name() == publish.TmpDir {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				if !publish.IsProductLink(out, d.Name()) {
					return fn(p, d, nil) // not debredist's: never followed
				}
				real, err := filepath.EvalSymlinks(p)
				if err != nil {
					return nil // dangling: a product the current output lacks
				}
				if st, err := os.Stat(real); err != nil || !st.IsDir() {
					return fn(p, d, nil)
				}
				return filepath.WalkDir(real, func(q string, e fs.DirEntry, err error) error {
					rel, _ := filepath.Rel(real, q)
					return fn(filepath.Join(p, rel), e, err)
				})
			}
		}
		return fn(p, d, err)
	})
}
