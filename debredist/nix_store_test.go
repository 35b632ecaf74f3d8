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
	testutil.NixStoreLock(t) // it adds archives to the store
	if os.Getenv("NIX_CONFIG") == "" {
		t.Setenv("NIX_CONFIG", "build-users-group =")
	}
	out := t.TempDir()
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: filepath.Join("..", "testdata", "sample-mirror"), CacheDir: t.TempDir()},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: out, Only: []string{"cuda_cudart", "cudnn"}},
		},
	)
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
				want, err := exec.Command("nix-store", "--print-fixed-path", "sha256", pa.Artifact.SHA256, filepath.Base(file)).
					CombinedOutput()
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
	return runStandIn(t, "nixpkgs-eval.sh", cmd, out, plain, env...)
}

// runStandIn runs scripts/<script> (nixpkgs-eval.sh or nixpkgs-build.sh)
// on out with the stand-in as evalOverlay says; it returns the lines of
// its standard output and the exit code (its standard error is logged).
func runStandIn(t *testing.T, script, cmd, out string, plain bool, env ...string) ([]string, int) {
	t.Helper()
	args := []string{"../scripts/" + script, standIn + "/nixpkgs"}
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
		t.Logf("%s %v stderr:\n%s", script, env, stderr.String())
	}
	return strings.Split(strings.TrimSpace(string(o)), "\n"), code
}

// evalLines parses scripts/nixpkgs-eval.sh's output: one line per package
// and capability, then the summary.
type evalLine struct{ name, cap, verdict, rest string }

func parseEval(t *testing.T, set string, lines []string) (cells []evalLine, summary string) {
	t.Helper()
	for _, l := range lines {
		if strings.HasPrefix(l, "summary: ") {
			summary = l
			continue
		}
		head, rest, ok := strings.Cut(l, ": ")
		name, cap, ok2 := strings.Cut(strings.TrimPrefix(head, set+"."), " ")
		if !ok || !ok2 || !strings.HasPrefix(head, set+".") {
			t.Errorf("unexpected line %q", l)
			continue
		}
		verdict, rest, _ := strings.Cut(rest, " ")
		cells = append(cells, evalLine{name, cap, verdict, rest})
	}
	if summary == "" {
		t.Errorf("no summary line in %q", lines)
	}
	return cells, summary
}

// TestNixOverlayWithJetpackNixos evaluates the overlay `debredist nix`
// prints for JetPack 5, 6 and 7 conversions as a user applies it: after
// jetpack-nixos' overlay (itself after cuda-legacy's), in the stand-in of
// the three codebases, through scripts/nixpkgs-eval.sh, every package and
// device in its own evaluation. Every package the manifests provide must
// come from OUT's archive on every device, or fail only where verify
// --nixpkgs says nixpkgs itself does (cudnn_samples broken, libcudla on
// Thor, an insecure TensorRT until the explicit choice); cudnn_jit and
// cuda_compat_orin, which nixpkgs has no file for, evaluate too; JetPack
// 5's cuda_compat stays null and its libcusparse evaluates without
// libnvjitlink. Controls: without debredist's overlay, and for JetPack 5
// without the filter of jetpack-nixos' extension (then its debs win).
// JetPack 6 always; 5 and 7, a sweep, with DEBREDIST_LONG_TESTS=1 (CI).
func TestNixOverlayWithJetpackNixos(t *testing.T) {
	testutil.RequireTool(t, "nix-instantiate")
	testutil.RequireTool(t, "jq")
	bin := buildCLI(t)
	cache := t.TempDir()
	wrap := func(name, sedExpr string) string {
		p := filepath.Join(t.TempDir(), name)
		script := "#!/bin/sh\nif [ \"$1\" = nix ]; then " + bin + " \"$@\" | sed -e '" + sedExpr + "'; else exec " + bin +
			" \"$@\"; fi\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		jp, set     string
		insecure    string   // the permittedInsecurePackages name, if any
		mustHave    []string // packages that must evaluate from OUT
		plainAlsoOK bool     // plain nixpkgs (no jetpack-nixos, no cuda-legacy) has the set
	}{
		{
			jp:       "5",
			set:      "cudaPackages_11_4",
			insecure: "cuda11.4-tensorrt-8.5.2",
			mustHave: []string{"libcusparse", "cuda_cudart", "cudnn"},
		},
		{
			jp:          "6",
			set:         "cudaPackages_12_6",
			insecure:    "cuda12.6-tensorrt-10.3.0.30",
			plainAlsoOK: true,
			mustHave:    []string{"libnvfatbin", "cuda_compat"},
		},
		{
			jp:          "7",
			set:         "cudaPackages_13_2",
			plainAlsoOK: true,
			mustHave:    []string{"cudnn_jit", "cuda_compat_orin", "cuda_compat", "tensorrt", "cuda_nvtx"},
		},
	} {
		t.Run("jetpack"+tc.jp, func(t *testing.T) {
			if tc.jp != "6" && !testutil.Long() {
				t.Skip("the sweep over JetPack 5 and 7 (about 20 s of Nix evaluation) runs with DEBREDIST_LONG_TESTS=1, as CI does")
			}
			out := t.TempDir()
			mustConvert(
				t,
				Options{
					Source:  Source{Mirror: filepath.Join("..", "testdata", "sample-mirror"), CacheDir: cache},
					Release: Release{JetPack: tc.jp},
					Build:   Build{Out: out},
				},
			)
			r, err := Nix(context.Background(), out, NixOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d := decodeNixData(t, r.Data)
			if d.Set != tc.set || d.OwnSet != (tc.jp == "5") {
				t.Errorf("set %s, own set %v", d.Set, d.OwnSet)
			}
			switch tc.jp {
			case "5":
				if !slices.Equal(d.NullPackages, []string{"cuda_compat"}) ||
					!slices.Equal(d.Packages["libcusparse"].DropInputs, []string{"libnvjitlink"}) ||
					!slices.Equal(d.Packages["libcusolver"].DropInputs, []string{"libnvjitlink"}) {
					t.Errorf(
						"JetPack 5: null %v, libcusparse drops %v, libcusolver drops %v",
						d.NullPackages,
						d.Packages["libcusparse"].DropInputs,
						d.Packages["libcusolver"].DropInputs,
					)
				}
			case "7":
				if !slices.Contains(d.Packages["cuda_nvtx"].DropOutputs, "lib") || d.Packages["cudnn_jit"].Redist != "cudnn" {
					t.Errorf(
						"JetPack 7: cuda_nvtx drops %v, cudnn_jit %+v",
						d.Packages["cuda_nvtx"].DropOutputs,
						d.Packages["cudnn_jit"],
					)
				}
				if rel := d.Packages["cuda_compat"].Releases["linux-sbsa"].RelativePath; !strings.Contains(rel, "cuda13.2") {
					t.Errorf("cuda_compat's CUDA 13.2 archive is not stated for linux-sbsa: %q", rel)
				}
			}
			if h := d.Packages["libnvfatbin"].StubsHook; tc.jp != "5" && h == nil {
				t.Errorf("libnvfatbin's includeRemoveStubsFromRunpathHook is not stated")
			}
			if tc.insecure != "" &&
				!slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, `"`+tc.insecure+`"`) }) {
				t.Errorf("notes do not name %s for permittedInsecurePackages: %v", tc.insecure, r.Notes)
			}
			check := func(what string, lines []string, code int, from string, acceptInsecure bool, must ...string) {
				t.Helper()
				cells, summary := parseEval(t, tc.set, lines)
				got := map[string]bool{}
				for _, c := range cells {
					switch {
					case c.name == "cuda_compat" && tc.jp == "5":
						if c.verdict != "null" {
							t.Errorf("%s: JetPack 5 cuda_compat is not null: %+v", what, c)
						}
					case c.verdict == "ok":
						if !strings.Contains(c.rest, "src "+from) {
							t.Errorf("%s: %s %s is not built from OUT's archive: %s", what, c.name, c.cap, c.rest)
						}
						got[c.name] = true
					case c.verdict == "expected":
						switch {
						case c.name == "cudnn_samples", c.name == "libcudla" && c.cap == "11.0":
						case c.name == "tensorrt" && tc.insecure != "" && !acceptInsecure:
						default:
							t.Errorf("%s: %s %s does not evaluate: %s", what, c.name, c.cap, c.rest)
						}
					default:
						t.Errorf("%s: %s %s: %s %s", what, c.name, c.cap, c.verdict, c.rest)
					}
				}
				for _, n := range must {
					if !got[n] {
						t.Errorf("%s: %s does not evaluate from OUT", what, n)
					}
				}
				if len(cells) < len(must) || code != 0 || !strings.Contains(summary, " 0 failed, 0 not from OUT") {
					t.Errorf("%s: %d cells, exit %d, %s", what, len(cells), code, summary)
				}
			}
			// Every package on every device after jetpack-nixos; the other
			// runs evaluate every package only with DEBREDIST_LONG_TESTS
			// (each evaluation is a nix-instantiate of its own), else the
			// packages each run is about.
			some := "PACKAGES=" + strings.Join(tc.mustHave, " ")
			if testutil.Long() {
				some = "PACKAGES="
			}
			fileURL := "file://" + out + "/"
			storeDir := cmp.Or(os.Getenv("NIX_STORE_DIR"), "/nix/store") + "/"
			lines, code := evalOverlay(t, bin, out, false)
			check("after jetpack-nixos", lines, code, fileURL, false, tc.mustHave...)
			if len(lines) < 25 {
				t.Errorf("after jetpack-nixos: %d lines, want every package on every device", len(lines))
			}
			// The overlay of nix --derivations takes every archive from its
			// fixed-output derivation in the store.
			lines, code = evalOverlay(t, bin, out, false, "DEBREDIST_NIX_DERIVATIONS=1", "DEBREDIST_ACCEPT_INSECURE=1", some)
			check("nix --derivations, after jetpack-nixos", lines, code, storeDir, true, tc.mustHave...)
			if tc.plainAlsoOK {
				lines, code = evalOverlay(t, bin, out, true, some)
				check("plain nixpkgs", lines, code, fileURL, false, tc.mustHave...)
			}
			if tc.insecure != "" {
				lines, code = evalOverlay(t, bin, out, false, "DEBREDIST_ACCEPT_INSECURE=1", "PACKAGES=tensorrt")
				check("insecure TensorRT accepted", lines, code, fileURL, true, "tensorrt")
			}
			// Control: without debredist's overlay no package comes from OUT.
			lines, code = evalOverlay(t, bin, out, false, "DEBREDIST_NO_OVERLAY=1", some)
			cells, _ := parseEval(t, tc.set, lines)
			for _, c := range cells {
				if c.verdict == "ok" {
					t.Errorf("control without the overlay: %s %s evaluates from OUT: %s", c.name, c.cap, c.rest)
				}
			}
			if code != 1 {
				t.Errorf("control without the overlay: exit %d", code)
			}
			if tc.jp == "5" {
				// Control: without the filter, jetpack-nixos' extension
				// rebuilds the provided packages from its debs.
				lines, code = evalOverlay(
					t,
					wrap(
						"nofilter",
						"s/if data.own_set then map dropDebWrapped prevCuda.extensions else prevCuda.extensions/prevCuda.extensions/",
					),
					out,
					false,
					"PACKAGES=cuda_cudart libcublas cudnn",
				)
				fromDebs := 0
				for _, l := range lines {
					if strings.Contains(l, "NOT from OUT") && strings.Contains(l, "-normalizeDebs") {
						fromDebs++
					}
				}
				if fromDebs < 6 || code != 1 {
					t.Errorf(
						"control without the filter: %d packages from jetpack-nixos' debs, exit %d; the stand-in does not reproduce "+
							"its extension:\n%s",
						fromDebs,
						code,
						strings.Join(lines, "\n"),
					)
				}
			}
		})
	}
}

// TestStandInOverrideAttrsIsAFixedPoint shows the stand-in has nixpkgs'
// overrideAttrs semantics, which the earlier stand-in lacked: an override
// whose attribute names depend on prevAttrs (as the derivations overlay
// once had, lib.optionalAttrs (prevAttrs.src != null) { src = …; }, with
// buildRedist computing src from finalAttrs) recurses forever, and the
// same override with the condition in the value evaluates.
func TestStandInOverrideAttrsIsAFixedPoint(t *testing.T) {
	testutil.RequireTool(t, "nix-instantiate")
	if os.Getenv("NIX_CONFIG") == "" {
		t.Setenv("NIX_CONFIG", "build-users-group =")
	}
	eval := func(override string) (string, error) {
		expr := `let
		  pkgs = import ./` + standIn + `/nixpkgs { config = { allowUnfree = true; }; overlays = [ (final: prev: {
		    cudaPackages_12_6 = prev.cudaPackages_12_6 // { ` +
			`cuda_cudart = prev.cudaPackages_12_6.cuda_cudart.overrideAttrs (` + override + `); };
		  }) ]; };
		in pkgs.cudaPackages_12_6.cuda_cudart.src.name`
		o, err := exec.Command("nix-instantiate", "--eval", "--strict", "--expr", expr).CombinedOutput()
		return string(o), err
	}
	o, err := eval(`prevAttrs: final.lib.optionalAttrs ((prevAttrs.src or null) != null) { src = prevAttrs.src; }`)
	if err == nil || !strings.Contains(o, "infinite recursion") {
		t.Errorf("names that depend on prevAttrs: err %v, output %s; want infinite recursion as in nixpkgs", err, o)
	}
	o, err = eval(`prevAttrs: { src = if prevAttrs.src != null then prevAttrs.src else null; }`)
	if err != nil || !strings.Contains(o, "cuda_cudart-12.6.77-source") {
		t.Errorf("values that depend on prevAttrs: err %v, output %s", err, o)
	}
}
