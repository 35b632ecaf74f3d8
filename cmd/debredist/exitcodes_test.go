package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mistake is one wrong invocation and what every command answers to it.
type mistake struct {
	args []string
	code int
	want string // in the error line
	env  string // DEBREDIST_MIRROR, when set
}

// TestSameMistakeSameAnswer (issue 39 item 4): every command answers the
// same mistake with the same exit status of exitTable and one error line
// "debredist CMD: what happened: remedy" (a usage error about the command
// line's form adds the line that points at --help): an unknown flag, an
// argument too many, a path to read that is not there, a mirror directory
// that is not there (named as the flag or the environment variable that
// gave it), a mirror URL of no known scheme, a cancelled run.
func TestSameMistakeSameAnswer(t *testing.T) {
	out, _ := convertCudart(t)
	dir := t.TempDir()
	gone := filepath.Join(dir, "nonexistent")
	prov := filepath.Join(out, "cuda", "redist", "debredist-provenance_12.6.68.json")
	rel := strings.TrimPrefix(cudartArchive, "cuda/redist/")
	fresh := func() string { return filepath.Join(t.TempDir(), "x") }
	// Per command: arguments that read a path that is not there (none for
	// a command that reads no path), its arguments with one too many, and
	// arguments that make it read a mirror (none without --mirror).
	type shape struct {
		missing [][]string
		tooMany []string
		mirror  []string
	}
	shapes := map[string]shape{
		"profiles": {nil, []string{"--json", "6", "7"}, nil},
		"index":    {[][]string{{gone}}, []string{"a", "b"}, nil},
		"extract":  {[][]string{{gone, fresh()}}, []string{"a.deb", "d", "e"}, nil},
		"plan": {
			[][]string{{"--profile", gone}, {"--lock", gone}, {"--jetpack", "6", "--keyring", gone, "--mirror", sampleMirror}},
			[]string{"--jetpack", "6", "stray"},
			[]string{"--jetpack", "6"},
		},
		"fetch": {
			[][]string{{"--profile", gone}, {"--lock", gone}},
			[]string{"--jetpack", "6", "stray"},
			[]string{"--jetpack", "6"},
		},
		"convert": {
			[][]string{{"--profile", gone, "--out", fresh()}, {"--lock", gone, "--out", fresh()}},
			[]string{"--jetpack", "6", "--out", fresh(), "stray"},
			[]string{"--jetpack", "6", "--out", fresh()},
		},
		"verify": {[][]string{{gone}}, []string{out, "b"}, nil},
		"nix":    {[][]string{{gone}}, []string{out, "b"}, []string{"--derivations", out}},
		"build-archive": {
			[][]string{{"--provenance", gone, "--archive", rel, "--out", fresh()}},
			[]string{"--provenance", prov, "--archive", rel, "--out", fresh(), "stray"},
			[]string{"--provenance", prov, "--archive", rel, "--out", fresh(), "--cache", t.TempDir()},
		},
		"diff": {[][]string{{gone, "r36.5"}}, []string{"r36.4", "r36.5", "r36.6"}, []string{"r36.4", "r36.5"}},
		"inventory": {
			[][]string{{"--lock", gone}, {"--profile", gone}},
			[]string{"--l4t", "r36.5", "stray"},
			[]string{"--l4t", "r36.5"},
		},
		"sbom":       {[][]string{{gone}}, []string{out, "b"}, nil},
		"version":    {nil, []string{"x"}, nil},
		"help":       {nil, []string{"plan", "convert"}, nil},
		"completion": {nil, []string{"bash", "zsh"}, nil},
		"man":        {nil, []string{"x"}, nil},
	}
	for _, c := range commands {
		s, ok := shapes[c.name]
		if !ok {
			t.Errorf("command %s: no mistakes listed: add it to shapes", c.name)
			continue
		}
		ms := []mistake{
			{[]string{"--bogus"}, exitUsage, "flag provided but not defined: -bogus", ""},
			{s.tooMany, exitUsage, "", ""},
		}
		for _, m := range s.missing {
			ms = append(ms, mistake{m, exitUsage, gone + "", ""})
		}
		if s.mirror != nil {
			ms = append(
				ms,
				mistake{
					append(slices.Clone(s.mirror), "--mirror", gone),
					exitUsage,
					"--mirror " + gone + ": no such mirror directory",
					"",
				},
				mistake{s.mirror, exitUsage, "DEBREDIST_MIRROR=" + gone + ": no such mirror directory", gone},
				mistake{
					append(slices.Clone(s.mirror), "--mirror", "htps://example.com/jetson"),
					exitUsage,
					`--mirror "htps://example.com/jetson": unsupported scheme "htps"`,
					"",
				},
			)
		}
		for _, m := range ms {
			args := append([]string{c.name}, m.args...)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				t.Setenv("DEBREDIST_MIRROR", m.env)
				code, stdout, stderr := cli(t, args...)
				checkAnswer(t, c, code, stderr, m.code, m.want)
				if stdout != "" {
					t.Errorf("an error printed on stdout:\n%s", stdout)
				}
			})
		}
	}
	// An interrupted run, whatever the command.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"verify", out},
		{"convert", "--jetpack", "6", "--only", "cuda_cudart", "--mirror", sampleMirror, "--cache", t.TempDir(),
			"--out", fresh()},
		{"sbom", out},
	} {
		code, _, stderr := cliCtx(t, ctx, args...)
		checkAnswer(t, lookup(args[0]), code, stderr, exitInterrupted, "interrupted")
	}
}

// checkAnswer checks an error's exit status (one of exitTable) and its
// lines: "debredist CMD: …" holding want, and for a usage error about the
// command line's form the pointer to the command's help.
func checkAnswer(t *testing.T, c *command, code int, stderr string, wantCode int, want string) {
	t.Helper()
	if !slices.ContainsFunc(exitTable, func(e struct {
		code int
		what string
	}) bool {
		return e.code == code
	}) {
		t.Errorf("exit %d is not in the exit table", code)
	}
	if code != wantCode {
		t.Errorf("exit %d, want %d:\n%s", code, wantCode, stderr)
	}
	lines := errorLines(stderr)
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "debredist "+c.name+": ") || !strings.Contains(lines[0], want) {
		t.Errorf("the error line does not read \"debredist %s: …%s…\":\n%s", c.name, want, stderr)
	}
	hint := "Run 'debredist " + c.name + " --help' for usage."
	if c == helpCmd {
		hint = "Run 'debredist help' for the list of commands."
	}
	if len(lines) > 2 || len(lines) == 2 && lines[1] != hint {
		t.Errorf("more than the error line and %q:\n%s", hint, stderr)
	}
}
