package debredist

import (
	"cmp"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/debredist/verify"
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
	convert(t, Options{Source: Source{Mirror: filepath.Join("..", "testdata", "sample-mirror"), CacheDir: t.TempDir()}, Release: Release{JetPack: "6"}, Build: Build{Out: out, Only: []string{"cuda_cudart", "cudnn"}}})
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
		m, err := redist.ReadManifest(f)
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
	if rep, err := verify.Dir(context.Background(), out); err != nil || rep.Err() != nil {
		t.Fatal(err, rep.Err())
	}
}

// standIn is the stand-in for nixpkgs, jetpack-nixos and cuda-legacy
// (testdata/nixstandin/README.md says what it reproduces).
const standIn = "testdata/nixstandin"

// evalOverlay runs scripts/nixpkgs-eval.sh on out with the stand-in (and
// jetpack-nixos' and cuda-legacy's stand-ins unless plain), the debredist
// command being cmd; it returns the lines and the exit code.
func evalOverlay(t *testing.T, cmd, out string, plain bool, env ...string) ([]string, int) {
	t.Helper()
	args := []string{"../scripts/nixpkgs-eval.sh", standIn + "/nixpkgs"}
	if !plain {
		args = append(args, standIn+"/jetpack-nixos", standIn+"/cuda-legacy")
	}
	c := exec.Command("sh", append(args, out)...)
	c.Env = append(append(os.Environ(), "DEBREDIST="+cmd), env...)
	if os.Getenv("NIX_CONFIG") == "" {
		c.Env = append(c.Env, "NIX_CONFIG=build-users-group =")
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	o, err := c.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if stderr.Len() > 0 {
		t.Logf("nixpkgs-eval.sh stderr:\n%s", stderr.String())
	}
	return strings.Split(strings.TrimSpace(string(o)), "\n"), code
}

// TestNixOverlayWithJetpackNixos evaluates the overlay `debredist nix`
// prints for JetPack 5, 6 and 7 conversions as a user applies it: after
// jetpack-nixos' overlay (itself after cuda-legacy's), in the stand-in of
// the three codebases, through scripts/nixpkgs-eval.sh. The script
// evaluates once per CUDA capability of the release, but the stand-in
// does not model config.cudaCapabilities, so each capability evaluates
// the same packages here: which devices a package is unavailable on
// (platformAssertions) is tested by TestVerifyNixpkgsJetPacks, not here.
// Every package the manifests provide must come from OUT's archive
// (jetpack-nixos' 11.4 extension rebuilds JetPack 5's from its own debs
// unless the overlay drops it, which the control run shows), JetPack 5's
// cuda_compat stays null, and TensorRT 8.5 and 10.3 evaluate only after
// the explicit choice the overlay offers (CVE-2026-24188).
func TestNixOverlayWithJetpackNixos(t *testing.T) {
	testutil.RequireTool(t, "nix-instantiate")
	testutil.RequireTool(t, "jq")
	bin := buildCLI(t)
	cache := t.TempDir()
	wrap := func(name, sedExpr string) string {
		p := filepath.Join(t.TempDir(), name)
		script := "#!/bin/sh\nif [ \"$1\" = nix ]; then " + bin + " \"$@\" | sed -e '" + sedExpr + "'; else exec " + bin + " \"$@\"; fi\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		jp, set     string
		insecure    string // the permittedInsecurePackages name, if any
		contains    []string
		lacks       []string
		plainAlsoOK bool // plain nixpkgs (no jetpack-nixos, no cuda-legacy) has the set
	}{
		{jp: "5", set: "cudaPackages_11_4", insecure: "cuda11.4-tensorrt-8.5.2",
			contains: []string{"dropDebWrapped = extension:", "extensions = map dropDebWrapped prevCuda.extensions ++ [ ourExtension ];", "cuda_compat = null;",
				"# INSECURE: tensorrt 8.5.2 is below 10.16.1: CVE-2026-24188: OOB write.", "acceptInsecureTensorRT = false;", "cudaPackages_11 = prev.cudaPackages_11 or final.cudaPackages_11_4;"}},
		{jp: "6", set: "cudaPackages_12_6", insecure: "cuda12.6-tensorrt-10.3.0.30", plainAlsoOK: true,
			contains: []string{"# INSECURE: tensorrt 10.3.0.30 is below 10.16.1", `cudaPackages_12_6 = ((prev.cudaPackages_12_6 or prev.cudaPackages_12).override`},
			lacks:    []string{"dropDebWrapped", "cuda_compat = null"}},
		{jp: "7", set: "cudaPackages_13_2", plainAlsoOK: true,
			contains: []string{`cuda_nvtx = prevCudaPackages.cuda_nvtx.overrideAttrs (prevAttrs: { outputs = lib.remove "lib" (prevAttrs.outputs); });`},
			lacks:    []string{`lib.remove "samples"`, "INSECURE", "acceptInsecureTensorRT", "dropDebWrapped"}},
	} {
		t.Run("jetpack"+tc.jp, func(t *testing.T) {
			out := t.TempDir()
			convert(t, Options{Source: Source{Mirror: filepath.Join("..", "testdata", "sample-mirror"), CacheDir: cache}, Release: Release{JetPack: tc.jp}, Build: Build{Out: out}})
			snippet, err := Nix(context.Background(), out, NixOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range append(tc.contains, "Rules as read in nixpkgs 1ac181a1 (jetpack-nixos 4d857d6d pins 714a5f8c).") {
				if !strings.Contains(snippet, want) {
					t.Errorf("snippet lacks %q:\n%s", want, snippet)
				}
			}
			for _, bad := range tc.lacks {
				if strings.Contains(snippet, bad) {
					t.Errorf("snippet has %q", bad)
				}
			}
			if tc.insecure != "" && !strings.Contains(snippet, `permittedInsecurePackages = [ "`+tc.insecure+`" ];`) {
				t.Errorf("snippet does not name %s for permittedInsecurePackages", tc.insecure)
			}
			from := "file://" + out + "/"
			check := func(what string, lines []string, code int, acceptInsecure bool) {
				t.Helper()
				n := 0
				for _, l := range lines {
					if !strings.HasPrefix(l, tc.set+".") {
						t.Errorf("%s: unexpected line %q", what, l)
						continue
					}
					n++
					name, _, _ := strings.Cut(strings.TrimPrefix(l, tc.set+"."), " ")
					switch {
					case name == "cuda_compat" && tc.jp == "5":
						if !strings.HasSuffix(l, ": null (set so by an overlay: cuda_compat on JetPack 5)") {
							t.Errorf("%s: JetPack 5 cuda_compat is not null: %s", what, l)
						}
					case name == "tensorrt" && tc.insecure != "" && !acceptInsecure:
						if !strings.Contains(l, "not evaluated") {
							t.Errorf("%s: an insecure TensorRT evaluated without the choice: %s", what, l)
						}
					default:
						if !strings.Contains(l, ".drv src "+from) || !strings.Contains(l, "-archive.tar.xz") || strings.Contains(l, "NOT from OUT") {
							t.Errorf("%s: %s is not built from OUT's archive: %s", what, name, l)
						}
					}
				}
				if n < 20 || code != 0 {
					t.Errorf("%s: %d package lines, exit %d", what, n, code)
				}
			}
			lines, code := evalOverlay(t, bin, out, false)
			check("after jetpack-nixos", lines, code, false)
			// The overlay of nix --derivations takes every archive from its
			// fixed-output derivation in the store.
			from = cmp.Or(os.Getenv("NIX_STORE_DIR"), "/nix/store") + "/"
			lines, code = evalOverlay(t, bin, out, false, "DEBREDIST_NIX_DERIVATIONS=1")
			check("nix --derivations, after jetpack-nixos", lines, code, false)
			from = "file://" + out + "/"
			if tc.plainAlsoOK {
				lines, code = evalOverlay(t, bin, out, true)
				check("plain nixpkgs", lines, code, false)
			}
			if tc.insecure != "" {
				lines, code = evalOverlay(t, wrap("accept", "s/acceptInsecureTensorRT = false;/acceptInsecureTensorRT = true;/"), out, false)
				check("insecure TensorRT accepted", lines, code, true)
			}
			if tc.jp == "5" {
				// Control: without the filter, jetpack-nixos' extension
				// rebuilds the provided packages from its debs.
				lines, code = evalOverlay(t, wrap("nofilter", "s/map dropDebWrapped prevCuda.extensions/prevCuda.extensions/"), out, false)
				fromDebs := 0
				for _, l := range lines {
					if strings.Contains(l, "NOT from OUT") && strings.Contains(l, "src normalizeDebs") {
						fromDebs++
					}
				}
				if fromDebs < 15 || code != 1 {
					t.Errorf("control without the filter: %d packages from jetpack-nixos' debs, exit %d; the stand-in does not reproduce its extension:\n%s", fromDebs, code, strings.Join(lines, "\n"))
				}
			}
		})
	}
}
