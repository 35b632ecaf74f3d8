package debredist

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/testutil"
)

// TestNixDerivationsBuild builds, with the Nix Debian ships and no
// nixpkgs, every archive of the sample mirror's JetPack 6 conversion
// through the file `debredist nix --derivations` prints: Nix's builtin
// fetchurl fetches the debs (file:// URLs), this test's own debredist
// (built static) is the builder, and each fixed-output derivation's hash
// is the manifest's sha256, so a byte that differs from convert's fails
// the build. Then a deb changed on the mirror fails with Nix's hash
// mismatch naming it.
func TestNixDerivationsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 31 archives in Nix: skipped with -short")
	}
	testutil.RequireTool(t, "nix-build")
	testutil.RequireTool(t, "nix-instantiate")
	testutil.RequireTool(t, "nix-store")
	testutil.NixStoreLock(t) // it deletes store paths to have them made again
	// Root in CI has no nixbld users; nothing is substituted (no network).
	t.Setenv("NIX_CONFIG", "build-users-group =\nsubstituters =\nsandbox = false\n"+os.Getenv("NIX_CONFIG"))

	nd := newNixDerivations(t, "")
	file, debredistArg, mirrorCopy, manifests, want := nd.file, nd.debredist, nd.mirror, nd.manifests, nd.archives
	nix := func(name string, args ...string) (string, error) {
		c := exec.Command(name, args...)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		o, err := c.Output()
		if err != nil {
			return stderr.String(), err
		}
		return string(o), nil
	}
	// deleted removes a store path if it is there, so that nix-build runs
	// this binary (or fetches the changed deb) instead of returning the old
	// output; it reports false when the path stays because something else
	// roots it (another test's nix-build result link, in a store shared by
	// the test packages running side by side): the caller then rebuilds
	// with --check, which runs the builder and compares with that output.
	deleted := func(p string) bool {
		t.Helper()
		if _, err := os.Lstat(p); err != nil {
			return true
		}
		if o, err := nix("nix-store", "--delete", p); err != nil {
			if strings.Contains(o, "since it is still alive") {
				t.Logf("%s is rooted elsewhere: rebuilt with --check", p)
				return false
			}
			t.Fatalf("nix-store --delete %s: %v\n%s", p, err, o)
		}
		if _, err := os.Lstat(p); err == nil {
			t.Fatalf("nix-store --delete %s: still there", p)
		}
		return true
	}

	// Built from scratch with this binary: outputs an earlier run left are
	// deleted first (nothing roots them).
	drvs, err := nix("nix-instantiate", file, "-A", "archives", "--arg", "debredist", debredistArg)
	if err != nil {
		t.Fatalf("nix-instantiate: %v\n%s", err, drvs)
	}
	outs, err := nix("nix-store", append([]string{"-q", "--outputs"}, strings.Fields(drvs)...)...)
	if err != nil {
		t.Fatalf("nix-store -q: %v\n%s", err, outs)
	}
	alive := false
	for _, p := range strings.Fields(outs) {
		alive = !deleted(p) || alive
	}
	built, err := nix("nix-build", file, "-A", "archives", "--no-out-link", "--arg", "debredist", debredistArg)
	if err != nil {
		t.Fatalf("nix-build: %v\n%s", err, built)
	}
	if alive {
		o, err := nix("nix-build", file, "-A", "archives", "--no-out-link", "--check", "--arg", "debredist", debredistArg)
		if err != nil {
			t.Fatalf("nix-build --check: %v\n%s", err, o)
		}
	}
	paths := strings.Fields(built)
	if len(paths) != len(want) {
		t.Errorf("nix-build built %d archives, the manifests name %d", len(paths), len(want))
	}
	for _, p := range paths {
		sum, err := files.SHA256(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		archive, ok := want[sum]
		if !ok {
			t.Errorf("%s: sha256 %s is no manifest's", p, sum)
			continue
		}
		if !strings.HasSuffix(p, "-"+filepath.Base(archive)) {
			t.Errorf("%s holds %s", p, archive)
		}
	}

	// A deb that changed on the mirror: Nix's hash mismatch, naming it.
	cudaManifest := slices.IndexFunc(manifests, func(mf string) bool {
		return filepath.Base(filepath.Dir(filepath.Dir(mf))) == "cuda"
	})
	if cudaManifest < 0 {
		t.Fatalf("no cuda manifest among %v", manifests)
	}
	prov, _, err := redist.ReadSidecar(manifests[cudaManifest])
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(prov.Archives, func(a redist.Archive) bool { return a.PName == "cuda_cudart" })
	if i < 0 {
		t.Fatal("no cuda_cudart in the provenance")
	}
	deb := prov.Archives[i].Debs[0]
	f, err := os.OpenFile(
		filepath.Join(mirrorCopy, deb.Repo, filepath.FromSlash(deb.Filename)),
		os.O_APPEND|os.O_WRONLY,
		0,
	)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write([]byte("changed upstream"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := nix("nix-store", "--print-fixed-path", "sha256", deb.SHA256, path.Base(deb.Filename))
	if err != nil {
		t.Fatal(err, fixed)
	}
	// Built and fetched above: both must be made again.
	check := []string{}
	for _, p := range paths {
		if strings.HasSuffix(p, "-"+path.Base(prov.Archives[i].RelativePath)) && !deleted(p) {
			check = []string{"--check"}
		}
	}
	if !deleted(strings.TrimSpace(fixed)) {
		t.Fatalf("the deb %s is rooted: it cannot be fetched again", fixed)
	}
	msg, err := nix(
		"nix-build",
		append(
			[]string{file, "-A", "archives.cuda.cuda_cudart", "--no-out-link", "--arg", "debredist", debredistArg},
			check...)...)
	if err == nil {
		t.Fatal("a changed deb built")
	}
	if !strings.Contains(msg, "hash mismatch") || !strings.Contains(msg, path.Base(deb.Filename)) {
		t.Errorf("a changed deb: want Nix's hash mismatch naming %s, got:\n%s", path.Base(deb.Filename), msg)
	}
}

// nixDerivations is the sample mirror's JetPack 6 conversion (from a copy
// of the mirror in the directory mirror, or a temporary one when "": the
// debs' file:// URLs name it) and the file `debredist nix --derivations`
// prints for it, with this checkout's debredist, built static, as the
// package its derivations run.
type nixDerivations struct {
	mirror    string // the copy of the sample mirror
	out       string // the conversion
	file      string // the Nix file
	debredist string // the Nix expression of the debredist argument
	manifests []string
	archives  map[string]string // sha256 -> the archive convert wrote, under out
}

func newNixDerivations(t *testing.T, mirror string) *nixDerivations {
	t.Helper()
	pkg := t.TempDir()
	build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(pkg, "bin", "debredist"), "./cmd/debredist")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if o, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, o)
	}
	if mirror == "" {
		mirror = t.TempDir()
	}
	nd := &nixDerivations{
		mirror:    mirror,
		out:       t.TempDir(),
		file:      filepath.Join(t.TempDir(), "redist.nix"),
		debredist: `builtins.path { path = ` + pkg + `; name = "debredist"; }`,
		archives:  map[string]string{},
	}
	if err := os.CopyFS(nd.mirror, os.DirFS(sampleMirror)); err != nil {
		t.Fatal(err)
	}
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: nd.mirror, CacheDir: t.TempDir()},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: nd.out},
		},
	)
	text, err := Nix(context.Background(), nd.out, NixOptions{Derivations: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nd.file, []byte(text.Text), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every recorded archive, by the sha256 its manifest names.
	nd.manifests, _ = filepath.Glob(filepath.Join(nd.out, "*", "redist", "redistrib_*.json"))
	for _, mf := range nd.manifests {
		b, _ := os.ReadFile(mf)
		m, err := redist.ReadManifest(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Components {
			for _, pa := range c.Artifacts() {
				nd.archives[pa.Artifact.SHA256] = filepath.Join(filepath.Dir(mf), filepath.FromSlash(pa.Artifact.RelativePath))
			}
		}
	}
	if len(nd.archives) < 25 {
		t.Fatalf("%d archives in the manifests", len(nd.archives))
	}
	return nd
}
