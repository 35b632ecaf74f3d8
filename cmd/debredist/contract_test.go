package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/internal/testutil"
	"github.com/vbauerster/mpb/v8"
)

// copyMirror copies the sample mirror for a test to change.
func copyMirror(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "mirror")
	if err := os.CopyFS(dst, os.DirFS(sampleMirror)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestPartialIndexRefused is the repro of a Packages file cut in half: it
// must never convert a partial release.
func TestPartialIndexRefused(t *testing.T) {
	m := copyMirror(t)
	dir := filepath.Join(m, "common/dists/r36.5/main/binary-arm64")
	for _, n := range []string{"Packages.xz", "Packages.gz"} {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	full, err := os.ReadFile(filepath.Join(dir, "Packages"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(b []byte) {
		if err := os.WriteFile(filepath.Join(dir, "Packages"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(full[:len(full)/2])
	cache := t.TempDir()
	convert := func(extra ...string) (int, string, string) {
		out := filepath.Join(t.TempDir(), "out")
		code, stdout, stderr := cli(
			t,
			append([]string{"convert", "--jetpack", "6", "--mirror", m, "--cache", cache, "--out", out}, extra...)...)
		if _, err := os.Lstat(out); code != exitOK && !os.IsNotExist(err) {
			t.Errorf("a refused conversion left %s: %v", out, err)
		}
		return code, stdout, stderr
	}

	// The Release names the full file's size and hash.
	if code, _, stderr := convert(); code != exitFailure || !strings.Contains(stderr, dir+"/Packages") ||
		!strings.Contains(stderr, "size") {
		t.Errorf("cut index with its Release: exit %d: %s", code, stderr)
	}
	// No Release (as a mirror made with dpkg-scanpackages alone): refused
	// unless the user says so, and the error says how.
	if err := os.Remove(filepath.Join(m, "common/dists/r36.5/Release")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := convert(); code != exitFailure ||
		!strings.Contains(stderr, "no Release file lists a Packages index") ||
		!strings.Contains(stderr, "--allow-unverified-index") {
		t.Errorf("no Release: exit %d: %s", code, stderr)
	}
	// Accepted unverified, the cut stanza is an error naming file and line.
	code, _, stderr := convert("--allow-unverified-index")
	if code != exitFailure || !strings.Contains(stderr, dir+"/Packages: apt: Packages index: line ") {
		t.Errorf("cut in a stanza: exit %d: %s", code, stderr)
	}
	// Cut at a stanza boundary, the index parses: the plan lacks what the
	// profile expects.
	cut := bytes.LastIndex(full[:len(full)/2], []byte("\n\nPackage: "))
	write(full[:cut+2])
	code, _, stderr = convert("--allow-unverified-index")
	if code != exitFailure ||
		!strings.Contains(stderr, "the index lacks 9 redist package(s) profile jetpack6 expects: ") ||
		!strings.Contains(stderr, "nvidia_l4t_dla_compiler") {
		t.Errorf("cut at a stanza: exit %d: %s", code, stderr)
	}
	// --only narrows what is expected.
	if code, _, stderr := convert("--allow-unverified-index", "--only", "cuda_cudart"); code != exitOK {
		t.Errorf("--only cuda_cudart from the cut index: exit %d: %s", code, stderr)
	}
}

// asCLI returns a command running this test binary as debredist.
func asCLI(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "DEBREDIST_TEST_AS_CLI=1")
	return cmd
}

// TestReadOnlyOutNoOp: a run with everything up to date writes nothing, so
// it works on a read-only mount of OUT and as a user who cannot write OUT;
// one that must write says so.
func TestReadOnlyOutNoOp(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: a private read-only bind mount and another user")
	}
	testutil.RequireTool(t, "unshare")
	// Everything another user reads must be readable by all.
	base, err := os.MkdirTemp("/tmp", "debredist-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	exe, _ := os.Executable()
	bin := filepath.Join(base, "debredist.test")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	out, cache := filepath.Join(base, "out"), filepath.Join(base, "cache")
	m, _ := filepath.Abs(sampleMirror)
	args := []string{"convert", "--jetpack", "6", "--mirror", m, "--cache", cache, "--out", out}
	if code, _, stderr := cli(t, args...); code != exitOK {
		t.Fatalf("convert: %d %s", code, stderr)
	}
	if err := filepath.Walk(base, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			err = os.Chmod(p, 0o755)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	quoted := strings.Join(args, " ")
	run := func(name string, cmd *exec.Cmd) (int, string) {
		cmd.Env = append(os.Environ(), "DEBREDIST_TEST_AS_CLI=1", "TMPDIR="+base)
		o, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return code, string(o)
	}
	// A read-only bind mount of OUT (in a private mount namespace).
	code, o := run("read-only mount", exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c",
		"mount --bind "+out+" "+out+" && mount -o remount,bind,ro "+out+" && exec "+bin+" "+quoted))
	if code != exitOK || !strings.Contains(o, "0 built, 31 up to date") {
		t.Errorf("no-op on a read-only mount: exit %d\n%s", code, o)
	}
	// Another user.
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	code, o = run("other user", cmd)
	if code != exitOK || !strings.Contains(o, "0 built, 31 up to date") {
		t.Errorf("no-op as another user: exit %d\n%s", code, o)
	}
	// A run that must write says why it cannot.
	cmd = exec.Command(bin, append(args[:len(args):len(args)], "--preset", "1")...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	code, o = run("other user, rebuild", cmd)
	if code != exitFailure || !strings.Contains(o, "is not writable") {
		t.Errorf("a rebuild as another user: exit %d\n%s", code, o)
	}
}

// mirrorServer serves the sample mirror over HTTP; hold blocks every deb
// request until released.
func mirrorServer(t *testing.T, hold bool) (*httptest.Server, func()) {
	t.Helper()
	gate := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	fsrv := http.FileServer(http.Dir(sampleMirror))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold && strings.HasSuffix(r.URL.Path, ".deb") {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		fsrv.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { release(); srv.Close() })
	return srv, release
}

// TestInterruptedFirstConversion: SIGINT while a first conversion downloads
// leaves no OUT behind (not even its lock file), and exits 130.
func TestInterruptedFirstConversion(t *testing.T) {
	srv, _ := mirrorServer(t, true)
	out := filepath.Join(t.TempDir(), "out")
	cmd := asCLI(t, "convert", "--jetpack", "6", "--mirror", srv.URL, "--cache", t.TempDir(), "--out", out)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	started := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := pr.Read(buf)
			log.Write(buf[:n])
			if strings.Contains(log.String(), "debredist: fetch: ") {
				select {
				case <-started:
				default:
					close(started)
				}
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the download never started:\n%s", log.String())
	}
	if _, err := os.Stat(filepath.Join(out, outMutexNameForTest)); err != nil {
		t.Errorf("OUT is not being written while downloading: %v", err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	_ = pw.Close()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
		t.Errorf("exit %v, want %d", err, exitInterrupted)
	}
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Errorf("the interrupted first conversion left %s: %v", out, err)
	}
}

// outMutexNameForTest is the OUT mutex file debredist creates.
const outMutexNameForTest = ".debredist.lock"

// TestProfilesRoundTrip: 'profiles --json NAME' writes what --profile reads,
// and planning from it is planning the built-in profile.
func TestProfilesRoundTrip(t *testing.T) {
	code, stdout, stderr := cli(t, "profiles", "--json", "6")
	if code != exitOK ||
		!strings.HasPrefix(stdout, "{\n  \"schema\": \"debredist.profile/v1\",\n  \"name\": \"jetpack6\"") {
		t.Fatalf("profiles --json 6: exit %d: %s%s", code, stdout, stderr)
	}
	p := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(p, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	_, want, _ := cli(t, "plan", "--jetpack", "6", "--mirror", sampleMirror, "--cache", cache)
	code, got, stderr := cli(t, "plan", "--profile", p, "--mirror", sampleMirror, "--cache", cache)
	if code != exitOK || got != want {
		t.Errorf("plan --profile (profiles --json 6): exit %d %s\n%s\nwant\n%s", code, stderr, got, want)
	}
	if code, _, stderr := cli(t, "profiles", "--json", "jetpack99"); code != exitUsage ||
		!strings.Contains(stderr, `no built-in profile "jetpack99"`) {
		t.Errorf("profiles --json jetpack99: exit %d: %s", code, stderr)
	}
	// The list is not a profile file, and the error says so and which
	// command prints one.
	_, list, _ := cli(t, "profiles", "--json")
	if !strings.Contains(list, `"schema": "debredist.profiles/v1"`) {
		t.Fatalf("profiles --json: %s", list)
	}
	if err := os.WriteFile(p, []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, "plan", "--profile", p, "--mirror", sampleMirror, "--cache", cache)
	if code != exitUsage ||
		!strings.Contains(stderr, "the list of profiles (schema debredist.profiles/v1), not a profile") ||
		!strings.Contains(stderr, "a profile file holds one profile: what 'debredist profiles --json NAME' prints") {
		t.Errorf("plan --profile <list>: exit %d: %s", code, stderr)
	}
}

// TestOfflineAfterOnline: after one online run against an HTTP mirror,
// plan and convert work with --offline and no server.
func TestOfflineAfterOnline(t *testing.T) {
	srv, _ := mirrorServer(t, false)
	cache, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	code, online, stderr := cli(t, "plan", "--jetpack", "6", "--mirror", srv.URL, "--cache", cache)
	if code != exitOK {
		t.Fatalf("online plan: %d %s", code, stderr)
	}
	if code, _, stderr := cli(t, "convert", "--jetpack", "6", "--mirror", srv.URL, "--cache", cache,
		"--out", out); code != exitOK {
		t.Fatalf("online convert: %d %s", code, stderr)
	}
	url := srv.URL
	srv.Close()
	code, offline, stderr := cli(t, "plan", "--jetpack", "6", "--mirror", url, "--cache", cache, "--offline")
	if code != exitOK || offline != online {
		t.Errorf("offline plan: exit %d %s\n%s\nwant\n%s", code, stderr, offline, online)
	}
	out2 := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := cli(t, "convert", "--jetpack", "6", "--mirror", url, "--cache", cache, "--out", out2,
		"--offline"); code != exitOK {
		t.Errorf("offline convert: %d %s", code, stderr)
	}
	// Another suite was never read online: the error says what to do.
	if code, _, stderr := cli(t, "plan", "--l4t", "r36.4", "--mirror", url, "--cache", cache,
		"--offline"); code != exitFailure ||
		!strings.Contains(stderr, "run once without --offline") {
		t.Errorf("offline plan of an uncached suite: exit %d %s", code, stderr)
	}
}

// TestMirrorFromEnvironment: DEBREDIST_MIRROR is the mirror when --mirror
// is not given.
func TestMirrorFromEnvironment(t *testing.T) {
	cmd := asCLI(t, "plan", "--jetpack", "6", "--cache", t.TempDir())
	m, _ := filepath.Abs(sampleMirror)
	cmd.Env = append(cmd.Env, "DEBREDIST_MIRROR="+m)
	o, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(o), "jetpack6: L4T r36.5") {
		t.Errorf("plan with DEBREDIST_MIRROR: %v\n%s", err, o)
	}
}

// TestPlanAndConvertAgreeOnOrder: convert lists products in the order plan
// does (the profile's order: cuda, cudnn, tensorrt, then l4t).
func TestPlanAndConvertAgreeOnOrder(t *testing.T) {
	cache := t.TempDir()
	products := func(args ...string) []string {
		code, stdout, stderr := cli(t, args...)
		if code != exitOK {
			t.Fatalf("%v: %d %s", args, code, stderr)
		}
		var out []string
		for _, l := range strings.Split(stdout, "\n") {
			f := strings.Fields(l)
			if len(f) > 2 && (f[0] == "cuda" || f[0] == "cudnn" || f[0] == "tensorrt" || f[0] == "l4t") &&
				(len(out) == 0 || out[len(out)-1] != f[0]) {
				out = append(out, f[0])
			}
		}
		return out
	}
	plan := products("plan", "--jetpack", "6", "--mirror", sampleMirror, "--cache", cache)
	conv := products("convert", "--jetpack", "6", "--mirror", sampleMirror, "--cache", cache, "--out", t.TempDir())
	if strings.Join(plan, " ") != "cuda cudnn tensorrt l4t" || strings.Join(conv, " ") != strings.Join(plan, " ") {
		t.Errorf("plan lists products %v, convert %v", plan, conv)
	}
}

// TestConvertShortOutAndLockOut: -o is --out, and --lock-out says where it
// wrote the lock.
func TestConvertShortOutAndLockOut(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "l.json")
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := cli(
		t,
		"convert",
		"--jetpack",
		"6",
		"--mirror",
		sampleMirror,
		"--cache",
		t.TempDir(),
		"-o",
		out,
		"--lock-out",
		lock,
		"--only",
		"cuda_cudart",
	)
	if code != exitOK || !strings.Contains(stdout, "manifest "+out+"/cuda/redist/redistrib_12.6.68.json") ||
		!strings.Contains(stdout, "lock     "+lock+"\n") {
		t.Errorf("convert -o --lock-out: exit %d %s\n%s", code, stderr, stdout)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Error(err)
	}
}

// TestNotFoundSaysNotFound (issue 31 item 1): a missing mirror directory and
// a suite the mirror lacks say so, naming the path and the suites the
// mirror has; --allow-unverified-index is not suggested for them. Both are
// something the command line names that is not there: exit 2 (issue 39).
func TestNotFoundSaysNotFound(t *testing.T) {
	cache := t.TempDir()
	missing := filepath.Join(t.TempDir(), "nonexistent")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--jetpack", "6", "--mirror", missing}, []string{missing + ": no such mirror directory"}},
		{
			[]string{"--l4t", "r36.9", "--mirror", sampleMirror},
			[]string{"common/dists/r36.9: no such suite r36.9", "suites: r35.6, r36.4, r36.5, r39.2"},
		},
		{
			[]string{"--jetpack", "7.0", "--mirror", sampleMirror},
			[]string{"no such suite r38.4", "suites: r35.6, r36.4, r36.5, r39.2"},
		},
		{[]string{"--l4t", "r36.9", "--mirror", sampleMirror, "--allow-unverified-index"}, []string{"no such suite r36.9"}},
	} {
		code, _, stderr := cli(t, append(append([]string{"plan"}, tc.args...), "--cache", cache)...)
		if code != exitUsage || strings.Contains(stderr, "unverified") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("plan %v: exit %d, stderr:\n%s", tc.args, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("plan %v: stderr lacks %q:\n%s", tc.args, w, stderr)
			}
		}
	}
}

// TestFailOnWarnings (issue 31 item 2): a CI job gates on warnings by code:
// the first run and a no-op rerun of the same OUT report the same warnings
// with codes; --fail-on-warnings fails (exit 1, the JSON still printed)
// unless --allow-warning names every code.
func TestFailOnWarnings(t *testing.T) {
	cache, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	conv := func(extra ...string) (int, []map[string]string, string) {
		args := append(
			[]string{
				"convert",
				"--jetpack",
				"6",
				"--only",
				"tensorrt",
				"--mirror",
				sampleMirror,
				"--cache",
				cache,
				"--out",
				out,
				"--json",
			},
			extra...)
		code, stdout, stderr := cli(t, args...)
		var doc struct {
			Warnings []map[string]string `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("%v: exit %d, no JSON (%v): %s", extra, code, err, stderr)
		}
		return code, doc.Warnings, stderr
	}
	code, first, stderr := conv()
	if code != exitOK || len(first) == 0 || first[0]["code"] != "nixpkgs-insecure" || first[0]["package"] != "tensorrt" {
		t.Fatalf("first run: exit %d, warnings %v", code, first)
	}
	if !strings.Contains(stderr, "[nixpkgs-insecure]") {
		t.Errorf("stderr does not name the code:\n%s", stderr)
	}
	code, again, stderr := conv("--fail-on-warnings")
	if code != exitFailure || !reflect.DeepEqual(again, first) ||
		!strings.Contains(stderr, "warning(s) not allowed: nixpkgs-insecure (1)") ||
		!strings.Contains(stderr, "[nixpkgs-insecure]") {
		t.Errorf(
			"no-op rerun with --fail-on-warnings: exit %d, warnings %v (first %v), stderr:\n%s",
			code,
			again,
			first,
			stderr,
		)
	}
	if code, again, stderr = conv("--fail-on-warnings", "--allow-warning", "nixpkgs-insecure"); code != exitOK ||
		!reflect.DeepEqual(again, first) {
		t.Errorf("with the code allowed: exit %d, warnings %v, stderr:\n%s", code, again, stderr)
	}
	if code, _, stderr := cli(t, "convert", "--jetpack", "6", "--out", out, "--fail-on-warnings",
		"--allow-warning", "cve"); code != exitUsage ||
		!strings.Contains(stderr, "nixpkgs-insecure") {
		t.Errorf("an unknown code: exit %d, stderr %s", code, stderr)
	}
}

// TestForeignOutRefusedOnce (issue 31 item 5): an OUT holding the user's
// own cuda/ directory (or file, or symlink) is refused before anything is
// written, naming what to move, the same way on every run, never "rerun";
// once it is moved the conversion runs.
func TestForeignOutRefusedOnce(t *testing.T) {
	cache := t.TempDir()
	for _, kind := range []string{"dir", "file", "symlink"} {
		out := filepath.Join(t.TempDir(), "userdir")
		testutil.Must(t, os.MkdirAll(out, 0o755))
		at := filepath.Join(out, "cuda")
		switch kind {
		case "dir":
			testutil.Must(t, os.MkdirAll(at, 0o755))
			testutil.Must(t, os.WriteFile(filepath.Join(at, "notes.txt"), []byte("mine\n"), 0o644))
		case "file":
			testutil.Must(t, os.WriteFile(at, []byte("mine\n"), 0o644))
		case "symlink":
			testutil.Must(t, os.Symlink(t.TempDir(), at))
		}
		for run := range 2 {
			code, _, stderr := cli(
				t,
				"convert",
				"--jetpack",
				"6",
				"--only",
				"cuda_cudart",
				"--mirror",
				sampleMirror,
				"--cache",
				cache,
				"--out",
				out,
				"--quiet",
			)
			if code != exitFailure || !strings.Contains(stderr, at+" is a") ||
				!strings.Contains(stderr, "move it out of "+out) ||
				strings.Contains(stderr, "rerun") ||
				strings.Count(stderr, "\n") != 1 {
				t.Errorf("%s, run %d: exit %d, stderr:\n%s", kind, run+1, code, stderr)
			}
			ents, _ := os.ReadDir(out)
			if len(ents) != 1 {
				t.Errorf("%s, run %d: OUT holds %d entries, want only the user's cuda", kind, run+1, len(ents))
			}
		}
		testutil.Must(t, os.RemoveAll(at))
		code, _, stderr := cli(t, "convert", "--jetpack", "6", "--only", "cuda_cudart", "--mirror", sampleMirror,
			"--cache", cache, "--out", out, "--quiet")
		if code != exitOK {
			t.Errorf("%s moved away: exit %d: %s", kind, code, stderr)
		}
	}
}

// TestWordsMatchWhatHappens (issue 31 item 6): a directory mirror's debs
// are "read from the mirror" into the cache the output names, not
// "downloaded"; --offline with debs missing is one line naming the cache
// and the remedy; with --lock the plan line is not cut short.
func TestWordsMatchWhatHappens(t *testing.T) {
	cache, out, lock := t.TempDir(), filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "j6.lock")
	code, stdout, stderr := cli(
		t,
		"convert",
		"--jetpack",
		"6",
		"--only",
		"cuda_cudart",
		"--mirror",
		sampleMirror,
		"--cache",
		cache,
		"--out",
		out,
		"--lock-out",
		lock,
	)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{stdout, stderr} {
		if strings.Contains(s, "downloaded") {
			t.Errorf("a directory mirror's debs are called downloaded:\n%s", s)
		}
	}
	absMirror, _ := filepath.Abs(sampleMirror) // recorded absolute
	if !strings.Contains(stderr, "those not in the cache "+cache+" are read from the mirror directory "+absMirror) ||
		!strings.Contains(stdout, "debs read from the mirror directory into the cache") {
		t.Errorf("the output does not say the debs were read into the cache:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	code, _, stderr = cli(
		t,
		"convert",
		"--lock",
		lock,
		"--only",
		"cuda_cudart",
		"--mirror",
		sampleMirror,
		"--cache",
		cache,
		"--out",
		out,
	)
	if code != exitOK || !strings.Contains(stderr, "plan: jetpack6, 1 redist packages from the lock's debs\n") {
		t.Errorf("--lock: exit %d, the plan line is cut or missing:\n%s", code, stderr)
	}
	empty := t.TempDir()
	for _, args := range [][]string{
		{"convert", "--jetpack", "6", "--offline", "--mirror", sampleMirror, "--cache", empty,
			"--out", filepath.Join(t.TempDir(), "o")},
		{"convert", "--lock", lock, "--offline", "--cache", empty, "--out", filepath.Join(t.TempDir(), "o")},
	} {
		code, _, stderr := cli(t, append(args, "--quiet")...)
		remedy := "run once without --offline"
		if args[1] == "--jetpack" {
			remedy = "drop --offline to read the debs from it"
		}
		if code != exitFailure || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, "are not in the cache "+empty) ||
			!strings.Contains(stderr, remedy) {
			t.Errorf("%v: exit %d, want one line naming the cache and %q:\n%s", args, code, remedy, stderr)
		}
	}
}

// TestProgressBarWeightsBytes (issue 31 item 6): on a terminal the build
// stage's bar counts the bytes of debs each built package read, so one
// large package done moves it most of the way.
func TestProgressBarWeightsBytes(t *testing.T) {
	a := &app{stderr: io.Discard}
	p := mpb.New(mpb.WithOutput(io.Discard))
	pr := &progress{
		w:       io.Discard,
		a:       a,
		stage:   "indexes",
		started: time.Now(),
		stop:    make(chan struct{}),
		p:       p,
		bars:    map[string]*mpb.Bar{},
	}
	pr.out = &barWriter{p: p, fallback: io.Discard}
	pr.refresh()
	pr.overall = p.AddBar(0)
	for _, e := range []event.Event{
		{Kind: event.Plan, Total: 3, Message: "jetpack6"},
		{Kind: event.UpToDate, Package: "small"},
		{Kind: event.BuildPlan, Total: 2, Bytes: 1000},
		{Kind: event.BuildStart, Package: "big", Total: 2},
		{Kind: event.BuildStart, Package: "tiny", Total: 1},
		{Kind: event.BuildDone, Package: "big", Bytes: 400, Total: 900},
	} {
		pr.handle(e)
	}
	if got := pr.overall.Current(); got != 900 {
		t.Errorf("after the 900-byte package of 1000 bytes of work: bar at %d, want 900", got)
	}
	pr.close(nil)
	p.Wait()
}
