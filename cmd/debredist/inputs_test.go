package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/debredist/debredist/internal/testutil"
)

// TestFileArgumentsNotWaitedOn: every file the command line names is
// opened without blocking and refused unless it is a regular file: a named
// pipe given as the index, the deb to extract, a profile, a lock, a
// keyring, a provenance, a deb or a diff side ends the command at once
// with an error naming it (issue 37: index, extract and --profile waited on
// the FIFO, and the first SIGTERM did not end them).
func TestFileArgumentsNotWaitedOn(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	for _, args := range [][]string{
		{"index", fifo},
		{"index", "--file", fifo},
		{"extract", fifo, filepath.Join(dir, "x")},
		{"plan", "--profile", fifo},
		{"convert", "--profile", fifo, "--out", filepath.Join(dir, "out")},
		{"plan", "--lock", fifo, "--l4t", "r36.5", "--mirror", sampleMirror, "--cache", cache},
		{"plan", "--jetpack", "6", "--mirror", sampleMirror, "--cache", cache, "--keyring", fifo},
		{"build-archive", "--provenance", fifo, "--archive", "x", "--deb", fifo, "--out", filepath.Join(dir, "a.tar.xz")},
		{"diff", "--mirror", sampleMirror, "--cache", cache, fifo, "r36.5"},
	} {
		// A deadline only to end a hang: nothing here takes more than a
		// second when it works.
		code, out := runCLI(t, 20*time.Second, args...)
		if code == exitOK || !strings.Contains(out, "named pipe") {
			t.Errorf("debredist %s: exit %d, want an error naming the named pipe:\n%s", strings.Join(args, " "), code, out)
		}
	}
}

// TestNotAnOutputDirectory: verify, nix and sbom of a directory that holds
// no output say so in one line and exit 2, as for any directory named that is not
// what the command reads (issue 39 item 1: verify . printed
// 459 lines, verify /etc 756).
func TestNotAnOutputDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Must(t, os.WriteFile(filepath.Join(dir, "README"), []byte("x"), 0o644))
	testutil.Must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "a", "l")))
	for _, args := range [][]string{
		{"verify", dir},
		{"verify", "--nixpkgs", dir},
		{"verify", "--json", dir},
		{"nix", dir},
		{"sbom", dir},
	} {
		code, stdout, stderr := cli(t, args...)
		want := dir + " is not a debredist output directory (no redistrib_*.json, no .debredist)"
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
			t.Errorf(
				"debredist %s: exit %d, stdout %q, stderr %q; want exit 2 and one line %q",
				strings.Join(args, " "),
				code,
				stdout,
				stderr,
				want,
			)
		}
	}
}

// TestConvertIntoForeignDirectory: convert --out into a directory that is
// not empty and holds no output is refused unless --allow-nonempty-out
// says so; verify then names the files that are not debredist's instead
// of "all ok" (issue 39 item 7).
func TestConvertIntoForeignDirectory(t *testing.T) {
	out := t.TempDir()
	notes := filepath.Join(out, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{
		"convert",
		"--jetpack",
		"6",
		"--only",
		"cuda_cudart",
		"--mirror",
		sampleMirror,
		"--cache",
		t.TempDir(),
		"--out",
		out,
	}
	code, _, stderr := cli(t, args...)
	if code != exitUsage || !strings.Contains(stderr, "is not empty and holds no debredist output") ||
		!strings.Contains(stderr, "--allow-nonempty-out") {
		t.Errorf("convert into a foreign directory: exit %d, stderr %q", code, stderr)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Errorf("the refused run wrote into --out: %v", ents)
	}
	if code, _, stderr := cli(t, append(args, "--allow-nonempty-out")...); code != exitOK {
		t.Fatalf("convert --allow-nonempty-out: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine\n" {
		t.Errorf("the user's file changed: %q %v", b, err)
	}
	code, stdout, _ := cli(t, "verify", out)
	if code != exitFailure || !strings.Contains(stdout, "FAIL  notes.txt: a file debredist did not write") {
		t.Errorf("verify of an OUT holding a foreign file: exit %d:\n%s", code, stdout)
	}
	// Converting again into the OUT it now is needs no flag.
	if code, _, stderr := cli(t, args...); code != exitOK {
		t.Errorf("convert again: exit %d: %s", code, stderr)
	}
}
