package debredist

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

// TestNixPackage: nix/package.nix builds this version, and its vendorHash
// is the NAR hash of `go mod vendor` (what buildGoModule checks), so that
// the package stays buildable as go.mod changes.
func TestNixPackage(t *testing.T) {
	nixHash := testutil.RequireTool(t, "nix-hash")
	src, err := os.ReadFile(filepath.Join("..", "nix", "package.nix"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `version = "`+Version+`";`) {
		t.Errorf("nix/package.nix does not say version %s", Version)
	}
	m := regexp.MustCompile(`vendorHash = "sha256-([A-Za-z0-9+/=]+)";`).FindSubmatch(src)
	if m == nil {
		t.Fatal("nix/package.nix has no vendorHash")
	}
	raw, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	vendor := filepath.Join(t.TempDir(), "vendor")
	c := exec.Command("go", "mod", "vendor", "-o", vendor)
	c.Dir = ".."
	if o, err := c.CombinedOutput(); err != nil {
		t.Fatalf("go mod vendor: %v\n%s", err, o)
	}
	o, err := exec.Command(nixHash, "--type", "sha256", vendor).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(o)); got != hex.EncodeToString(raw) {
		t.Errorf(
			"nix/package.nix vendorHash is sha256 %s, go mod vendor's NAR hash is %s: update it (sha256-%s)",
			hex.EncodeToString(raw),
			got,
			base64.StdEncoding.EncodeToString(mustHex(got)),
		)
	}
}

func mustHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

// TestFlake evaluates flake.nix with the Nix Debian ships, its nixpkgs
// input replaced by the stand-in (--override-input): the package is this
// version, and lib.redistOverlay turns the file of `debredist nix
// --derivations` into the overlay, whose packages unpack the archives'
// derivations (each running this flake's debredist build-archive).
func TestFlake(t *testing.T) {
	nix := testutil.RequireTool(t, "nix")
	if os.Getenv("NIX_CONFIG") == "" {
		t.Setenv("NIX_CONFIG", "build-users-group =")
	}
	repo, _ := filepath.Abs("..")
	standin, _ := filepath.Abs(standIn + "/nixpkgs")
	eval := func(attr, apply string) string {
		t.Helper()
		args := []string{
			"--extra-experimental-features",
			"nix-command flakes",
			"eval",
			"--json",
			"--impure",
			"--no-write-lock-file",
			"--override-input",
			"nixpkgs",
			"path:" + standin,
			"path:" + repo + "#" + attr,
		}
		if apply != "" {
			args = append(args, "--apply", apply)
		}
		c := exec.Command(nix, args...)
		var stderr strings.Builder
		c.Stderr = &stderr
		o, err := c.Output()
		if err != nil {
			t.Fatalf("nix eval %s: %v\n%s", attr, err, stderr.String())
		}
		return strings.TrimSpace(string(o))
	}
	if got := eval("packages.x86_64-linux.default.name", ""); got != `"debredist-`+Version+`"` {
		t.Errorf("packages.default is %s, want debredist-%s", got, Version)
	}
	if got := eval("checks.aarch64-linux", "c: builtins.attrNames c"); got != `["debredist"]` {
		t.Errorf("checks: %s", got)
	}
	out := t.TempDir()
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: sampleMirror, CacheDir: t.TempDir()},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: out, Only: []string{"cuda_cudart", "cudnn"}},
		},
	)
	r, err := Nix(context.Background(), out, NixOptions{Derivations: true})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "redist.nix")
	if err := os.WriteFile(file, []byte(r.Text), 0o644); err != nil {
		t.Fatal(err)
	}
	// A flake of the user's, which keeps redist.nix, evaluated purely.
	user := t.TempDir()
	if err := os.WriteFile(filepath.Join(user, "redist.nix"), []byte(r.Text), 0o644); err != nil {
		t.Fatal(err)
	}
	flake := `{
	  inputs.nixpkgs.url = "path:` + standin + `";
	  inputs.debredist.url = "path:` + repo + `";
	  inputs.debredist.inputs.nixpkgs.follows = "nixpkgs";
	  outputs = { self, nixpkgs, debredist }: {
	    result = let
	      pkgs = import nixpkgs { system = "aarch64-linux"; config = { allowUnfree = true; }; ` +
		`overlays = [ (debredist.lib.redistOverlay ./redist.nix) ]; };
	      a = pkgs.cudaPackages_12_6.cuda_cudart.src.src;
	    in [ a.name (builtins.elemAt a.args 1) (builtins.baseNameOf a.builder) ` +
		`pkgs.cudaPackages_12_6.cudnn.src.src.name a.system ];
	  };
	}`
	if err := os.WriteFile(filepath.Join(user, "flake.nix"), []byte(flake), 0o644); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(
		nix,
		"--extra-experimental-features",
		"nix-command flakes",
		"eval",
		"--json",
		"--no-write-lock-file",
		"path:"+user+"#result",
	)
	var stderr strings.Builder
	c.Stderr = &stderr
	o, err := c.Output()
	if err != nil {
		t.Fatalf("nix eval (pure) of a flake using lib.redistOverlay: %v\n%s", err, stderr.String())
	}
	got := strings.TrimSpace(string(o))
	want := `["cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz","build-archive","debredist",` +
		`"cudnn-linux-aarch64-9.3.0.75_cuda12-archive.tar.xz","aarch64-linux"]`
	if got != want {
		t.Errorf("lib.redistOverlay: %s, want %s", got, want)
	}
}
