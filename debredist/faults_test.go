package debredist

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/publish"
	"github.com/debredist/debredist/internal/testutil"
)

// sampleMirror is the committed fake Jetson mirror (r35.6, r36.5, r39.2).
const sampleMirror = "../testdata/sample-mirror"

// Fault names for faultServer scripts.
const (
	fServe = ""      // answer normally
	fReset = "reset" // send the headers and half the body, then drop the connection
	f500   = "500"
	f503   = "503"
	fWrong = "wrong" // the right length with flipped bytes
	f404   = "404"
)

// faultServer serves a directory mirror over loopback HTTP, answering the
// i-th request for a path with script[i] (then normally, Range included),
// or always with a persistent fault.
type faultServer struct {
	*httptest.Server
	root       string
	mu         sync.Mutex
	script     map[string][]string
	persistent map[string]string
	reqs       map[string]int
}

func newFaultServer(t *testing.T, root string) *faultServer {
	t.Helper()
	s := &faultServer{root: root, script: map[string][]string{}, persistent: map[string]string{}, reqs: map[string]int{}}
	s.Server = httptest.NewServer(s)
	t.Cleanup(s.Close)
	return s
}

func (s *faultServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	s.mu.Lock()
	n := s.reqs[p]
	s.reqs[p]++
	fault := s.persistent[p]
	if sc := s.script[p]; fault == "" && n < len(sc) {
		fault = sc[n]
	}
	s.mu.Unlock()
	body, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(strings.TrimPrefix(p, "/"))))
	if err != nil || fault == f404 {
		http.NotFound(w, r)
		return
	}
	switch fault {
	case f500, f503:
		code := http.StatusInternalServerError
		if fault == f503 {
			code = http.StatusServiceUnavailable
		}
		http.Error(w, "injected fault", code)
	case fReset:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("no hijacker")
		}
		conn, buf, err := hj.Hijack()
		if err != nil {
			return
		}
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: application/octet-stream\r\n\r\n", len(body))
		_, _ = buf.Write(body[:len(body)/2]) // the fault: what reaches the client, it reports
		_ = buf.Flush()
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // RST, not FIN
		}
		_ = conn.Close()
	case fWrong:
		b := append([]byte(nil), body...)
		for i := len(b) / 3; i < len(b) && i < len(b)/3+16; i++ {
			b[i] ^= 0xa5
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	default:
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	}
}

func (s *faultServer) requests(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[p]
}

// poolPaths maps package name to its URL path in the sample mirror's r36.5
// common repo.
func poolPaths(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(sampleMirror, "common/dists/r36.5/main/binary-arm64/Packages.xz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pkgs, _, err := apt.ParsePackages(f, apt.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range pkgs {
		out[p.Name] = "/common/" + p.Filename
	}
	return out
}

// withoutProvenance drops the provenance sidecars (they record index URLs,
// which differ between a directory and an HTTP mirror).
func withoutProvenance(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if !redist.IsSidecarName(filepath.Base(k)) {
			out[k] = v
		}
	}
	return out
}

func sameSnapshot(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	var diffs []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			diffs = append(diffs, "missing "+k)
		} else if g != v {
			diffs = append(diffs, "differs "+k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, "extra "+k)
		}
	}
	if len(diffs) > 0 {
		if len(diffs) > 10 {
			diffs = append(diffs[:10], "…")
		}
		t.Errorf("%s differs from an uninterrupted run:\n  %s", what, strings.Join(diffs, "\n  "))
	}
}

var (
	baselineOnce sync.Once
	baselineSnap map[string]string
	baselineErr  error
)

// baseline converts JetPack 6 from the sample mirror once, undisturbed.
func baseline(t *testing.T) map[string]string {
	t.Helper()
	baselineOnce.Do(func() {
		dir, err := os.MkdirTemp("", "debredist-baseline-")
		if err != nil {
			baselineErr = err
			return
		}
		defer func() { _ = os.RemoveAll(dir) }()
		mirror, err := filepath.Abs(sampleMirror)
		if err != nil {
			baselineErr = err
			return
		}
		_, baselineErr = Convert(
			context.Background(),
			Options{
				Source:  Source{Mirror: mirror, CacheDir: filepath.Join(dir, "cache")},
				Release: Release{JetPack: "6"},
				Build:   Build{Out: filepath.Join(dir, "out")},
			},
		)
		if baselineErr == nil {
			baselineSnap = snapshot(t, filepath.Join(dir, "out"))
		}
	})
	if baselineErr != nil {
		t.Fatal(baselineErr)
	}
	return baselineSnap
}

// noOut fails unless a failed first conversion left no OUT behind.
func noOut(t *testing.T, out string) {
	t.Helper()
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Errorf("the failed first conversion left %s (%v): it must remove the OUT it created", out, err)
	}
}

// TestConvertTransientFaults injects resets, 5xx and wrong bytes once per
// URL: the conversion completes with the same output as a clean run.
func TestConvertTransientFaults(t *testing.T) {
	t.Parallel()
	want := withoutProvenance(baseline(t))
	srv := newFaultServer(t, sampleMirror)
	pp := poolPaths(t)
	faulted := map[string][]string{
		pp["libcublas-12-6"]:                                {fReset, f503},
		pp["cuda-cudart-12-6"]:                              {f500, fReset},
		pp["cuda-nvcc-12-6"]:                                {fWrong},
		pp["libcudnn9-cuda-12"]:                             {f503},
		pp["cuda-cudart-dev-12-6"]:                          {fReset},
		"/common/dists/r36.5/main/binary-arm64/Packages.xz": {f503},
	}
	for p, sc := range faulted {
		if p == "" {
			t.Fatalf("a faulted package is not in the sample mirror: %v", faulted)
		}
		srv.script[p] = sc
	}
	dir := t.TempDir()
	var retries sync.Map
	o := Options{
		Source:  Source{Mirror: srv.URL, CacheDir: filepath.Join(dir, "cache")},
		Release: Release{JetPack: "6"},
		Build:   Build{Out: filepath.Join(dir, "out")},
		OnEvent: func(e event.Event) {
			if e.Kind == event.FetchRetry {
				retries.Store(e.Package+" "+e.URL, true)
			}
		},
	}
	if _, err := Convert(context.Background(), o); err != nil {
		t.Fatalf("transient faults: %v", err)
	}
	for p, sc := range faulted {
		if n := srv.requests(p); n <= len(sc) {
			t.Errorf("%s: %d requests for %d injected faults: the faults were not retried", p, n, len(sc))
		}
	}
	n := 0
	retries.Range(func(any, any) bool { n++; return true })
	if n < 5 {
		t.Errorf("%d fetch-retry events, want one per faulted deb", n)
	}
	sameSnapshot(t, "OUT after transient faults", want, withoutProvenance(snapshot(t, o.Build.Out)))
	checkCacheClean(t, o.Source.CacheDir)
}

// TestConvertPersistentFaults: a deb that is always 404 or always has the
// wrong bytes fails the conversion with an error naming the package and
// the URL, and leaves no partial file in OUT or the cache.
func TestConvertPersistentFaults(t *testing.T) {
	t.Parallel()
	pp := poolPaths(t)
	cases := []struct {
		fault, pkg string
		check      func(error) bool
	}{
		{f404, "libcublas-12-6", func(err error) bool {
			var he *fault.HTTPError
			return errors.As(err, &he) && he.Status == 404 && he.Package == "libcublas-12-6"
		}},
		{fWrong, "cuda-cudart-12-6", func(err error) bool {
			var hm *fault.HashMismatchError
			return errors.As(err, &hm) && hm.Package == "cuda-cudart-12-6" && hm.Expected != hm.Actual
		}},
	}
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			srv := newFaultServer(t, sampleMirror)
			p := pp[c.pkg]
			srv.persistent[p] = c.fault
			dir := t.TempDir()
			o := Options{
				Source:  Source{Mirror: srv.URL, CacheDir: filepath.Join(dir, "cache")},
				Release: Release{JetPack: "6"},
				Build:   Build{Out: filepath.Join(dir, "out")},
			}
			_, err := Convert(context.Background(), o)
			if err == nil {
				t.Fatal("converted despite a persistent fault")
			}
			if !c.check(err) {
				t.Errorf("error %v (%T) is not the typed error for %s", err, err, c.fault)
			}
			for _, s := range []string{c.pkg, srv.URL + p} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %q", err, s)
				}
			}
			noOut(t, o.Build.Out)
			checkCacheClean(t, o.Source.CacheDir)
			_ = filepath.WalkDir(o.Source.CacheDir, func(q string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), strings.TrimSuffix(filepath.Base(p), ".deb")) {
					t.Errorf("cache holds %s for the failed deb", q)
				}
				return nil
			})
		})
	}
}

// TestConvertDiskFull converts into a 200 KiB tmpfs: the error says the
// disk is full; a first conversion leaves no OUT, and one over an existing
// OUT leaves it exactly as it was, with no temporary directory.
func TestConvertDiskFull(t *testing.T) {
	t.Parallel()
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a size-limited tmpfs here (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	dir := t.TempDir()
	o := Options{
		Source:  Source{Mirror: sampleMirror, CacheDir: filepath.Join(dir, "cache")},
		Release: Release{JetPack: "6"},
		Build:   Build{Out: filepath.Join(mnt, "out"), Jobs: 2},
	}
	_, err := Convert(context.Background(), o)
	if err == nil {
		t.Fatal("converted into a 200 KiB filesystem; the test needs an output larger than that")
	}
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space left on device") {
		t.Errorf("error does not say the disk is full: %v", err)
	}
	noOut(t, o.Build.Out) // a first conversion: nothing is left
	// Into an existing output the same failure leaves it as it was.
	o.Build.Out, o.Build.Only = filepath.Join(mnt, "existing"), []string{"cuda_cudart"}
	if _, err := Convert(context.Background(), o); err != nil {
		t.Fatalf("a small first conversion: %v", err)
	}
	before := snapshot(t, o.Build.Out)
	o.Build.Only = nil
	if _, err := Convert(context.Background(), o); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("full conversion over it: %v, want no space left", err)
	}
	if after := snapshot(t, o.Build.Out); !maps.Equal(before, after) {
		t.Errorf("a failed conversion changed an existing OUT")
	}
	for rel := range snapshot(t, o.Build.Out) {
		if strings.Contains(rel, publish.TmpDir) {
			t.Errorf("temporary file left: %s", rel)
		}
	}
}

// buildCLI builds cmd/debredist once per test binary (the cross-process
// tests share it) into a directory removed by TestMain, static
// (CGO_ENABLED=0): TestNixpkgsBuild's Nix builds run it too.
func buildCLI(t *testing.T) string {
	t.Helper()
	cli.once.Do(func() {
		cli.dir, cli.err = os.MkdirTemp("", "debredist-cli-")
		if cli.err != nil {
			return
		}
		cli.bin = filepath.Join(cli.dir, "debredist")
		cmd := exec.Command("go", "build", "-tags", "debredist_killpoints", "-o", cli.bin, "./cmd/debredist")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			cli.err = fmt.Errorf("go build ./cmd/debredist: %v\n%s", err, out)
		}
	})
	if cli.err != nil {
		t.Fatal(cli.err)
	}
	return cli.bin
}

var cli struct {
	once     sync.Once
	dir, bin string
	err      error
}

// TestMain removes the CLI built by buildCLI after the tests.
func TestMain(m *testing.M) {
	testutil.Main(m, func() {
		if cli.dir != "" {
			_ = os.RemoveAll(cli.dir)
		}
	}, removeSBOMOuts)
}

// convertCmd is `debredist convert` of JetPack 6 from the sample mirror,
// with extra arguments.
func convertCmd(bin, out, cache string, args ...string) *exec.Cmd {
	mirror, _ := filepath.Abs(sampleMirror)
	cmd := exec.Command(
		bin,
		append([]string{"convert", "--jetpack", "6", "--mirror", mirror, "--out", out, "--cache", cache}, args...)...)
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=")
	return cmd
}

// TestConvertSIGKILL kills `debredist convert` with SIGKILL at 4 points of
// a run of four archives, or at 15 of the whole of JetPack 6 with
// DEBREDIST_LONG_TESTS=1 (after N lines of progress on stderr, or after a
// delay shorter than an uninterrupted run; seeded), reruns it to
// completion each time, and compares OUT with an uninterrupted run byte for
// byte.
func TestConvertSIGKILL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a loop of SIGKILLed CLI runs: skipped with -short (the in-process interruption tests still run)")
	}
	bin := buildCLI(t)
	// The four archives of commitOnly at 4 points, or the whole of JetPack
	// 6 at 15 points with DEBREDIST_LONG_TESTS=1.
	args, lineKills, delayKills, minFiles := commitOnly, 3, 1, 12
	if testutil.Long() {
		args, lineKills, delayKills, minFiles = nil, 12, 3, 20
	}
	// -v: a line per deb and per package, to kill at points spread over
	// the whole run (without it, a line per stage).
	args = append(slices.Clone(args), "-v")
	ref := t.TempDir()
	refOut := filepath.Join(ref, "out")
	refCmd := convertCmd(bin, refOut, filepath.Join(ref, "cache"), args...)
	var refErr bytes.Buffer
	refCmd.Stderr = &refErr
	start := time.Now()
	if err := refCmd.Run(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, refErr.String())
	}
	refTime := time.Since(start)
	lines := strings.Count(refErr.String(), "\n")
	want := snapshot(t, refOut)
	if len(want) < minFiles || lines < 2*lineKills {
		t.Fatalf("reference output has only %d files and %d lines of progress", len(want), lines)
	}
	rng := rand.New(rand.NewPCG(8, 2024))
	type point struct {
		lines int
		delay time.Duration
	}
	var points []point
	for i := range lineKills { // after N lines of progress, spread over the run
		points = append(points, point{lines: i*lines/lineKills + rng.IntN(lines/lineKills/2+1)})
	}
	for range delayKills {
		points = append(points, point{lines: -1, delay: time.Duration(rng.Int64N(int64(refTime)))})
	}
	killed := 0
	for i, pt := range points {
		dir := t.TempDir()
		out, cache := filepath.Join(dir, "out"), filepath.Join(dir, "cache")
		cmd := convertCmd(bin, out, cache, args...)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		var lines int
		go func() {
			defer close(done)
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				lines++
				if lines == pt.lines {
					_ = cmd.Process.Signal(syscall.SIGKILL)
				}
			}
		}()
		if pt.lines == 0 {
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
		if pt.lines < 0 {
			time.Sleep(pt.delay)
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
		<-done
		err = cmd.Wait()
		var ee *exec.ExitError
		wasKilled := errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled()
		if wasKilled {
			killed++
		} else if err != nil {
			t.Fatalf("point %d: run failed without being killed: %v", i, err)
		}
		if o, err := convertCmd(bin, out, cache, args...).CombinedOutput(); err != nil {
			t.Fatalf("point %d (%+v, killed=%v after %d lines): rerun failed: %v\n%s", i, pt, wasKilled, lines, err, o)
		}
		sameSnapshot(
			t,
			fmt.Sprintf("point %d (%+v, killed=%v after %d lines)", i, pt, wasKilled, lines),
			want,
			snapshot(t, out),
		)
		checkCacheClean(t, cache)
	}
	t.Logf("%d of %d runs killed mid-run, each rerun byte-identical", killed, len(points))
	if killed < len(points)*2/3 {
		t.Errorf("only %d of %d runs were killed mid-run, want >= %d", killed, len(points), len(points)*2/3)
	}
}

// TestConvertConcurrentProcesses runs two `convert` processes on one cache
// with different OUT dirs (both succeed), then two on the same OUT while
// the test holds OUT's lock: both wait, then run one after the other (one
// builds everything, the other finds it up to date), and OUT is verified
// and identical to a single run.
func TestConvertConcurrentProcesses(t *testing.T) {
	t.Parallel()
	bin := buildCLI(t)
	want := baseline(t)
	run := func(cmds ...*exec.Cmd) []string {
		outs := make([]string, len(cmds))
		errs := make([]error, len(cmds))
		var wg sync.WaitGroup
		for i, c := range cmds {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var so bytes.Buffer
				c.Stdout = &so
				errs[i] = c.Run()
				outs[i] = so.String()
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("process %d: %v", i, err)
			}
		}
		return outs
	}

	t.Run("same cache, different OUT", func(t *testing.T) {
		dir := t.TempDir()
		cache := filepath.Join(dir, "cache")
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		ca, cb := convertCmd(bin, a, cache), convertCmd(bin, b, cache)
		ca.Stderr, cb.Stderr = io.Discard, io.Discard
		run(ca, cb)
		sameSnapshot(t, "OUT a", want, snapshot(t, a))
		sameSnapshot(t, "OUT b", want, snapshot(t, b))
		checkCacheClean(t, cache)
	})

	t.Run("same OUT", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		lk := flock.New(filepath.Join(out, publish.MutexFile))
		if err := lk.Lock(); err != nil {
			t.Fatal(err)
		}
		var waiting sync.WaitGroup
		var cmds []*exec.Cmd
		for i := range 2 {
			c := convertCmd(bin, out, filepath.Join(dir, fmt.Sprintf("cache%d", i)))
			pr, pw := io.Pipe()
			c.Stderr = pw
			waiting.Add(1)
			go func() {
				sc := bufio.NewScanner(pr)
				seen := false
				for sc.Scan() {
					if !seen && strings.Contains(sc.Text(), "waiting for it to finish") {
						seen = true
						waiting.Done()
					}
				}
			}()
			t.Cleanup(func() { _ = pw.Close() })
			cmds = append(cmds, c)
		}
		outs := make(chan []string, 1)
		go func() { outs <- run(cmds...) }()
		waitCh := make(chan struct{})
		go func() { waiting.Wait(); close(waitCh) }()
		select {
		case <-waitCh:
		case <-time.After(60 * time.Second):
			t.Fatal("the processes did not report waiting for the lock on OUT")
		}
		// Nothing may be written while another process holds the lock.
		for rel, v := range treeState(t, out) {
			if v != "dir" && rel != publish.MutexFile {
				t.Errorf("%s written while OUT was locked", rel)
			}
		}
		if err := lk.Unlock(); err != nil {
			t.Fatal(err)
		}
		res := <-outs
		built := []int{strings.Count(res[0], "  built\n"), strings.Count(res[1], "  built\n")}
		fresh := []int{strings.Count(res[0], "  up to date\n"), strings.Count(res[1], "  up to date\n")}
		firstBuilt := built[0] > 0 && fresh[0] == 0 && built[1] == 0 && fresh[1] > 0
		secondBuilt := built[1] > 0 && fresh[1] == 0 && built[0] == 0 && fresh[0] > 0
		if !firstBuilt && !secondBuilt {
			t.Errorf("runs interleaved: built %v, up to date %v\n%s\n%s", built, fresh, res[0], res[1])
		}
		sameSnapshot(t, "shared OUT", want, snapshot(t, out))
		rep, err := verify.Dir(context.Background(), out)
		if err != nil || rep.Err() != nil {
			t.Fatalf("verify: %v %v", err, rep.Err())
		}
	})
}

// TestChildrenDieWithParent: a conversion's child processes (the system
// xz decoders) die with it when it is killed. The xz on PATH is a stand-in
// that never exits on its own, so a child that outlived its parent would
// be seen.
func TestChildrenDieWithParent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a CLI run SIGKILLed: skipped with -short")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	fake := filepath.Join(dir, "bin")
	mustWrite(t, filepath.Join(fake, "xz"), []byte("#!/bin/sh\nexec sleep 600\n"))
	if err := os.Chmod(filepath.Join(fake, "xz"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A deb whose data member is large enough (>= 32 KiB of xz) for the
	// system xz.
	deb, err := debtest.Build(
		debtest.Deb{
			Control:    "Package: big\nVersion: 1\nArchitecture: arm64\nMaintainer: x\nDescription: big",
			AddParents: true,
			Files:      []debtest.File{{Name: "usr/lib/big.bin", Body: randomish(256 << 10)}},
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "big.deb")
	mustWrite(t, p, deb)
	cmd := exec.Command(bin, "extract", p, filepath.Join(dir, "x"))
	cmd.Env = append(os.Environ(), "PATH="+fake+":"+os.Getenv("PATH"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(20 * time.Second); child == 0; {
		child = childOf(cmd.Process.Pid)
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait() // killed: its error says so
			t.Fatal("the stand-in xz never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed: its error says so
	for deadline := time.Now().Add(2 * time.Second); alive(child); {
		if time.Now().After(deadline) {
			_ = syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the child xz (pid %d) outlived its killed parent by 2 s", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// randomish returns n bytes that xz cannot shrink much.
func randomish(n int) []byte {
	b := make([]byte, n)
	x := uint64(88172645463325252)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return b
}

// childOf returns the pid of a child process of pid, or 0.
func childOf(pid int) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			// pid (comm) state ppid ...
			f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
			if len(f) > 1 && f[1] == strconv.Itoa(pid) {
				return n
			}
		}
	}
	return 0
}

// alive reports whether pid runs (a zombie is dead).
func alive(pid int) bool {
	st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// TestManyFailuresOneForm: every deb failing the same way is one error
// line of one form, whatever the fault: HTTP 500 from every URL, or every
// URL redirected to a server that is down.
func TestManyFailuresOneForm(t *testing.T) {
	t.Parallel()
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + dead.Addr().String()
	_ = dead.Close()
	files := http.FileServer(http.Dir(sampleMirror))
	for name, fault := range map[string]func(w http.ResponseWriter, r *http.Request){
		"HTTP 500 Internal Server Error": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", 500) },
		"connection refused": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, deadURL+r.URL.Path, http.StatusFound)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, ".deb") {
					fault(w, r)
					return
				}
				files.ServeHTTP(w, r)
			}))
			defer srv.Close()
			dir := t.TempDir()
			_, err := Convert(
				context.Background(),
				Options{
					Source:  Source{Mirror: srv.URL, CacheDir: filepath.Join(dir, "c"), Retries: -1},
					Release: Release{JetPack: "6"},
					Build:   Build{Out: filepath.Join(dir, "o")},
				},
			)
			if err == nil {
				t.Fatal("converted with every deb failing")
			}
			msg := err.Error()
			if strings.Count(msg, "\n") != 0 ||
				!regexp.MustCompile(`^\d+ debs failed the same way \(.*`+regexp.QuoteMeta(name)+
					`.*\): [a-z0-9.+-]+(, [a-z0-9.+-]+){4} and \d+ more; the first: `).
					MatchString(msg) {
				t.Errorf(
					"got:\n%s\nwant one line: N debs failed the same way (%s): five names and N more; the first: ...",
					msg,
					name,
				)
			}
		})
	}
}
