package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

// TestCompletion checks each shell's script with the shell itself, and
// asks bash and fish what they complete.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	script := func(shell string) string {
		code, stdout, stderr := cli(t, "completion", shell)
		if code != exitOK {
			t.Fatalf("completion %s: exit %d: %s", shell, code, stderr)
		}
		p := filepath.Join(dir, shell)
		if err := os.WriteFile(p, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(name string, args ...string) string {
		t.Helper()
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}

	bash := testutil.RequireTool(t, "bash")
	b := script("bash")
	run(bash, "-n", b)
	for line, want := range map[string]string{
		"COMP_WORDS=(debredist conv); COMP_CWORD=1":                     "convert",
		"COMP_WORDS=(debredist convert --jet); COMP_CWORD=2":            "--jetpack",
		"COMP_WORDS=(debredist convert --jetpack ''); COMP_CWORD=3":     "jetpack6",
		"COMP_WORDS=(debredist -v verify --nix); COMP_CWORD=3":          "--nixpkgs",
		"COMP_WORDS=(debredist convert --compress ''); COMP_CWORD=3":    "zstd",
		"COMP_WORDS=(debredist completion ''); COMP_CWORD=2":            "fish",
		"COMP_WORDS=(debredist profiles --json jet); COMP_CWORD=3":      "jetpack7.0",
		"COMP_WORDS=(debredist convert -o ''); COMP_CWORD=3; cd " + dir: "bash",
	} {
		got := run(bash, "-c", "source "+b+"; "+line+`; _debredist; printf '%s\n' "${COMPREPLY[@]}"`)
		if !strings.Contains("\n"+got, "\n"+want+"\n") {
			t.Errorf("bash %s: completions %q lack %q", line, got, want)
		}
	}

	run(testutil.RequireTool(t, "zsh"), "-n", script("zsh"))

	fish := testutil.RequireTool(t, "fish")
	f := script("fish")
	run(fish, "-n", f)
	for line, want := range map[string]string{
		"debredist conv":              "convert\tbuild redist archives",
		"debredist convert --jet":     "--jetpack\tselect the release",
		"debredist verify --nix":      "--nixpkgs\talso apply",
		"debredist convert --preset ": "4",
		// Files: a flag whose usage names a `file`, and path arguments.
		"debredist build-archive --deb ": "bash",
		"debredist verify ":              "bash",
	} {
		got := run(fish, "-c", "cd "+dir+"; source "+f+"; complete -C '"+line+"'")
		if !strings.Contains(got, want) {
			t.Errorf("fish %q: completions %q lack %q", line, got, want)
		}
	}

	if code, _, stderr := cli(t, "completion", "tcsh"); code != exitUsage ||
		!strings.Contains(stderr, `unknown shell "tcsh"`) {
		t.Errorf("completion tcsh: exit %d: %s", code, stderr)
	}
}

// TestManPage renders debredist(1) with groff, warnings as failures, and
// checks that it documents every command, the exit codes and the
// environment.
func TestManPage(t *testing.T) {
	code, page, stderr := cli(t, "man")
	if code != exitOK {
		t.Fatalf("man: exit %d: %s", code, stderr)
	}
	for _, c := range commands {
		if !strings.Contains(page, `.SS "`+roff(c.name)) {
			t.Errorf("the page lacks command %s", c.name)
		}
	}
	for _, want := range []string{"DEBREDIST_MIRROR", "SOURCE_DATE_EPOCH", ".SH EXIT STATUS", ".TP\n2\nusage error",
		"not there or not valid"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	groff := testutil.RequireTool(t, "groff")
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = strings.NewReader(page)
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("groff -ww: %v\n%s", err, out)
	}
}
