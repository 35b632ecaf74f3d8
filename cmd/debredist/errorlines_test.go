package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// progressPrefixes start the lines of progress (stages, notes) on a
// non-terminal stderr.
var progressPrefixes = []string{
	"debredist: note:",
	"debredist: plan:",
	"debredist: fetch:",
	"debredist: build:",
	"debredist: retrying ",
}

// errorLines returns stderr's lines that are not progress lines.
func errorLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if l != "" && !slices.ContainsFunc(progressPrefixes, func(p string) bool { return strings.HasPrefix(l, p) }) {
			out = append(out, l)
		}
	}
	return out
}

// TestOneErrorLinePerCause: inputs the user named that cannot be used
// give one error line that names the flag or the field.
func TestOneErrorLinePerCause(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(dir, "evil.json")
	if err := os.WriteFile(
		profile,
		[]byte(`{"l4t": "r36.5", "rules": {"components": [{"source": "cuda-cudart", "product": `+
			`"../../../../PRODUCT-ESCAPE", "name": "x", "license": "x"}]}}`),
		0o644,
	); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{
			"regular file as --cache",
			[]string{"convert", "--jetpack", "6", "--mirror", "../../testdata/sample-mirror",
				"--out", filepath.Join(dir, "o1"), "--cache", file},
			1,
			"--cache: cache directory " + file,
		},
		{
			"traversal in a profile",
			[]string{"convert", "--profile", profile, "--mirror", "../../testdata/sample-mirror",
				"--out", filepath.Join(dir, "o2"), "--cache", filepath.Join(dir, "c")},
			exitUsage,
			"rules.components[0].product",
		},
		{
			"--lock-out under a file",
			[]string{"fetch", "--jetpack", "6", "--mirror", "../../testdata/sample-mirror", "--cache", filepath.Join(dir, "c"),
				"--lock-out", filepath.Join(file, "x.lock.json")},
			1,
			"--lock-out",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := cli(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.code, stderr)
			}
			lines := errorLines(stderr)
			if len(lines) == 0 || !strings.Contains(lines[0], tc.want) {
				t.Errorf("first error line does not name %q:\n%s", tc.want, stderr)
			}
			// One line for the cause (plus the usage hint of a usage error).
			max := 1
			if code == exitUsage {
				max = 2
			}
			if len(lines) > max {
				t.Errorf("%d error lines, want %d:\n%s", len(lines), max, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "o2")); !os.IsNotExist(err) {
		t.Errorf("a refused profile created OUT")
	}
}
