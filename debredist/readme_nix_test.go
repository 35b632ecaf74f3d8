package debredist

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

// readmeBlocks returns the shell blocks (indented code blocks whose every
// command starts with a command word: debredist, go, export, nix, nix-*,
// scripts/…, or an environment assignment) of the README section that
// starts at the heading line, up to the next heading of the same or a
// higher level; each block is its commands, continuation lines joined. A
// block that starts with "# needs: …" says what it needs beyond this
// machine (a remote builder, a served cache) and is not returned.
func readmeBlocks(t *testing.T, readme, heading string) [][]string {
	t.Helper()
	lines := strings.Split(readme, "\n")
	start := -1
	for i, l := range lines {
		if l == heading {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("README has no heading %q", heading)
	}
	level := len(heading) - len(strings.TrimLeft(heading, "#"))
	word := regexp.MustCompile(`^(?:[A-Z_]+=\S*\s+)*(debredist|go|export|nix|nix-[a-z]+|scripts/\S+|/tmp/debredist)\s`)
	var blocks [][]string
	var cur []string
	shell := true
	flush := func() {
		if len(cur) > 0 && shell {
			blocks = append(blocks, cur)
		}
		cur, shell = nil, true
	}
	cont := ""
	for _, l := range lines[start+1:] {
		if strings.HasPrefix(l, "#") && len(l)-len(strings.TrimLeft(l, "#")) <= level {
			break
		}
		if !strings.HasPrefix(l, "    ") {
			if strings.TrimSpace(l) != "" {
				flush()
			}
			continue
		}
		cmd := cont + strings.TrimSpace(l)
		if strings.HasPrefix(cmd, "# needs:") {
			// a block that says what it needs beyond this machine (a
			// remote builder, a served cache): not run here
			shell = false
			continue
		}
		if strings.HasSuffix(cmd, `\`) {
			cont = strings.TrimSuffix(cmd, `\`)
			continue
		}
		cont = ""
		if !word.MatchString(cmd + " ") {
			shell = false
		}
		cur = append(cur, cmd)
	}
	flush()
	return blocks
}

// clone copies the working tree's files that git would clone or add
// (tracked, and untracked ones not ignored) to a new directory: what a user
// has after cloning.
func clone(t *testing.T) string {
	t.Helper()
	testutil.RequireTool(t, "git")
	o, err := exec.Command("git", "-C", "..", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(o), "\x00"), "\x00") {
		src := filepath.Join("..", f)
		fi, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		} else if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err == nil {
				err = os.Symlink(target, dst)
			}
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(dst, b, fi.Mode().Perm())
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestReadmeInstall (issue 39 item 2): the README's install command works
// on a machine that has Go and a clone, offline (GOPROXY=off): a module
// path the proxy does not serve would not.
func TestReadmeInstall(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(t, string(readme), "## Install")
	if len(blocks) != 1 || len(blocks[0]) != 1 {
		t.Fatalf("the Install section's commands: %q, want one", blocks)
	}
	gobin := t.TempDir()
	c := exec.Command("bash", "-e", "-c", blocks[0][0])
	c.Dir = ".."
	c.Env = append(os.Environ(), "GOBIN="+gobin, "GOPROXY=off", "GOFLAGS=-mod=readonly") // never writes the clone's go.mod
	if o, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", blocks[0][0], err, o)
	}
	if o, err := exec.Command(filepath.Join(gobin, "debredist"), "version").CombinedOutput(); err != nil ||
		!strings.Contains(string(o), Version) {
		t.Errorf("the installed debredist version: %v %s", err, o)
	}
}

// TestReadmeNixCommands (issue 39 item 2): every shell block of the README's
// nixpkgs section (the archives built by Nix with nixpkgs' callPackage of
// nix/package.nix, scripts/nix-sample.sh, verify --nixpkgs and the
// overlay, nix flake check, the eval and build harnesses) runs as written,
// in order, in a clone, offline, with what the README says each needs: the
// sample mirror as DEBREDIST_MIRROR, the stand-in as <nixpkgs> (NIX_PATH),
// NIX_CONFIG without sandbox and substituters (and, as root here, without
// build users), debredist on PATH. Each command must succeed. With DEBREDIST_LONG_TESTS=1: it builds debredist
// in Nix with the host's Go (about 75 s of CPU) and every archive.
func TestReadmeNixCommands(t *testing.T) {
	if !testutil.Long() {
		t.Skip("builds debredist and every archive in Nix: only with DEBREDIST_LONG_TESTS=1")
	}
	nixBuildEnv(t)
	testutil.RequireTool(t, "nix")
	testutil.RequireTool(t, "bash")
	if _, err := os.Stat("/usr/local/go/bin/go"); err != nil {
		if os.Getenv("DEBREDIST_REQUIRE_TOOLS") == "1" {
			t.Fatalf("the stand-in's buildGoModule uses /usr/local/go/bin/go: %v", err)
		}
		t.Skipf("the stand-in's buildGoModule uses /usr/local/go/bin/go: %v", err)
	}
	testutil.NixStoreLock(t) // it builds in the store
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(t, string(readme), "### nixpkgs")
	var all []string
	for _, b := range blocks {
		all = append(all, b...)
	}
	for _, want := range []string{"nix-build redist.nix", "flake check", "scripts/nixpkgs-eval.sh",
		"scripts/nixpkgs-build.sh", "scripts/nix-sample.sh"} {
		if !strings.Contains(strings.Join(all, "\n"), want) {
			t.Errorf("the nixpkgs section has no command with %q: %q", want, all)
		}
	}
	dir := clone(t)
	bin := t.TempDir()
	if err := os.Symlink(buildCLI(t), filepath.Join(bin, "debredist")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"DEBREDIST_MIRROR="+filepath.Join(dir, "testdata", "sample-mirror"),
		"NIX_PATH=nixpkgs="+filepath.Join(dir, "debredist", "testdata", "nixstandin", "nixpkgs"),
		"XDG_CACHE_HOME="+t.TempDir())
	t.Cleanup(func() { _ = os.Remove("/tmp/debredist") })
	for _, b := range blocks {
		script := strings.Join(b, "\n")
		c := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
		c.Dir, c.Env = dir, env
		o, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s\n%v:\n%s", script, err, o)
		}
	}
}
