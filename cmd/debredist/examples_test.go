package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

// exampleOrder is the order in which TestManPageExamplesRun runs the
// commands' examples (later ones use what earlier ones wrote: fetch writes
// jetpack6.lock, convert ./redist), and exampleSetup what the sandbox needs
// before a command's examples run, as bash. Every command is listed: a new
// command fails the test until its examples run too.
var (
	exampleOrder = []string{"version", "help", "profiles", "index", "extract", "fetch", "plan", "convert",
		"verify", "nix", "sbom", "diff", "inventory", "build-archive", "completion", "man"}
	exampleSetup = map[string]string{
		"index": `cp "$M/common/dists/r36.5/main/binary-arm64/Packages.gz" ` +
			`"$M/common/dists/r36.5/main/binary-arm64/Packages.xz" .`,
		"extract": `cp "$M/common/pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb" . && cp ` +
			`"$M/common/pool/main/c/cuda-cudart/cuda-driver-dev-12-6_12.6.68-1_arm64.deb" pkg.deb`,
		"diff": `cp jetpack6.lock jetpack6.lock.json && mkdir -p sourceinfo testdata && ln -s "$M" testdata/sample-mirror &&
			debredist inventory --quiet --l4t r36.4 -o sourceinfo/r36.4-debs.json`,
		"build-archive": `debredist convert --quiet --jetpack 6 --only cuda_cudart --out out >/dev/null`,
		"sbom":          `debredist convert --quiet --jetpack 6 --only cuda_cudart --out out >/dev/null`,
		"completion":    `mkdir -p ~/.local/share/bash-completion/completions ~/.zfunc ~/.config/fish/completions`,
		"man":           `mkdir -p ~/.local/share/man/man1`,
	}
)

// nixpkgsForExamples is the environment in which the examples' nix-build
// runs as written without a nixpkgs checkout (none can be fetched here): a
// <nixpkgs> whose callPackage gives the debredist under test as a store
// path (instead of building nix/package.nix), and Nix as root without
// build users, sandbox or substituters. Every archive is then built by
// this debredist through Nix, its hash checked against the manifest.
func nixpkgsForExamples(t *testing.T, shim string) []string {
	t.Helper()
	pkg, nixpkgs := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(pkg, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "bin", "debredist"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	def := "{ ... }: { callPackage = _: _: builtins.path { path = " + strconv.Quote(pkg) + "; name = \"debredist\"; }; }\n"
	if err := os.WriteFile(filepath.Join(nixpkgs, "default.nix"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{
		"NIX_PATH=nixpkgs=" + nixpkgs,
		"NIX_CONFIG=build-users-group =\nsubstituters =\nsandbox = false\n" + os.Getenv("NIX_CONFIG"),
	}
}

// exampleLines splits a command's example into the command lines a user
// would paste: continuation lines (ending in \) joined.
func exampleLines(example string) []string {
	var out []string
	cur := ""
	for _, l := range strings.Split(strings.TrimSpace(example), "\n") {
		cur += l
		if strings.HasSuffix(l, `\`) {
			cur = strings.TrimSuffix(cur, `\`)
			continue
		}
		out = append(out, strings.TrimSpace(cur))
		cur = ""
	}
	return out
}

// TestManPageExamplesRun (issue 31 item 7): every example of the manual
// page (each command's --help example) runs as written, with the sample
// mirror as $DEBREDIST_MIRROR, in a sandbox that is HOME, the cache and
// the working directory, and succeeds. Only nix-build needs Nix (and
// DEBREDIST_LONG_TESTS: it builds every archive).
func TestManPageExamplesRun(t *testing.T) {
	t.Parallel()
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	if got, want := slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(exampleOrder)); !slices.Equal(
		got,
		want,
	) {
		t.Fatalf("commands %v, but the examples are run for %v: add the new command to exampleOrder", got, want)
	}
	for _, tool := range []string{"bash", "jq", "gzip", "man"} {
		testutil.RequireTool(t, tool)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sandbox, bin := t.TempDir(), t.TempDir()
	shim := "#!/bin/sh\nDEBREDIST_TEST_AS_CLI=1 exec '" + exe + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "debredist"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	mirror, _ := filepath.Abs(sampleMirror)
	env := append(
		os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+sandbox,
		"XDG_CACHE_HOME="+filepath.Join(
			sandbox,
			".cache",
		),
		"DEBREDIST_MIRROR="+mirror,
		"M="+mirror,
		"MANPAGER=cat",
		"PAGER=cat",
		"MANWIDTH=80",
	)
	sh := func(t *testing.T, line string, extra ...string) string {
		t.Helper()
		cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", line)
		cmd.Dir, cmd.Env = sandbox, append(append([]string(nil), env...), extra...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s\n%v:\n%s", line, err, out)
		}
		return string(out)
	}
	for _, name := range exampleOrder {
		if s := exampleSetup[name]; s != "" {
			sh(t, s)
		}
		for _, line := range exampleLines(lookup(name).example) {
			t.Run(line, func(t *testing.T) {
				if strings.HasPrefix(line, "nix-build ") {
					testutil.RequireTool(t, "nix-build")
					if !testutil.Long() {
						t.Skip("builds every archive through Nix: only with DEBREDIST_LONG_TESTS=1")
					}
					testutil.NixStoreLock(t) // it fetches debs and builds archives in the store
					sh(t, line, nixpkgsForExamples(t, shim)...)
					// its result links are GC roots: gone at once, so that
					// no other test finds these archives alive
					sh(t, "rm -f result result-*")
					return
				}
				sh(t, line)
			})
		}
	}
}
