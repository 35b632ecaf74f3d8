package debredist

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

// buildLine is one line of scripts/nixpkgs-build.sh: a package on a
// device, and its verdict (built, FAILED, refused).
type buildLine struct{ name, cap, verdict, rest string }

var summaryRE = regexp.MustCompile(`^(\d+) built, (\d+) failed, (\d+) refused by nixpkgs$`)

// runBuild runs scripts/nixpkgs-build.sh on out as runStandIn does; it
// returns the package lines, the summary counts and the exit code, and
// fails the test on any other line.
func runBuild(t *testing.T, bin, out, set string, plain bool, env ...string) ([]buildLine, [3]int, int) {
	t.Helper()
	o, code := runStandIn(t, "nixpkgs-build.sh", bin, out, plain, append([]string{"JOBS=2"}, env...)...)
	var lines []buildLine
	var sum [3]int
	summary := false
	for _, l := range o {
		if m := summaryRE.FindStringSubmatch(l); m != nil {
			for i := range sum {
				sum[i], _ = strconv.Atoi(m[i+1])
			}
			summary = true
			continue
		}
		if strings.HasPrefix(l, "archives: ") {
			continue
		}
		head, rest, ok := strings.Cut(l, ": ")
		name, cap, ok2 := strings.Cut(strings.TrimPrefix(head, set+"."), " ")
		if !ok || !ok2 || !strings.HasPrefix(head, set+".") {
			t.Errorf("nixpkgs-build.sh %v: unexpected line %q", env, l)
			continue
		}
		verdict, rest, _ := strings.Cut(rest, " ")
		lines = append(lines, buildLine{name, cap, strings.TrimSuffix(verdict, ":"), rest})
	}
	if !summary {
		t.Fatalf("nixpkgs-build.sh %v: no summary line (exit %d):\n%s", env, code, strings.Join(o, "\n"))
	}
	return lines, sum, code
}

// nixBuildEnv makes the test's Nix build aarch64-linux derivations with
// the host's tools, as the stand-in needs (no build users, no sandbox, no
// substituters: nothing can be fetched here).
func nixBuildEnv(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"nix-build", "nix-store", "nix-instantiate", "jq", "patchelf", "readelf", "dpkg-deb",
		"tar", "xz", "aarch64-linux-gnu-gcc"} {
		testutil.RequireTool(t, tool)
	}
	t.Setenv(
		"NIX_CONFIG",
		"build-users-group =\nextra-platforms = aarch64-linux\nsandbox = false\nsubstituters =\n"+os.Getenv("NIX_CONFIG"),
	)
}

// knownBuildFailures are the cells that fail through every route, and why
// (the first error line must contain the text): none today.
var knownBuildFailures = map[string]map[string]string{}

// TestNixpkgsBuild realises, with the Nix Debian ships, the packages of the
// sample mirror's conversions through scripts/nixpkgs-build.sh against the
// stand-in (testdata/nixstandin, which builds: buildRedist's hook, the
// output split, the empty-output, FHS, dangling-link and stubs checks,
// auto-patchelf's NEEDED resolution, the package files' fixups), for
// aarch64-linux on every device of the release, through the three routes:
// the overlay of `debredist nix`, the overlay of `nix --derivations` (the
// archives built in Nix first) and a consumer that only swaps in OUT's
// manifests. Every package builds or is refused where nixpkgs itself
// refuses it (cudnn_samples broken, libcudla on Thor, cuda_compat null on
// JetPack 5), except knownBuildFailures, and the manifests alone fail only
// where the README says why (manifestsAloneFail).
// Controls show the harness fails: a deb with a dangling link, an
// nvcc.profile without the text cuda_nvcc.nix replaces and a library with
// a NEEDED no package provides each make exactly that package FAILED.
// JetPack 6 always (8 packages through the overlay, and the controls:
// about 25 s from an empty store, 10 s when the store has them); with
// DEBREDIST_LONG_TESTS=1 every package through the three routes, and
// JetPack 5 (after jetpack-nixos and cuda-legacy) and 7 too (about 3.5
// minutes more).
func TestNixpkgsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds CUDA packages in Nix: skipped with -short")
	}
	nixBuildEnv(t)
	testutil.NixStoreLock(t) // it builds in the store
	bin := buildCLI(t)
	cache := t.TempDir()
	for _, tc := range []struct {
		jp, set string
		plain   bool
		cells   int // packages x devices
	}{
		{jp: "6", set: "cudaPackages_12_6", plain: true, cells: 30},
		{jp: "5", set: "cudaPackages_11_4", cells: 52},
		{jp: "7", set: "cudaPackages_13_2", plain: true, cells: 80},
	} {
		t.Run("jetpack"+tc.jp, func(t *testing.T) {
			if tc.jp != "6" && !testutil.Long() {
				t.Skip("JetPack 5 and 7 (about a minute of Nix builds each) run with DEBREDIST_LONG_TESTS=1, as CI does")
			}
			out := t.TempDir()
			mustConvert(
				t,
				Options{
					Source:  Source{Mirror: sampleMirror, CacheDir: cache},
					Release: Release{JetPack: tc.jp},
					Build:   Build{Out: out},
				},
			)
			some := "PACKAGES=cuda_cudart libcublas libcusparse cudnn cuda_nvml_dev libnvfatbin cuda_nvcc tensorrt"
			if testutil.Long() {
				some = "PACKAGES="
			}
			for _, route := range []struct {
				name, env string
				long      bool // every route but the overlay, to keep the quick run quick
			}{
				{"overlay", "", false},
				{"derivations", "DEBREDIST_NIX_DERIVATIONS=1", true},
				{"manifests only", "DEBREDIST_MANIFESTS_ONLY=1", true},
			} {
				if route.long && !testutil.Long() {
					continue
				}
				lines, sum, code := runBuild(t, bin, out, tc.set, tc.plain, route.env, "DEBREDIST_ACCEPT_INSECURE=1", some)
				built, failed, refused := 0, 0, 0
				for _, l := range lines {
					built += b2i(l.verdict == "built")
					failed += b2i(l.verdict == "FAILED")
					refused += b2i(l.verdict == "refused")
					switch {
					case l.verdict == "built":
					case l.verdict == "refused" &&
						(l.name == "cudnn_samples" || l.name == "libcudla" && l.cap == "11.0" || l.name == "cuda_compat" && tc.jp == "5"):
					case l.verdict == "FAILED" && route.env == "DEBREDIST_MANIFESTS_ONLY=1" && manifestsAloneFail(tc.jp, l):
					case l.verdict == "FAILED" && knownBuildFailures[tc.jp][l.name] != "" &&
						strings.Contains(l.rest, knownBuildFailures[tc.jp][l.name]):
					default:
						t.Errorf("%s: %s %s: %s %s", route.name, l.name, l.cap, l.verdict, l.rest)
					}
				}
				if sum != [3]int{built, failed, refused} || (code == 0) != (failed == 0) {
					t.Errorf(
						"%s: summary %v, exit %d; the lines say %d built, %d failed, %d refused",
						route.name,
						sum,
						code,
						built,
						failed,
						refused,
					)
				}
				if testutil.Long() && len(lines) != tc.cells {
					t.Errorf("%s: %d cells, want %d (every package on every device)", route.name, len(lines), tc.cells)
				}
				if !testutil.Long() && len(lines) != 8 {
					t.Errorf("%s: %d cells, want the 8 packages asked for", route.name, len(lines))
				}
			}
		})
	}

	// The controls: debs a package's build must reject, converted from a
	// copy of the sample mirror, each package its own cell.
	t.Run("controls", func(t *testing.T) {
		mirror := t.TempDir()
		if err := os.CopyFS(mirror, os.DirFS(sampleMirror)); err != nil {
			t.Fatal(err)
		}
		lib := "usr/local/cuda-12.6/targets/aarch64-linux/lib/"
		// libcufft: a link to a file no deb ships.
		editDeb(t, mirror, "r36.5", "libcufft-12-6", func(root string) {
			if err := os.Symlink("libcufft_gone.so.11.2.6.59", filepath.Join(root, lib, "libcufft_gone.so.11")); err != nil {
				t.Fatal(err)
			}
		})
		// libcurand: its library NEEDs a soname no package has.
		editDeb(t, mirror, "r36.5", "libcurand-12-6", func(root string) {
			o, err := exec.Command("patchelf", "--add-needed", "libnot-in-any-package.so.1",
				filepath.Join(root, lib, "libcurand.so.10.3.7.68")).CombinedOutput()
			if err != nil {
				t.Fatalf("patchelf: %v\n%s", err, o)
			}
		})
		// cuda_nvcc: a profile without $(_TARGET_SIZE_), which
		// cuda_nvcc.nix replaces on every CUDA version.
		editDeb(t, mirror, "r36.5", "cuda-nvcc-12-6", func(root string) {
			p := filepath.Join(root, "usr/local/cuda-12.6/bin/nvcc.profile")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte("$(_TARGET_SIZE_)")) {
				t.Fatalf("the sample's nvcc.profile has no $(_TARGET_SIZE_) to take out:\n%s", b)
			}
			if err := os.WriteFile(p, bytes.ReplaceAll(b, []byte("$(_TARGET_SIZE_)"), nil), 0o644); err != nil {
				t.Fatal(err)
			}
		})
		out := t.TempDir()
		mustConvert(
			t,
			Options{
				Source:  Source{Mirror: mirror, CacheDir: t.TempDir(), AllowUnverifiedIndex: true},
				Release: Release{JetPack: "6"},
				Build:   Build{Out: out, Only: []string{"cuda_cudart", "cuda_nvcc", "libcufft", "libcurand"}},
			},
		)
		lines, sum, code := runBuild(t, bin, out, "cudaPackages_12_6", true)
		want := map[string]string{
			"cuda_cudart": "",
			"libcufft":    "dangling",
			"libcurand":   "libnot-in-any-package.so.1",
			"cuda_nvcc":   "pattern $(_TARGET_SIZE_) doesn't match",
		}
		for _, l := range lines {
			w, ok := want[l.name]
			switch {
			case !ok:
				t.Errorf("control: unexpected package %s", l.name)
			case w == "" && l.verdict != "built":
				t.Errorf("control: %s does not build: %s %s", l.name, l.verdict, l.rest)
			case w != "" && (l.verdict != "FAILED" || !strings.Contains(l.rest, w)):
				t.Errorf("control: %s: %s %s, want FAILED with %q", l.name, l.verdict, l.rest, w)
			}
			delete(want, l.name)
		}
		if len(want) > 0 || sum != [3]int{1, 3, 0} || code != 1 {
			t.Errorf("control: packages without a line %v, summary %v, exit %d", want, sum, code)
		}
	})
}

// manifestsAloneFail says whether a cell of the manifests-alone route fails
// for a reason only debredist's overlay addresses (the README names each):
// on JetPack 5, jetpack-nixos' CUDA 11.4 extension rebuilds the packages from
// its own debs, and libcusparse takes libnvjitlink, which CUDA 11.4 lacks
// (packages/libcusparse.nix@2973b267), and so does libcusolver, through
// libcusparse; on JetPack 7, cuda_compat's
// cuda13.2 variant is unknown to _mkCudaVariant, nixpkgs has no file for
// cudnn_jit and cuda_compat_orin, and cuda_nvtx declares a lib output the
// header-only CUDA 13 NVTX cannot fill.
func manifestsAloneFail(jp string, l buildLine) bool {
	switch jp {
	case "5":
		return strings.HasPrefix(l.rest, "src is not OUT's archive: ") &&
			strings.HasSuffix(l.rest, "-normalizeDebs (1 problem(s))") ||
			(l.name == "libcusparse" || l.name == "libcusolver") &&
				strings.Contains(l.rest, "‘cuda11.4-libnvjitlink-0-unsupported’ is not available")
	case "7":
		switch l.name {
		case "cuda_compat":
			return strings.Contains(l.rest, "‘cuda13.2-cuda_compat-") &&
				strings.Contains(l.rest, "is not available on the requested hostPlatform")
		case "cudnn_jit", "cuda_compat_orin":
			return strings.Contains(l.rest, "attribute '"+l.name+"' missing")
		case "cuda_nvtx":
			// checkCudaFhsRefs greps the missing lib output before
			// checkCudaNonEmptyOutputs names it, as the real hook does.
			return strings.Contains(l.rest, "detected empty (excluding nix-support) outputs: lib") ||
				strings.Contains(l.rest, "-cuda_nvtx-13.2.75-lib: No such file or directory")
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// editDeb rewrites the deb of package pkg in the common repo of mirror (a
// copy) with edit applied to its unpacked tree (dpkg-deb -R, then -b), and
// its stanza in the suite's Packages index to match; the suite's other
// index files and its Release go (the conversion then needs
// AllowUnverifiedIndex).
func editDeb(t *testing.T, mirror, suite, pkg string, edit func(root string)) {
	t.Helper()
	dists := filepath.Join(mirror, "common", "dists", suite)
	index := filepath.Join(dists, "main", "binary-arm64", "Packages")
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	stanzas := strings.Split(string(b), "\n\n")
	i := slices.IndexFunc(stanzas, func(s string) bool { return strings.HasPrefix(s, "Package: "+pkg+"\n") })
	if i < 0 {
		t.Fatalf("%s lists no %s", index, pkg)
	}
	filename := regexp.MustCompile(`(?m)^Filename: (.*)$`).FindStringSubmatch(stanzas[i])
	if filename == nil {
		t.Fatalf("%s: %s has no Filename", index, pkg)
	}
	deb := filepath.Join(mirror, "common", filepath.FromSlash(filename[1]))
	root := filepath.Join(t.TempDir(), "root")
	if o, err := exec.Command("dpkg-deb", "-R", deb, root).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -R %s: %v\n%s", deb, err, o)
	}
	edit(root)
	if o, err := exec.Command("dpkg-deb", "--root-owner-group", "-b", root, deb).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -b %s: %v\n%s", deb, err, o)
	}
	nb, err := os.ReadFile(deb)
	if err != nil {
		t.Fatal(err)
	}
	s256, s1, m5 := sha256.Sum256(nb), sha1.Sum(nb), md5.Sum(nb)
	for field, value := range map[string]string{
		"Size":   strconv.Itoa(len(nb)),
		"SHA256": hex.EncodeToString(s256[:]),
		"SHA1":   hex.EncodeToString(s1[:]),
		"MD5sum": hex.EncodeToString(m5[:]),
	} {
		stanzas[i] = regexp.MustCompile(`(?m)^`+field+`: .*$`).ReplaceAllLiteralString(stanzas[i], field+": "+value)
	}
	if err := os.WriteFile(index, []byte(strings.Join(stanzas, "\n\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(dists, "Release"), index + ".gz", index + ".xz"} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}
