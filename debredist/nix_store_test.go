package debredist

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
		for _, name := range slices.Sorted(maps.Keys(m.Components)) {
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

// mockNixpkgs evaluates an overlay snippet with Nix 2.8 against a stand-in
// for the parts of nixpkgs it touches (_cuda.extend, _cuda.lib.mkRedistUrl,
// cudaPackages_X[_Y].override, overrideScope, overrideAttrs, callPackage of
// _cuda.bootstrapData.cudaPackagesPath, lib.importJSON, lib.remove). It
// cannot evaluate nixpkgs itself (Nix >= 2.18 needed), but it checks that the
// snippet is an overlay whose attributes compose as nixpkgs composes them.
const mockNixpkgs = `
let
  overlay = import @SNIPPET@;
  lib = { importJSON = f: builtins.fromJSON (builtins.readFile f); remove = e: builtins.filter (x: x != e); };
  pkg = name: {
    inherit name;
    outputs = [ "out" "bin" "dev" "include" "lib" "samples" "static" "stubs" ];
    overrideAttrs = g: pkg name // { outputs = (g (pkg name)).outputs; };
  };
  mkSet = manifests:
    let
      names = builtins.concatLists (map builtins.attrNames (builtins.attrValues manifests));
      self = builtins.listToAttrs (map (n: { name = n; value = pkg n; }) names) // {
        inherit manifests;
        overrideScope = f: self // f self self;
        override = f: mkSet (f { inherit manifests; }).manifests;
      };
    in self;
  nvidiaManifests = { cusparselt = { release_label = "0.7.1"; }; };
  prevCuda = {
    lib.mkRedistUrl = redistName: relativePath: "https://developer.download.nvidia.com/compute/${redistName}/redist/${relativePath}";
    bootstrapData.cudaPackagesPath = "cuda-modules";
  };
  prev = {
    _cuda = prevCuda // { extend = f: let r = prevCuda // f r prevCuda; in r; };
    cudaPackages_12 = mkSet nvidiaManifests;
    cudaPackages_12_6 = mkSet nvidiaManifests;
    cudaPackages_13 = mkSet nvidiaManifests;
  };
  final = prev // result // {
    inherit lib;
    callPackage = path: args: assert path == "cuda-modules"; mkSet args.manifests;
  };
  result = overlay final prev;
  set = result.@SET@;
in {
  url = result._cuda.lib.mkRedistUrl "@REDIST@" "@REL@";
  other = result._cuda.lib.mkRedistUrl "cuda" "cuda_foo/linux-sbsa/foo.tar.xz";
  label = set.manifests.cuda.release_label;
  nvidiaKept = set.manifests ? cusparselt;
  compatNull = set.cuda_compat == null;
  tensorrtOutputs = set.tensorrt.outputs;
  nvtxOutputs = set.cuda_nvtx.outputs;
}
`

// TestNixSnippetOfJetPacks tries the printed overlay of JetPack 5, 6 and 7
// conversions as a user would, as far as Nix 2.8 allows: it parses, and
// evaluated against a stand-in for nixpkgs it names the right package set,
// hands over the manifests (keeping nixpkgs' others), sends exactly these
// archives to file:// URLs into OUT (tensorrt included) and everything else
// to nixpkgs' own URLs, and overrides the outputs the debs leave empty.
func TestNixSnippetOfJetPacks(t *testing.T) {
	nix := testutil.RequireTool(t, "nix-instantiate")
	if os.Getenv("NIX_CONFIG") == "" {
		t.Setenv("NIX_CONFIG", "build-users-group =")
	}
	cache := t.TempDir()
	for _, tc := range []struct {
		jp, set, label, trtRel string
		contains, lacks        []string
		compatNull             bool
		trtOutputs, nvtxOutput string
	}{
		{jp: "5", set: "cudaPackages_11_4", label: "11.4.298", trtRel: "tensorrt/linux-aarch64/tensorrt-linux-aarch64-8.5.2_cuda11-archive.tar.xz",
			contains:   []string{"nixpkgs itself cannot take these manifests", "cudaPackages_11_4 = (final.callPackage final._cuda.bootstrapData.cudaPackagesPath { inherit manifests; })", "cuda_compat = null;"},
			lacks:      []string{"verify --nixpkgs finds problems"},
			compatNull: true, trtOutputs: "out bin dev include lib samples static stubs", nvtxOutput: "out bin dev include lib samples static stubs"},
		{jp: "6", set: "cudaPackages_12_6", label: "12.6.68", trtRel: "tensorrt/linux-aarch64/tensorrt-linux-aarch64-10.3.0.30_cuda12-archive.tar.xz",
			contains:   []string{"cudaPackages_12_6 = ((prev.cudaPackages_12_6 or prev.cudaPackages_12).override", "# l4t ("},
			lacks:      []string{"verify --nixpkgs finds problems", "l4t = lib", "overrideScope", "cuda_compat = null"},
			trtOutputs: "out bin dev include lib samples static stubs", nvtxOutput: "out bin dev include lib samples static stubs"},
		{jp: "7", set: "cudaPackages_13_2", label: "13.2.75", trtRel: "tensorrt/linux-sbsa/tensorrt-linux-sbsa-10.16.2.10_cuda13-archive.tar.xz",
			contains:   []string{"cudaPackages_13_2 = ((prev.cudaPackages_13_2 or prev.cudaPackages_13).override", `tensorrt = cprev.tensorrt.overrideAttrs (prevAttrs: { outputs = lib.remove "samples" (prevAttrs.outputs); });`},
			lacks:      []string{"verify --nixpkgs finds problems", "cuda_compat = null"},
			trtOutputs: "out bin dev include lib static stubs", nvtxOutput: "out bin dev include samples static stubs"},
	} {
		t.Run("jetpack"+tc.jp, func(t *testing.T) {
			out := t.TempDir()
			convert(t, Options{JetPack: tc.jp, Mirror: filepath.Join("..", "testdata", "sample-mirror"), Out: out, CacheDir: cache})
			snippet, err := NixSnippet(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.contains {
				if !strings.Contains(snippet, want) {
					t.Errorf("snippet lacks %q:\n%s", want, snippet)
				}
			}
			for _, bad := range tc.lacks {
				if strings.Contains(snippet, bad) {
					t.Errorf("snippet has %q:\n%s", bad, snippet)
				}
			}
			file := filepath.Join(t.TempDir(), "overlay.nix")
			if err := os.WriteFile(file, []byte(snippet), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, err := exec.Command(nix, "--parse", file).CombinedOutput(); err != nil {
				t.Fatalf("nix-instantiate --parse rejects the snippet: %v\n%s\n%s", err, got, snippet)
			}
			expr := strings.NewReplacer("@SNIPPET@", file, "@SET@", tc.set, "@REDIST@", "tensorrt", "@REL@", tc.trtRel).Replace(mockNixpkgs)
			got, err := exec.Command(nix, "--eval", "--strict", "--json", "--expr", expr).Output()
			if err != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				t.Fatalf("evaluating the overlay: %v\n%s\n%s", err, stderr, snippet)
			}
			var r struct {
				URL, Other, Label            string
				NvidiaKept, CompatNull       bool
				TensorrtOutputs, NvtxOutputs []string
			}
			if err := json.Unmarshal(got, &r); err != nil {
				t.Fatal(err)
			}
			wantURL := "file://" + filepath.ToSlash(out) + "/tensorrt/redist/" + tc.trtRel
			if r.URL != wantURL {
				t.Errorf("tensorrt URL %s, want %s", r.URL, wantURL)
			}
			if _, err := os.Stat(strings.TrimPrefix(r.URL, "file://")); err != nil {
				t.Errorf("the URL names no file: %v", err)
			}
			if r.Other != "https://developer.download.nvidia.com/compute/cuda/redist/cuda_foo/linux-sbsa/foo.tar.xz" {
				t.Errorf("an archive not in OUT must keep nixpkgs' URL, got %s", r.Other)
			}
			if r.Label != tc.label || r.CompatNull != tc.compatNull {
				t.Errorf("label %s compat null %v, want %s %v", r.Label, r.CompatNull, tc.label, tc.compatNull)
			}
			if tc.jp != "5" && !r.NvidiaKept {
				t.Error("nixpkgs' other manifests are dropped")
			}
			if strings.Join(r.TensorrtOutputs, " ") != tc.trtOutputs || strings.Join(r.NvtxOutputs, " ") != tc.nvtxOutput {
				t.Errorf("outputs after the overrides: tensorrt %v, cuda_nvtx %v", r.TensorrtOutputs, r.NvtxOutputs)
			}
		})
	}
}
