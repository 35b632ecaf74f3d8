package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/testutil"
)

// cli runs the command in-process and returns its exit code and outputs.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return cliCtx(t, context.Background(), args...)
}

func cliCtx(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{nil, "Usage:"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"` + "\nRun 'debredist help' for the list of commands."},
		{[]string{"conver"}, `unknown command "conver" (did you mean convert?)`},
		{[]string{"inven"}, `unknown command "inven" (did you mean inventory?)`},
		{[]string{"help", "verfy"}, `unknown command "verfy" (did you mean verify?)`},
		{[]string{"--bogus"}, "-bogus"},
		{[]string{"-v", "--quiet", "profiles"}, "only one of --verbose and --quiet"},
		{[]string{"profiles", "--bogus"}, "flag provided but not defined: -bogus"},
		{
			[]string{"profiles", "extra"},
			`a NAME argument needs --json: 'debredist profiles --json extra' prints that profile`,
		},
		{[]string{"profiles", "--json", "6", "7"}, "--json NAME prints one profile: give one NAME, not 2 (6 7)"},
		{[]string{"index"}, "want 1 argument, the Packages file"},
		{[]string{"index", "a", "b"}, "want 1 argument, the Packages file; got 2"},
		{[]string{"index", "--file"}, "flag needs an argument: -file"},
		{[]string{"extract", "only-one.deb"}, "want 2 arguments"},
		{[]string{"extract", "a.deb", "dir", "--forse"}, "-forse"},
		{[]string{"plan"}, "select a release with --jetpack, --l4t, --profile or --lock"},
		{[]string{"plan", "--jetpack", "6", "--l4t", "r36.5"}, "give only one of --jetpack, --l4t and --profile"},
		{[]string{"plan", "--jetpack", "6", "stray"}, `unexpected argument "stray"`},
		{[]string{"plan", "--only"}, "flag needs an argument: -only"},
		{[]string{"fetch", "--jetpack", "6", "--downloads", "-1"}, "--downloads -1"},
		{[]string{"convert", "--jetpack", "6", "--out", "x", "--jobs", "-1"}, "--jobs -1"},
		{[]string{"fetch", "--jetpack", "6", "--downloads", "many"}, `invalid value "many" for flag -downloads`},
		{[]string{"convert", "--jetpack", "6"}, "missing required flag --out"},
		{[]string{"convert", "--out", out}, "select a release"},
		{[]string{"convert", "--out", out, "--jetpack", "6", "--profile", "p.json"}, "give only one of"},
		{[]string{"convert", "--out", out, "--jetpack", "6", "--compress", "gzip"}, `--compress "gzip"`},
		{[]string{"convert", "--out", out, "--jetpack", "6", "--preset", "7"}, "--preset 7"},
		{[]string{"convert", "--out", out, "--jetpack", "6", "--compress", "zstd", "--preset", "5"}, "--preset 5"},
		{[]string{"verify"}, "want 1 argument"},
		{[]string{"verify", "a", "b"}, "want 1 argument"},
		{[]string{"nix"}, "want 1 argument"},
		{[]string{"help", "nosuch"}, "unknown command \"nosuch\"\nRun 'debredist help' for the list of commands."},
		{[]string{"version", "x"}, `unexpected argument "x"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := cli(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if stdout != "" {
				t.Errorf("usage error printed on stdout:\n%s", stdout)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a usage error created the output directory (stat: %v)", err)
	}
}

// A fault.UsageError from the library also exits 2.
func TestLibraryUsageErrorExits2(t *testing.T) {
	lock := writeLock(t, "") // no suite: the library asks for --l4t/--jetpack
	code, _, stderr := cli(t, "plan", "--lock", lock, "--offline", "--cache", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "does not name its L4T suite") {
		t.Fatalf("code %d, stderr:\n%s", code, stderr)
	}
}

func TestSourceDateEpoch(t *testing.T) {
	tests := []struct {
		env     string
		want    time.Time
		wantErr bool
	}{
		{"", time.Time{}, false},
		{"1700000000", time.Unix(1700000000, 0).UTC(), false},
		{"0", time.Unix(0, 0).UTC(), false},
		{"abc", time.Time{}, true},
		{"-5", time.Time{}, true},
		{"1.5", time.Time{}, true},
	}
	for _, tc := range tests {
		a := &app{getenv: func(k string) string {
			if k == "SOURCE_DATE_EPOCH" {
				return tc.env
			}
			return ""
		}}
		sel := selection{jetpack: "6"}
		o, err := sel.options(a)
		if (err != nil) != tc.wantErr {
			t.Errorf("SOURCE_DATE_EPOCH=%q: err = %v, want error %v", tc.env, err, tc.wantErr)
			continue
		}
		if !o.Build.MTime.Equal(tc.want) {
			t.Errorf("SOURCE_DATE_EPOCH=%q: MTime = %v, want %v", tc.env, o.Build.MTime, tc.want)
		}
	}
	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	code, _, stderr := cli(t, "plan", "--jetpack", "6")
	if code != exitUsage || !strings.Contains(stderr, "SOURCE_DATE_EPOCH") {
		t.Errorf("invalid SOURCE_DATE_EPOCH: code %d, stderr:\n%s", code, stderr)
	}
}

// checkOwnFlags (issue 39 item 8): a command's help lists -v and --quiet
// only where they change something, worded for that command, and no
// other command's wording.
func checkOwnFlags(t *testing.T, c *command, help string) {
	t.Helper()
	for _, f := range []struct{ flag, usage string }{{"-v, --verbose\n", c.verbose}, {"  --quiet\n", c.quiet}} {
		switch listed := strings.Contains(help, f.flag); {
		case f.usage == "" && listed:
			t.Errorf("%s's help lists %q, which changes nothing for it:\n%s", c.name, strings.TrimSpace(f.flag), help)
		case f.usage != "" && !strings.Contains(help, f.flag+"        "+f.usage+"\n"):
			t.Errorf("%s's help lacks %q worded %q:\n%s", c.name, strings.TrimSpace(f.flag), f.usage, help)
		}
	}
	for _, o := range commands {
		if o.verbose != "" && o.verbose != c.verbose && strings.Contains(help, "        "+o.verbose+"\n") {
			t.Errorf("%s's help has %s's -v wording %q", c.name, o.name, o.verbose)
		}
	}
	if strings.Contains(help, "Flags:\n\n") || strings.HasSuffix(strings.TrimSpace(help), "Flags:") {
		t.Errorf("%s's help has an empty Flags section:\n%s", c.name, help)
	}
}

func TestHelp(t *testing.T) {
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, stdout, stderr := cli(t, args...)
				if code != exitOK {
					t.Fatalf("exit %d, stderr:\n%s", code, stderr)
				}
				for _, want := range []string{"Usage: debredist " + c.name, "Example:\n  debredist "} {
					if !strings.Contains(stdout, want) {
						t.Errorf("help lacks %q:\n%s", want, stdout)
					}
				}
				checkOwnFlags(t, c, stdout)
			})
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, stdout, _ := cli(t, args...)
		if code != exitOK || !strings.Contains(stdout, "Commands:") || !strings.Contains(stdout, "Example:") {
			t.Errorf("%v: code %d, stdout:\n%s", args, code, stdout)
		}
		for _, c := range commands {
			if !strings.Contains(stdout, "  "+c.name+" ") {
				t.Errorf("%v: command list lacks %s", args, c.name)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, _ := cli(t, args...)
		if code != exitOK || !strings.HasPrefix(stdout, "debredist "+debredist.Version+" ") {
			t.Errorf("%v: code %d, stdout %q", args, code, stdout)
		}
	}
}

func TestProfiles(t *testing.T) {
	code, stdout, stderr := cli(t, "profiles", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Schema   string              `json:"schema"`
		Profiles []debredist.Profile `json:"profiles"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Schema != "debredist.profiles/v1" {
		t.Fatalf("profiles --json is not a debredist.profiles/v1 document: %v\n%s", err, stdout)
	}
	ps := doc.Profiles
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
		if p.L4T == "" || p.Platform == "" || len(p.Repos) == 0 {
			t.Errorf("profile %s lacks suite, platform or repos: %+v", p.Name, p)
		}
	}
	for _, want := range []string{"jetpack5", "jetpack6", "jetpack7"} {
		if !slices.Contains(names, want) {
			t.Errorf("profiles --json lacks %s (have %v)", want, names)
		}
	}

	code, stdout, _ = cli(t, "profiles")
	if code != exitOK {
		t.Fatalf("profiles: exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != len(ps)+1 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("profiles table: want a header and %d rows, got:\n%s", len(ps), stdout)
	}
	for _, p := range ps {
		row := strings.Fields(lines[1+slices.IndexFunc(ps, func(q debredist.Profile) bool { return q.Name == p.Name })])
		if len(row) < 9 || row[0] != p.Name || row[3] != p.L4T || row[5] != p.Platform ||
			row[7] != strings.Join(p.Repos, ",") {
			t.Errorf("profiles row for %s: %v", p.Name, row)
		}
	}
}

const sampleIndex = `Package: cuda-cudart-12-6
Source: cuda-cudart (12.6.68-1)
Version: 12.6.68-1
Architecture: arm64
Filename: pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb
Size: 1234
MD5sum: 0123456789abcdef0123456789abcdef
SHA1: 0123456789abcdef0123456789abcdef01234567
SHA256: 1111111111111111111111111111111111111111111111111111111111111111
Depends: cuda-toolkit-config-common
Description: CUDA Runtime native Libraries
 The runtime.

Package: evil
Version: 1.0
Architecture: arm64
Filename: ../../etc/passwd
Size: 1
SHA256: 2222222222222222222222222222222222222222222222222222222222222222
Description: hostile

Package: libcudnn9-cuda-12
Source: cudnn
Version: 9.3.0.75-1
Architecture: arm64
Filename: pool/main/c/cudnn/libcudnn9-cuda-12_9.3.0.75-1_arm64.deb
Size: 99
SHA256: 3333333333333333333333333333333333333333333333333333333333333333
Provides: libcudnn
Description: cuDNN runtime libraries
`

func TestIndex(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "Packages")
	if err := os.WriteFile(plain, []byte(sampleIndex), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write([]byte(sampleIndex)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	gzFile := filepath.Join(dir, "Packages.gz")
	if err := os.WriteFile(gzFile, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	wantLines := "cuda-cudart-12-6 12.6.68-1 arm64 pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb 1234 " +
		"1111111111111111111111111111111111111111111111111111111111111111 cuda-cudart\n" +
		"libcudnn9-cuda-12 9.3.0.75-1 arm64 pool/main/c/cudnn/libcudnn9-cuda-12_9.3.0.75-1_arm64.deb 99 " +
		"3333333333333333333333333333333333333333333333333333333333333333 cudnn\n"
	for _, file := range []string{plain, gzFile} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			// The unusable stanza is a warning, the rest is listed, and
			// the run is not a success.
			code, stdout, stderr := cli(t, "index", file)
			if code != exitFailure || !strings.Contains(stderr, "debredist index: "+file+": 1 stanza(s) could not be read") {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if stdout != wantLines {
				t.Errorf("index output:\n%s\nwant:\n%s", stdout, wantLines)
			}
			if !strings.Contains(stderr, "debredist: warning: "+file+": line 14: package evil") {
				t.Errorf("the unsafe stanza is not reported with its package and line:\n%s", stderr)
			}

			code, stdout, _ = cli(t, "index", "--json", "--file", file)
			if code != exitFailure {
				t.Fatalf("--json: exit %d", code)
			}
			var doc struct {
				Schema   string           `json:"schema"`
				File     string           `json:"file"`
				Packages []map[string]any `json:"packages"`
				Problems []string         `json:"problems"`
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Schema != "debredist.index/v1" ||
				doc.File != file ||
				len(doc.Problems) != 1 {
				t.Fatalf("--json output: %v\n%s", err, stdout)
			}
			got := doc.Packages
			if len(got) != 2 {
				t.Fatalf("--json: %d packages, want 2", len(got))
			}
			want := map[string]any{
				"package": "cuda-cudart-12-6", "source": "cuda-cudart", "source_version": "12.6.68-1",
				"depends": "cuda-toolkit-config-common", "description": "CUDA Runtime native Libraries",
				"md5sum": "0123456789abcdef0123456789abcdef", "sha1": "0123456789abcdef0123456789abcdef01234567", "size": 1234.0,
			}
			for k, v := range want {
				if got[0][k] != v {
					t.Errorf("--json [0].%s = %v, want %v", k, got[0][k], v)
				}
			}
			if got[1]["provides"] != "libcudnn" {
				t.Errorf("--json [1].provides = %v", got[1]["provides"])
			}
		})
	}

	t.Run("failures", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.gz")
		if err := os.WriteFile(bad, append([]byte{0x1f, 0x8b, 8, 0}, bytes.Repeat([]byte{0xff}, 64)...), 0o644); err != nil {
			t.Fatal(err)
		}
		// A Packages.xz that holds plain text is not an xz index (issue
		// 30 item 6): refused, not parsed by its content.
		fakeXZ := filepath.Join(dir, "fake", "Packages.xz")
		testutil.Must(t, os.MkdirAll(filepath.Dir(fakeXZ), 0o755))
		if err := os.WriteFile(fakeXZ, []byte(sampleIndex), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, file := range []string{filepath.Join(dir, "missing"), bad, fakeXZ} {
			// A file the command line names that is missing or malformed
			// is exit 2, like every such file (profile, lock, keyring).
			code, stdout, stderr := cli(t, "index", "--file", file)
			if code != exitUsage || !strings.HasPrefix(stderr, "debredist index: ") || !strings.Contains(stderr, file+": ") ||
				strings.Contains(stderr, "--help") {
				t.Errorf("%s: code %d, stderr %q", file, code, stderr)
			}
			if stdout != "" {
				t.Errorf("%s: stdout %q", file, stdout)
			}
		}
	})
}

func TestExtract(t *testing.T) {
	dir := t.TempDir()
	b, err := debtest.Build(debtest.Deb{
		Control:    "Package: hello\nVersion: 1.0\nArchitecture: arm64\nMaintainer: x\nDescription: test",
		AddParents: true,
		Files: []debtest.File{
			{Name: "usr/share/hello/greeting", Body: []byte("hi\n")},
			{Name: "usr/bin/hello", Body: []byte("#!/bin/sh\n"), Mode: 0o755},
			{Name: "usr/share/hello/link", Type: '2', Linkname: "greeting"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	debFile := filepath.Join(dir, "hello.deb")
	if err := os.WriteFile(debFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "x")
	code, stdout, stderr := cli(t, "extract", debFile, target)
	if code != exitOK {
		t.Fatalf("extract: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "extracted") {
		t.Errorf("stdout %q", stdout)
	}
	if got, err := os.ReadFile(filepath.Join(target, "usr/share/hello/greeting")); err != nil || string(got) != "hi\n" {
		t.Errorf("greeting = %q, %v", got, err)
	}
	if l, err := os.Readlink(filepath.Join(target, "usr/share/hello/link")); err != nil || l != "greeting" {
		t.Errorf("link = %q, %v", l, err)
	}
	if st, err := os.Stat(filepath.Join(target, "usr/bin/hello")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("usr/bin/hello not executable: %v %v", st, err)
	}

	// A non-empty target is refused without --force, replaced with it
	// (given after the positional arguments).
	code, _, stderr = cli(t, "extract", debFile, target)
	if code != exitUsage || !strings.HasPrefix(stderr, "debredist extract: ") ||
		!strings.Contains(stderr, "(--force replaces it)") {
		t.Errorf("second extract without --force: code %d, stderr %q", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(target, "stale"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = cli(t, "extract", debFile, target, "--force", "--quiet")
	if code != exitOK || stdout != "" {
		t.Fatalf("extract --force --quiet: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(target, "stale")); !os.IsNotExist(err) {
		t.Errorf("--force kept a stale file (stat: %v)", err)
	}

	// A file the command line names that is missing or not a deb: exit 2.
	code, _, stderr = cli(t, "extract", filepath.Join(dir, "nope.deb"), filepath.Join(dir, "y"))
	if code != exitUsage ||
		!strings.Contains(stderr, "deb "+filepath.Join(dir, "nope.deb")+": no such file or directory") {
		t.Errorf("missing deb: code %d, stderr %q", code, stderr)
	}
	junk := filepath.Join(dir, "junk.deb")
	if err := os.WriteFile(junk, []byte("not an ar archive\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr = cli(t, "extract", junk, filepath.Join(dir, "y")); code != exitUsage ||
		!strings.Contains(stderr, "junk.deb") {
		t.Errorf("a file that is not a deb: code %d, stderr %q", code, stderr)
	}
	for _, args := range [][]string{
		{"verify", filepath.Join(dir, "no-out")},
		{"nix", filepath.Join(dir, "no-out")},
		{"verify", junk},
	} {
		if code, _, stderr = cli(t, args...); code != exitUsage || !strings.Contains(stderr, args[1]) {
			t.Errorf("%v: code %d, stderr %q; want 2 naming the path", args, code, stderr)
		}
	}
}

// writeLock writes a lock file pinning a few CUDA debs of r36.5 (suite ""
// leaves it out).
func writeLock(t *testing.T, suite string) string {
	t.Helper()
	sha := strings.Repeat("ab", 32)
	pkgs := []map[string]any{
		{
			"repo":     "common",
			"package":  "cuda-cudart-12-6",
			"version":  "12.6.68-1",
			"filename": "pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb",
			"sha256":   sha,
			"size":     10,
			"source":   "cuda-cudart",
		},
		{
			"repo":     "common",
			"package":  "cuda-cudart-dev-12-6",
			"version":  "12.6.68-1",
			"filename": "pool/main/c/cuda-cudart/cuda-cudart-dev-12-6_12.6.68-1_arm64.deb",
			"sha256":   sha,
			"size":     10,
			"source":   "cuda-cudart",
		},
		{
			"repo":     "common",
			"package":  "cuda-nvcc-12-6",
			"version":  "12.6.68-1",
			"filename": "pool/main/c/cuda-nvcc/cuda-nvcc-12-6_12.6.68-1_arm64.deb",
			"sha256":   sha,
			"size":     10,
			"source":   "cuda-nvcc",
		},
	}
	doc := map[string]any{"version": 1, "packages": pkgs}
	if suite != "" {
		doc["suite"] = suite
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "test.lock")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPlanFromLock(t *testing.T) {
	lock := writeLock(t, "r36.5")
	cache := t.TempDir()
	code, _, stderr := cli(t, "plan", "--lock", lock, "--offline", "--cache", cache)
	if code != exitFailure ||
		!strings.Contains(stderr, "lacks 29 redist package(s) profile jetpack6 expects: cuda_cccl, cuda_compat,") {
		t.Errorf("plan of a lock pinning 2 of 31 packages: exit %d: %s; want a failure naming what is missing", code, stderr)
	}
	code, stdout, stderr := cli(
		t,
		"plan",
		"--lock",
		lock,
		"--offline",
		"--cache",
		cache,
		"--only",
		"cuda_cudart,cuda_nvcc",
	)
	if code != exitOK {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"jetpack6: L4T r36.5, CUDA 12.6, platform linux-aarch64",
		"PRODUCT", "PNAME",
		"cuda", "cuda_cudart", "12.6.68", "cuda-cudart-12-6 cuda-cudart-dev-12-6",
		"cuda_nvcc", "Skipped debs: 0", "Products:",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("plan output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = cli(t, "plan", "--lock", lock, "--offline", "--cache", cache, "--only", "cuda_nvcc", "--json", "-v")
	if code != exitOK {
		t.Fatalf("plan --json: exit %d", code)
	}
	var pl plan.Plan
	if err := json.Unmarshal([]byte(stdout), &pl); err != nil {
		t.Fatalf("plan --json: %v\n%s", err, stdout)
	}
	if len(pl.Packages) != 1 || pl.Packages[0].PName != "cuda_nvcc" || pl.Profile.L4T != "r36.5" {
		t.Errorf("plan --json --only cuda_nvcc: %+v", pl.Packages)
	}

	code, _, stderr = cli(t, "plan", "--lock", lock, "--only", "nonesuch")
	if code != exitUsage || !strings.Contains(stderr, "nonesuch") {
		t.Errorf("--only nonesuch: code %d, stderr %q", code, stderr)
	}
}

func TestVerifyFailures(t *testing.T) {
	empty := t.TempDir()
	code, stdout, stderr := cli(t, "verify", empty)
	if code != exitUsage || stdout != "" ||
		!strings.Contains(stderr, "is not a debredist output directory (no redistrib_*.json, no .debredist)") {
		t.Errorf("empty dir: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	out := writeManifests(t)
	code, stdout, stderr = cli(t, "verify", out, "--json")
	if code != exitFailure {
		t.Errorf("missing archive: code %d, want 1; stderr %q", code, stderr)
	}
	var rep verify.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, stdout)
	}
	if len(rep.Artifacts) != 1 || len(rep.Artifacts[0].Problems) == 0 {
		t.Errorf("verify --json report: %+v", rep)
	}
	code, stdout, _ = cli(t, "verify", out)
	if code != exitFailure ||
		!strings.Contains(
			stdout,
			"FAIL  cuda/redist/cuda_nvcc/linux-aarch64/cuda_nvcc-linux-aarch64-12.6.68-archive.tar.xz: ",
		) {
		t.Errorf("missing archive: code %d, stdout:\n%s", code, stdout)
	}
}

// writeManifests writes a cuda manifest naming one (absent) archive.
func writeManifests(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	m := &redist.Manifest{
		ReleaseDate:    "2026-01-15",
		ReleaseLabel:   "12.6.68",
		ReleaseProduct: "cuda",
		Components: map[string]*redist.Component{
			"cuda_nvcc": {Name: "CUDA NVCC", License: "CUDA Toolkit", Version: "12.6.68", Platforms: map[string]*redist.Platform{
				"linux-aarch64": {
					Artifact: &redist.Artifact{
						RelativePath: "cuda_nvcc/linux-aarch64/cuda_nvcc-linux-aarch64-12.6.68-archive.tar.xz",
						SHA256:       strings.Repeat("c", 64),
						Size:         "5",
					},
				},
			}},
		},
	}
	dir := filepath.Join(out, "cuda", "redist")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := redist.WriteManifest(&b, m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "redistrib_12.6.68.json"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestNix(t *testing.T) {
	out, genArchive := convertCudart(t)
	code, stdout, stderr := cli(t, "nix", out)
	if code != exitOK {
		t.Fatalf("nix: exit %d: %s", code, stderr)
	}
	// Constant code applied to the data: OUT's path is only inside the
	// JSON string; what the user must know goes to stderr.
	if !strings.Contains(stdout, "data = builtins.fromJSON \"") || strings.Count(stdout, out) != 1 ||
		!strings.Contains(stdout, "acceptInsecureTensorRT = false;") {
		t.Errorf("nix output:\n%s", stdout)
	}
	code, stdout, stderr = cli(t, "nix", "--json", out)
	var d struct {
		Schema, Set string
	}
	if err := json.Unmarshal([]byte(stdout), &d); code != exitOK || err != nil || d.Schema != "debredist.nix/v1" ||
		d.Set != "cudaPackages_12_6" {
		t.Errorf("nix --json: exit %d, %v, %+v: %s", code, err, d, stderr)
	}
	code, _, stderr = cli(t, "nix", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "is not a debredist output directory") {
		t.Errorf("nix on an empty dir: code %d, stderr %q", code, stderr)
	}
	code, _, stderr = cli(t, "nix", "--add-to-store", "--derivations", out)
	if code != exitUsage || !strings.Contains(stderr, "only one of --add-to-store, --derivations and --json") {
		t.Errorf("nix --add-to-store --derivations: code %d, stderr %q", code, stderr)
	}
	// An archive the manifest names is not there: no overlay points at it.
	if err := os.Remove(genArchive); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, "nix", out)
	if code != exitFailure || !strings.Contains(stderr, "is not a valid output") ||
		!strings.Contains(stderr, cudartArchive) {
		t.Fatalf("nix without the archive: exit %d: %s", code, stderr)
	}
}

// TestNixAddToStore adds every archive of a converted OUT to the Nix store
// in one command, the l4t DLA compiler's (whose manifest the overlay
// leaves out) included: each lands at the path fetchurl computes from the
// manifest's sha256 and the file name.
func TestNixAddToStore(t *testing.T) {
	testutil.RequireTool(t, "nix-store")
	testutil.NixStoreLock(t) // it adds archives to the store
	if os.Getenv("NIX_CONFIG") == "" {
		t.Setenv("NIX_CONFIG", "build-users-group =")
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := cli(t, "--quiet", "convert", "--jetpack", "6", "--mirror", sampleMirror, "--cache", t.TempDir(),
		"--out", out, "--only", "cuda_cudart,cudnn,nvidia_l4t_dla_compiler")
	if code != exitOK {
		t.Fatalf("convert: %s", stderr)
	}
	code, stdout, stderr := cli(t, "nix", "--add-to-store", out)
	if code != exitOK {
		t.Fatalf("nix --add-to-store: exit %d: %s", code, stderr)
	}
	got := strings.Fields(stdout)
	var want []string
	for file, a := range manifestArtifacts(t, out) {
		p, err := exec.Command("nix-store", "--print-fixed-path", "sha256", a.SHA256, filepath.Base(file)).Output()
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, strings.TrimSpace(string(p)))
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) < 3 || !slices.Equal(got, slices.Compact(want)) ||
		!slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, "nvidia_l4t_dla_compiler") }) {
		t.Errorf("nix --add-to-store printed %v, want %v", got, want)
	}
}

// manifestArtifacts returns every artifact the manifests under out name,
// by the archive's path.
func manifestArtifacts(t *testing.T, out string) map[string]*redist.Artifact {
	t.Helper()
	arts := map[string]*redist.Artifact{}
	ms, _ := filepath.Glob(filepath.Join(out, "*", "redist", "redistrib_*.json"))
	for _, mf := range ms {
		b, err := os.ReadFile(mf)
		if err != nil {
			t.Fatal(err)
		}
		m, err := redist.ReadManifest(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Components {
			for _, pa := range c.Artifacts() {
				arts[filepath.Join(filepath.Dir(mf), filepath.FromSlash(pa.Artifact.RelativePath))] = pa.Artifact
			}
		}
	}
	return arts
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, _, stderr := cliCtx(t, ctx, "verify", writeManifests(t))
	if code != exitInterrupted || !strings.Contains(stderr, "interrupted") {
		t.Errorf("cancelled verify: code %d, stderr %q", code, stderr)
	}
}

func TestParseInterleaved(t *testing.T) {
	tests := []struct {
		args     []string
		wantPos  []string
		wantJSON bool
	}{
		{[]string{"a", "b"}, []string{"a", "b"}, false},
		{[]string{"a", "--json", "b"}, []string{"a", "b"}, true},
		{[]string{"--json", "a"}, []string{"a"}, true},
		{[]string{"a", "b", "-json"}, []string{"a", "b"}, true},
		{[]string{"a", "--", "--json"}, []string{"a", "--json"}, false},
		{[]string{"--", "-x", "y"}, []string{"-x", "y"}, false},
		{[]string{}, nil, false},
	}
	for _, tc := range tests {
		fs := newFlagSet("t")
		j := fs.Bool("json", false, "")
		pos, err := fs.parse(tc.args, false)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if !slices.Equal(pos, tc.wantPos) || *j != tc.wantJSON {
			t.Errorf("%q: pos %q json %v, want %q %v", tc.args, pos, *j, tc.wantPos, tc.wantJSON)
		}
	}
}

func TestListFlag(t *testing.T) {
	var l listFlag
	for _, s := range []string{"a,b", " c ", ",,d,"} {
		if err := l.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(l, want) {
		t.Errorf("listFlag = %q, want %q", l, want)
	}
}

// TestProgressLog: without a terminal, a line per stage (and a summary
// while a stage runs, not tested here: every 10 s), a line per deb only
// with -v, each warning and note once, nothing but warnings with --quiet.
func TestProgressLog(t *testing.T) {
	phases := [][]event.Event{
		{
			{Kind: event.Index, Package: "common", URL: "https://m/Packages.gz", Total: 1200},
			{Kind: event.Notice, Message: "index signatures were not checked"},
			{Kind: event.Notice, Message: "index signatures were not checked"}, // diff plans two sides
		},
		// The library sends these after the indexes, in this order.
		{{Kind: event.Plan, Total: 2, Message: "jetpack6"}},
		{{Kind: event.FetchPlan, Total: 3, Bytes: 107}},
		{ // OnEvent is called from several goroutines
			{Kind: event.FetchStart, Package: "cuda-nvcc-12-6", URL: "https://m/n.deb", Total: 100},
			{Kind: event.FetchBytes, Package: "cuda-nvcc-12-6", Bytes: 50, Total: 100},
			{Kind: event.FetchRetry, Package: "cuda-nvcc-12-6", Attempt: 2, Err: context.DeadlineExceeded},
			{Kind: event.FetchDone, Package: "cuda-nvcc-12-6", Bytes: 100},
			{Kind: event.CacheHit, Package: "cuda-cudart-12-6", Bytes: 7},
			{Kind: event.FetchFailed, Package: "x", URL: "https://m/x.deb", Err: errors.New("HTTP 404")},
			{Kind: event.FetchFailed, Package: "y", URL: "https://m/y.deb", Err: fmt.Errorf("y: %w", context.Canceled)},
			{Kind: event.Warning, Package: "cudnn", Message: "declared nixpkgs output \"static\" would be empty"},
			{Kind: event.Warning, Package: "cudnn", Message: "declared nixpkgs output \"static\" would be empty"},
		},
		{
			{Kind: event.BuildStart, Package: "cuda_nvcc", Total: 1},
			{Kind: event.BuildDone, Package: "cuda_nvcc", Bytes: 4096},
			{Kind: event.UpToDate, Package: "cuda_cudart"},
		},
	}
	tests := []struct {
		name           string
		quiet, verbose bool
		want, notWant  []string
	}{
		{
			name: "default",
			want: []string{
				"debredist: note: index signatures were not checked\n",
				"debredist: plan: jetpack6, 2 redist packages from common (1200 packages)\n",
				"debredist: fetch: 3 debs, 107 B\n",
				"debredist: retrying failed downloads (cuda-nvcc-12-6: context deadline exceeded); the summaries count the " +
					"retries, -v shows each\n",
				"debredist: fetch: done: 2 debs, 107 B: 1 were in the cache already, 1 downloaded, in ",
				`debredist: warning: cudnn: declared nixpkgs output "static" would be empty` + "\n",
				"debredist: build: 2 redist packages\n",
				"debredist: build: done: 2 of 2 redist packages in ",
			},
			notWant: []string{"download cuda-nvcc", "cached cuda-cudart", "building", "level=", "y.deb", "(attempt"},
		},
		{
			name: "verbose", verbose: true,
			want: []string{
				"debredist: download cuda-nvcc-12-6 https://m/n.deb (100 B)",
				"debredist: cached cuda-cudart-12-6 (7 B)",
				"debredist: building cuda_nvcc (1 debs)",
				"debredist: download of x failed: HTTP 404",
				"debredist: built cuda_nvcc (4.0 KiB)",
				"debredist: up to date: cuda_cudart",
				"debredist: retrying cuda-nvcc-12-6 (attempt 2): context deadline exceeded\n",
			},
			notWant: []string{"retrying failed downloads"},
		},
		{
			name: "quiet", quiet: true,
			want:    []string{`debredist: warning: cudnn: declared nixpkgs output "static" would be empty`},
			notWant: []string{"note:", "plan:", "fetch:", "build:", "retrying"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			a := &app{stderr: &stderr, quiet: tc.quiet, verbose: tc.verbose}
			pr := a.newProgress()
			if pr.p != nil {
				t.Fatal("progress bars on a bytes.Buffer")
			}
			for _, phase := range phases {
				var wg sync.WaitGroup
				for _, e := range phase {
					wg.Go(func() { pr.handle(e) })
				}
				wg.Wait()
			}
			pr.close(nil)
			before := stderr.Len()
			pr.handle(phases[1][0]) // ignored after close
			if stderr.Len() != before {
				t.Errorf("an event after close was logged")
			}
			got := stderr.String()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("log lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("log has %q:\n%s", w, got)
				}
			}
			for _, once := range []string{"note: index signatures", "warning: cudnn"} {
				if n := strings.Count(got, once); n > 1 {
					t.Errorf("%q said %d times:\n%s", once, n, got)
				}
			}
			for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				if l != "" && !strings.HasPrefix(l, "debredist: ") {
					t.Errorf("interleaved or foreign line %q", l)
				}
			}
		})
	}
}

// TestFetchLinesAgree (issue 39 item 5): the line that starts the fetch
// says what will happen, the done line what did, in the same words: a
// directory mirror whose debs are all in the cache reads none of them.
func TestFetchLinesAgree(t *testing.T) {
	for _, tc := range []struct {
		name       string
		url        string
		hits, read int
		start      string
		done       string
	}{
		{
			"all cached",
			"/m",
			2,
			0,
			"fetch: 2 debs, 10 B: those not in the cache /c are read from the mirror directory /m\n",
			"fetch: done: 2 debs, 10 B: 2 were in the cache already, 0 read from the mirror directory, in ",
		},
		{
			"one read",
			"file:///m",
			1,
			1,
			"fetch: 2 debs, 10 B: those not in the cache /c are read from the mirror directory /m\n",
			"fetch: done: 2 debs, 10 B: 1 were in the cache already, 1 read from the mirror directory, in ",
		},
		{
			"one downloaded",
			"https://m",
			1,
			1,
			"fetch: 2 debs, 10 B: those not in the cache /c are downloaded\n",
			"fetch: done: 2 debs, 10 B: 1 were in the cache already, 1 downloaded, in ",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			pr := (&app{stderr: &stderr}).newProgress()
			pr.handle(event.Event{Kind: event.FetchPlan, Total: 2, Bytes: 10, URL: tc.url, Message: "/c"})
			for range tc.hits {
				pr.handle(event.Event{Kind: event.CacheHit, Package: "a", Bytes: 5})
			}
			for range tc.read {
				pr.handle(event.Event{Kind: event.FetchDone, Package: "b", Bytes: 5})
			}
			pr.close(nil)
			lines := strings.SplitAfter(stderr.String(), "\n")
			if len(lines) < 2 || lines[0] != "debredist: "+tc.start || !strings.HasPrefix(lines[1], "debredist: "+tc.done) {
				t.Errorf("got\n%s\nwant\ndebredist: %sdebredist: %s…", stderr.String(), tc.start, tc.done)
			}
		})
	}
}

func TestHumanBytes(t *testing.T) {
	tests := map[int64]string{
		0:       "0 B",
		1023:    "1023 B",
		1024:    "1.0 KiB",
		1536:    "1.5 KiB",
		5 << 20: "5.0 MiB",
		3 << 30: "3.0 GiB",
	}
	for n, want := range tests {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// BenchmarkProgressHandle measures the OnEvent path in plain log mode for a
// typical mix: many byte-progress events, a few log lines.
func BenchmarkProgressHandle(b *testing.B) {
	a := &app{stderr: io.Discard}
	pr := a.newProgress()
	events := []event.Event{
		{Kind: event.FetchBytes, Package: "cuda-nvcc-12-6", Bytes: 1 << 20, Total: 50 << 20},
		{Kind: event.FetchBytes, Package: "cuda-nvcc-12-6", Bytes: 2 << 20, Total: 50 << 20},
		{Kind: event.FetchBytes, Package: "cuda-nvcc-12-6", Bytes: 3 << 20, Total: 50 << 20},
		{Kind: event.FetchDone, Package: "cuda-nvcc-12-6", Bytes: 50 << 20},
		{Kind: event.BuildDone, Package: "cuda_nvcc", Bytes: 40 << 20},
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			pr.handle(events[i%len(events)])
			i++
		}
	})
	pr.close(nil)
}

func TestPrintResult(t *testing.T) {
	res := &debredist.Result{
		Out: "/o",
		Products: []debredist.ProductResult{
			{Product: "cuda", Label: "12.6.68", Manifest: "cuda/redist/redistrib_12.6.68.json"},
			{Product: "cudnn", Label: "9.3.0", Manifest: "cudnn/redist/redistrib_9.3.0.json"},
		},
		Packages: []debredist.PackageResult{
			{PName: "cudnn", Product: "cudnn", Version: "9.3.0.75", Size: 3 << 20},
			{PName: "cuda_nvcc", Product: "cuda", Version: "12.6.68", Size: 1536, UpToDate: true},
			{PName: "cuda_cudart", Product: "cuda", Version: "12.6.68", Size: 10},
		},
	}
	var b bytes.Buffer
	res.Downloads = event.Downloads{Downloaded: 2, Bytes: 2048}
	if err := printResult(&b, res); err != nil {
		t.Fatal(err)
	}
	want := `PRODUCT  LABEL    PNAME        VERSION   SIZE     STATUS
cuda     12.6.68  cuda_cudart  12.6.68   10 B     built
cuda     12.6.68  cuda_nvcc    12.6.68   1.5 KiB  up to date
cudnn    9.3.0    cudnn        9.3.0.75  3.0 MiB  built

2 built, 1 up to date in /o (2 debs downloaded, 2.0 KiB)
manifest /o/cuda/redist/redistrib_12.6.68.json
manifest /o/cudnn/redist/redistrib_9.3.0.json
`
	if got := b.String(); got != want {
		t.Errorf("printResult:\n%s\nwant:\n%s", got, want)
	}
}

// TestProgressRetriesAndFailure: retries of many debs are one line (and a
// count in the summaries), an index's retry names its URL, and a failed
// run does not say its stage is done.
func TestProgressRetriesAndFailure(t *testing.T) {
	var stderr bytes.Buffer
	a := &app{stderr: &stderr}
	pr := a.newProgress()
	pr.handle(
		event.Event{
			Kind:    event.FetchRetry,
			URL:     "http://m/common/dists/r36.5/InRelease",
			Attempt: 2,
			Err:     errors.New("HTTP 500"),
		},
	)
	pr.handle(event.Event{Kind: event.FetchPlan, Total: 70, Bytes: 7000})
	for i := range 70 {
		for attempt := 2; attempt <= 5; attempt++ {
			pr.handle(
				event.Event{
					Kind:    event.FetchRetry,
					Package: fmt.Sprintf("deb%d", i),
					Attempt: attempt,
					Err:     errors.New("HTTP 500"),
				},
			)
		}
	}
	pr.mu.Lock()
	status := pr.status()
	pr.mu.Unlock()
	pr.close(errors.New("70 debs failed the same way"))
	got := stderr.String()
	if n := strings.Count(got, "retrying"); n != 1 {
		t.Errorf("%d retry lines, want 1:\n%s", n, got)
	}
	if !strings.Contains(got, "retrying failed downloads (http://m/common/dists/r36.5/InRelease: HTTP 500)") {
		t.Errorf("the index retry does not name its URL:\n%s", got)
	}
	if !strings.Contains(status, "281 retries") {
		t.Errorf("status %q does not count the retries", status)
	}
	if strings.Contains(got, "done") {
		t.Errorf("a failed run says done:\n%s", got)
	}
}

// TestBuildArchiveByHand (issue 39 item 6): build-archive finds the
// recorded debs itself, by sha256 in the cache or from the mirror the
// conversion read, and builds convert's bytes; --offline names every deb
// the cache lacks; a wrong --archive lists the recorded ones; --deb files
// that leave out two debs name both.
func TestBuildArchiveByHand(t *testing.T) {
	cache := t.TempDir()
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := cli(t, "--quiet", "convert", "--jetpack", "6", "--only", "cuda_cudart",
		"--mirror", sampleMirror, "--cache", cache, "--out", out); code != exitOK {
		t.Fatalf("convert: %s", stderr)
	}
	prov := filepath.Join(out, "cuda", "redist", "debredist-provenance_12.6.68.json")
	rel := strings.TrimPrefix(cudartArchive, "cuda/redist/")
	want, err := os.ReadFile(filepath.Join(out, cudartArchive))
	if err != nil {
		t.Fatal(err)
	}
	debs := []string{"cuda-cudart-12-6", "cuda-cudart-dev-12-6", "cuda-driver-dev-12-6"}
	for _, c := range []string{cache, t.TempDir()} { // in the cache; read from the recorded mirror
		dst := filepath.Join(t.TempDir(), "a.tar.xz")
		code, _, stderr := cli(t, "build-archive", "--provenance", prov, "--archive", rel, "--out", dst, "--cache", c)
		if got, _ := os.ReadFile(dst); code != exitOK || !bytes.Equal(got, want) {
			t.Errorf(
				"build-archive --cache %s: exit %d, %d bytes (want convert's %d):\n%s",
				c,
				code,
				len(got),
				len(want),
				stderr,
			)
		}
	}
	code, _, stderr := cli(
		t,
		"build-archive",
		"--provenance",
		prov,
		"--archive",
		rel,
		"--out",
		filepath.Join(t.TempDir(), "b.tar.xz"),
		"--cache",
		t.TempDir(),
		"--offline",
	)
	if code != exitFailure {
		t.Errorf("--offline with an empty cache: exit %d, want 1:\n%s", code, stderr)
	}
	for _, d := range debs {
		if !strings.Contains(stderr, d+" 12.6.68-1") {
			t.Errorf("--offline with an empty cache does not name %s:\n%s", d, stderr)
		}
	}
	code, _, stderr = cli(
		t,
		"build-archive",
		"--provenance",
		prov,
		"--archive",
		"cuda_cudart/x.tar.xz",
		"--out",
		filepath.Join(t.TempDir(), "c.tar.xz"),
		"--cache",
		cache,
	)
	if code != exitUsage || !strings.Contains(stderr, "records no archive cuda_cudart/x.tar.xz (it records: "+rel+")") {
		t.Errorf("a wrong --archive: exit %d:\n%s", code, stderr)
	}
	one := filepath.Join(sampleMirror, "common/pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb")
	code, _, stderr = cli(
		t,
		"build-archive",
		"--provenance",
		prov,
		"--archive",
		rel,
		"--out",
		filepath.Join(t.TempDir(), "d.tar.xz"),
		"--deb",
		one,
	)
	if code != exitUsage || !strings.Contains(stderr, "2 of its 3 debs not given: "+debs[1]+" 12.6.68-1") ||
		!strings.Contains(stderr, "; "+debs[2]+" 12.6.68-1") {
		t.Errorf("--deb leaving out two: exit %d:\n%s", code, stderr)
	}
	code, _, stderr = cli(
		t,
		"build-archive",
		"--provenance",
		prov,
		"--archive",
		rel,
		"--out",
		filepath.Join(t.TempDir(), "e.tar.xz"),
		"--deb",
		one,
		"--cache",
		cache,
	)
	if code != exitUsage || !strings.Contains(stderr, "give them or --deb, not both") {
		t.Errorf("--deb with --cache: exit %d:\n%s", code, stderr)
	}
}
