package debredist

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

// TestNixConsumesOutput exercises the nixpkgs recipe as far as Nix 2.8
// without network allows: every manifest evaluates with builtins.fromJSON,
// and every archive added with `nix-store --add-fixed sha256` lands at the
// store path `nix-store --print-fixed-path` computes from the manifest's
// sha256 and the file name, which is what fetchurl resolves offline.
func TestNixConsumesOutput(t *testing.T) {
	testutil.RequireTool(t, "nix-store")
	testutil.RequireTool(t, "nix-instantiate")
	if os.Getenv("NIX_CONFIG") == "" {
		t.Setenv("NIX_CONFIG", "build-users-group =")
	}
	out := t.TempDir()
	convert(t, Options{JetPack: "6", Mirror: filepath.Join("..", "testdata", "sample-mirror"), Out: out, CacheDir: t.TempDir(), Only: []string{"cuda_cudart", "cudnn"}})
	manifests, _ := filepath.Glob(filepath.Join(out, "*", "redist", "redistrib_*[0-9].json"))
	if len(manifests) != 2 {
		t.Fatalf("manifests: %v", manifests)
	}
	for _, mf := range manifests {
		abs, _ := filepath.Abs(mf)
		expr := `let m = builtins.fromJSON (builtins.readFile ` + abs + `); in m.release_label`
		got, err := exec.Command("nix-instantiate", "--eval", "--expr", expr).CombinedOutput()
		if err != nil {
			t.Fatalf("nix-instantiate on %s: %v\n%s", mf, err, got)
		}
		f, _ := os.Open(mf)
		m, err := ReadManifest(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(got)) != `"`+m.ReleaseLabel+`"` {
			t.Errorf("nix reads release_label %s, want %q", got, m.ReleaseLabel)
		}
		for _, name := range sortedKeys(m.Components) {
			for _, pa := range m.Components[name].Artifacts() {
				file := filepath.Join(filepath.Dir(mf), filepath.FromSlash(pa.Artifact.RelativePath))
				want, err := exec.Command("nix-store", "--print-fixed-path", "sha256", pa.Artifact.SHA256, filepath.Base(file)).CombinedOutput()
				if err != nil {
					t.Fatalf("print-fixed-path: %v\n%s", err, want)
				}
				got, err := exec.Command("nix-store", "--add-fixed", "sha256", file).CombinedOutput()
				if err != nil {
					t.Fatalf("add-fixed %s: %v\n%s", file, err, got)
				}
				if strings.TrimSpace(string(got)) != strings.TrimSpace(string(want)) {
					t.Errorf("%s: added at %s, manifest sha256 gives %s", name, got, want)
				}
			}
		}
	}
	if rep, err := Verify(context.Background(), out); err != nil || rep.Err() != nil {
		t.Fatal(err, rep.Err())
	}
}

// TestNixSnippetOfJetPack6 parses the overlay printed for a full JetPack 6
// output with the real Nix parser: nixpkgs' redists (cuda, cudnn,
// tensorrt) go into manifests, the l4t manifest only into a comment.
func TestNixSnippetOfJetPack6(t *testing.T) {
	nix := testutil.RequireTool(t, "nix-instantiate")
	out := t.TempDir()
	convert(t, Options{JetPack: "6", Mirror: filepath.Join("..", "testdata", "sample-mirror"), Out: out, CacheDir: t.TempDir()})
	snippet, err := NixSnippet(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cudaPackages_12_6 = prev.cudaPackages_12_6.override", "cuda = final.lib.importJSON", "cudnn = final.lib.importJSON", "tensorrt = final.lib.importJSON", "# l4t ("} {
		if !strings.Contains(snippet, want) {
			t.Errorf("snippet lacks %q:\n%s", want, snippet)
		}
	}
	if strings.Contains(snippet, "l4t = final") {
		t.Errorf("the l4t manifest must not be handed to nixpkgs' CUDA package set")
	}
	if got, err := exec.Command(nix, "--parse", "-E", snippet).CombinedOutput(); err != nil {
		t.Fatalf("nix-instantiate --parse rejects the snippet: %v\n%s", err, got)
	}
}
