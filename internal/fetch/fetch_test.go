package fetch

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
)

const testSize = 300 << 10

func TestFetchFaults(t *testing.T) {
	body := randomBytes(testSize, 1)
	longer := append(bytes.Clone(body), "trailing junk"...)
	tests := []struct {
		name     string
		faults   []srvFault
		retries  int
		requests int
		wantErr  func(error) bool // nil: success
		ranged   bool             // a later request carries a non-zero Range
		stall    time.Duration    // the stall timeout, when not the tests' 200 ms
	}{
		{name: "ok", requests: 1},
		{name: "reset mid-body, Range honoured", faults: []srvFault{resetAfter(100 << 10)}, requests: 2, ranged: true},
		{
			name:     "reset mid-body, Range ignored",
			faults:   []srvFault{resetAfter(100 << 10), ignoreRange},
			requests: 2,
			ranged:   true,
		},
		{name: "500 then 503 then ok", faults: []srvFault{status(500), status(503)}, requests: 3},
		{name: "429 then ok", faults: []srvFault{status(429)}, requests: 2},
		{name: "404 not retried", faults: []srvFault{status(404)}, requests: 1, wantErr: httpStatus(404)},
		{name: "403 not retried", faults: []srvFault{status(403)}, requests: 1, wantErr: httpStatus(403)},
		{name: "410 not retried", faults: []srvFault{status(410)}, requests: 1, wantErr: httpStatus(410)},
		{
			name:     "500 forever",
			faults:   []srvFault{status(500), status(500), status(500), status(500)},
			retries:  2,
			requests: 3,
			wantErr:  httpStatus(500),
		},
		// A slow but steady body is not a stall: 50 ms gaps against a 2 s
		// stall timeout (not the tests' 200 ms, which a loaded CI machine
		// can miss by that much).
		{name: "trickle", faults: []srvFault{trickle(6, 50*time.Millisecond)}, requests: 1, stall: 2 * time.Second},
		{name: "stall then ok", faults: []srvFault{stallAfter(50 << 10)}, requests: 2, ranged: true},
		{name: "wrong bytes once", faults: []srvFault{serveBytes(corrupted(body))}, requests: 2},
		{
			name:     "wrong bytes twice",
			faults:   []srvFault{serveBytes(corrupted(body)), serveBytes(corrupted(body))},
			requests: 2,
			wantErr:  isHashMismatch,
		},
		{
			name:     "longer file twice",
			faults:   []srvFault{serveBytes(longer), serveBytes(longer)},
			requests: 2,
			wantErr:  isSizeMismatch,
		},
		{name: "Content-Length too large", faults: []srvFault{contentLength(+1000)}, requests: 1},
		{name: "Content-Length too small once", faults: []srvFault{contentLength(-1000)}, requests: 2, ranged: true},
		{
			name:     "Content-Length too small always",
			faults:   []srvFault{contentLength(-1000), contentLength(-1000), contentLength(-1000)},
			retries:  2,
			requests: 3,
			wantErr:  func(err error) bool { return strings.Contains(err.Error(), "body ended after") },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			pkg, path := testPkg("cuda-foo", body)
			srv.put(path, body, tc.faults...)
			var log eventLog
			o := testOptions(t, srv.URL, &log)
			o.Retries = tc.retries
			if tc.stall > 0 {
				o.StallTimeout = tc.stall
			}
			f := mustNew(t, o)
			paths, err := f.Fetch(context.Background(), []apt.Package{pkg})
			if got := srv.requests(path); got != tc.requests {
				t.Errorf("requests = %d, want %d (ranges %q)", got, tc.requests, srv.rangeHeaders(path))
			}
			assertCleanCache(t, o.CacheDir)
			if tc.ranged {
				rs := srv.rangeHeaders(path)
				if len(rs) < 2 || !strings.HasPrefix(rs[1], "bytes=") || rs[1] == "bytes=0-" {
					t.Errorf("second request has Range %q, want a resume", rs)
				}
			}
			if tc.wantErr != nil {
				if err == nil || !tc.wantErr(err) {
					t.Fatalf("err = %v, want a matching error", err)
				}
				for _, s := range []string{"cuda-foo", srv.URL} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not name %q", err, s)
					}
				}
				if len(paths) != 0 {
					t.Errorf("paths = %v after failure", paths)
				}
				if log.count(Failed) != 1 {
					t.Errorf("%d Failed events, want 1", log.count(Failed))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(paths[pkg.SHA256])
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("cache entry wrong (err %v)", err)
			}
			if paths[pkg.SHA256] != f.CachePath(pkg.SHA256) {
				t.Errorf("path %s, CachePath %s", paths[pkg.SHA256], f.CachePath(pkg.SHA256))
			}
			if n := log.count(Retried); n != tc.requests-1 {
				t.Errorf("%d Retried events, want %d", n, tc.requests-1)
			}
			if log.count(Started) != 1 || log.count(Done) != 1 {
				t.Errorf("events %v", log.all())
			}
		})
	}
}

func httpStatus(code int) func(error) bool {
	return func(err error) bool {
		var he *fault.HTTPError
		return errors.As(err, &he) && he.Status == code && he.Package == "cuda-foo" && strings.Contains(he.URL, "%2Bcuda12.6")
	}
}

func isHashMismatch(err error) bool {
	var hm *fault.HashMismatchError
	return errors.As(err, &hm) && hm.Package == "cuda-foo" && hm.Expected != hm.Actual &&
		strings.Contains(hm.Error(), "replaced under the same name")
}

func isSizeMismatch(err error) bool {
	var sm *fault.SizeMismatchError
	return errors.As(err, &sm) && sm.Expected == testSize && sm.Actual > testSize
}

func TestFetchEvents(t *testing.T) {
	body := randomBytes(testSize, 2)
	srv := newServer(t)
	pkg, path := testPkg("libfoo", body)
	srv.put(path, body, status(503))
	var log eventLog
	o := testOptions(t, srv.URL, &log)
	f := mustNew(t, o)
	if _, err := f.Fetch(context.Background(), []apt.Package{pkg}); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var last int64
	for _, e := range log.all() {
		if e.Kind != Progress {
			kinds = append(kinds, e.Kind.String())
		} else {
			if e.Bytes <= last || e.Bytes > e.Total || e.Total != testSize {
				t.Errorf("progress %d/%d after %d", e.Bytes, e.Total, last)
			}
			last = e.Bytes
		}
		if e.Package != "libfoo" {
			t.Errorf("event %v names package %q", e.Kind, e.Package)
		}
		if e.Kind == Retried && (e.Attempt != 2 || e.Err == nil) {
			t.Errorf("retried event %+v", e)
		}
	}
	if last != testSize {
		t.Errorf("last progress %d, want %d", last, testSize)
	}
	if got, want := strings.Join(kinds, ","), "started,retried,done"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	// Second fetch: a cache hit, no request.
	if _, err := f.Fetch(context.Background(), []apt.Package{pkg}); err != nil {
		t.Fatal(err)
	}
	if srv.requests(path) != 2 || log.count(CacheHit) != 1 {
		t.Errorf("requests %d, cache hits %d", srv.requests(path), log.count(CacheHit))
	}
}

func TestFetchCancel(t *testing.T) {
	body := randomBytes(testSize, 3)
	srv := newServer(t)
	pkg, path := testPkg("libslow", body)
	srv.put(path, body, stallAfter(10<<10))
	ctx, cancel := context.WithCancel(context.Background())
	o := testOptions(t, srv.URL, nil)
	o.StallTimeout = time.Minute // only the cancellation can end the download
	o.OnEvent = func(e Event) {
		if e.Kind == Started {
			go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		}
	}
	f := mustNew(t, o)
	paths, err := f.Fetch(ctx, []apt.Package{pkg})
	if !errors.Is(err, context.Canceled) || len(paths) != 0 {
		t.Fatalf("Fetch = %v, %v; want context.Canceled", paths, err)
	}
	assertCleanCache(t, o.CacheDir)
	if n := srv.requests(path); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestFetchTwoFetchersOneCache(t *testing.T) {
	body := randomBytes(testSize, 4)
	srv := newServer(t)
	pkg, path := testPkg("libshared", body)
	srv.put(path, body, trickle(4, 30*time.Millisecond))
	cache := t.TempDir()
	var fetchers []*Fetcher
	for range 2 {
		o := testOptions(t, srv.URL, nil)
		o.CacheDir = cache
		fetchers = append(fetchers, mustNew(t, o))
	}
	// The same deb twice in one call (two repos), plus the same deb from two
	// goroutines per Fetcher.
	dup := pkg
	dup.Repo = "t234"
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := range 4 {
		wg.Go(func() {
			_, err := fetchers[i%2].Fetch(context.Background(), []apt.Package{pkg, dup})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := srv.requests(path); n != 1 {
		t.Errorf("%d downloads, want 1", n)
	}
	if n := srv.requests("/t234/" + pkg.Filename); n != 0 {
		t.Errorf("%d requests to the duplicate's URL, want 0", n)
	}
	assertCleanCache(t, cache)
}

func TestFetchFallsBackToOtherRepo(t *testing.T) {
	body := randomBytes(testSize, 5)
	srv := newServer(t)
	pkg, path := testPkg("libmoved", body)
	dup := pkg
	dup.Repo = "t234"
	srv.put("/t234/"+pkg.Filename, body)
	o := testOptions(t, srv.URL, nil)
	f := mustNew(t, o)
	paths, err := f.Fetch(context.Background(), []apt.Package{pkg, dup})
	if err != nil || paths[pkg.SHA256] == "" {
		t.Fatalf("Fetch = %v, %v", paths, err)
	}
	if srv.requests(path) != 1 || srv.requests("/t234/"+pkg.Filename) != 1 {
		t.Errorf("requests common %d, t234 %d", srv.requests(path), srv.requests("/t234/"+pkg.Filename))
	}
	assertCleanCache(t, o.CacheDir)
}

func TestFetchCorruptCache(t *testing.T) {
	body := randomBytes(testSize, 6)
	tests := []struct {
		name       string
		corrupt    func(path string) error
		verify     bool
		refetch    bool
		wantDetect bool
	}{
		{name: "same size, no verify: not noticed", corrupt: flipByte, verify: false, refetch: false},
		{name: "same size, verify: refetched", corrupt: flipByte, verify: true, refetch: true},
		{
			name:    "truncated, no verify: refetched",
			corrupt: func(p string) error { return os.Truncate(p, 1000) },
			refetch: true,
		},
		{name: "replaced by a directory: refetched", corrupt: func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o755)
		}, refetch: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			pkg, path := testPkg("libcorrupt", body)
			srv.put(path, body)
			o := testOptions(t, srv.URL, nil)
			o.VerifyCache = tc.verify
			f := mustNew(t, o)
			if _, err := f.Fetch(context.Background(), []apt.Package{pkg}); err != nil {
				t.Fatal(err)
			}
			if err := tc.corrupt(f.CachePath(pkg.SHA256)); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Fetch(context.Background(), []apt.Package{pkg}); err != nil {
				t.Fatal(err)
			}
			want := 1
			if tc.refetch {
				want = 2
				assertCleanCache(t, o.CacheDir)
			}
			if got := srv.requests(path); got != want {
				t.Errorf("%d requests, want %d", got, want)
			}
		})
	}
}

func flipByte(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, corrupted(b), 0o644)
}

func TestFetchResumesLeftoverPartial(t *testing.T) {
	body := randomBytes(testSize, 7)
	tests := []struct {
		name     string
		partial  []byte
		requests int
		firstRng string
	}{
		{
			name:     "good prefix resumed",
			partial:  body[:testSize/2],
			requests: 1,
			firstRng: "bytes=" + strconv.Itoa(testSize/2) + "-",
		},
		{
			name:     "bad prefix: mismatch, then from scratch",
			partial:  bytes.Repeat([]byte{'x'}, 1000),
			requests: 2,
			firstRng: "bytes=1000-",
		},
		{name: "too long: dropped", partial: append(bytes.Clone(body), 'x'), requests: 1, firstRng: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			pkg, path := testPkg("libresume", body)
			srv.put(path, body)
			o := testOptions(t, srv.URL, nil)
			f := mustNew(t, o)
			dst := f.CachePath(pkg.SHA256)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(strings.TrimSuffix(dst, ".deb")+".partial", tc.partial, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Fetch(context.Background(), []apt.Package{pkg}); err != nil {
				t.Fatal(err)
			}
			rs := srv.rangeHeaders(path)
			if len(rs) != tc.requests || rs[0] != tc.firstRng {
				t.Errorf("requests with Range %q, want %d starting with %q", rs, tc.requests, tc.firstRng)
			}
			assertCleanCache(t, o.CacheDir)
		})
	}
}

func TestFetchOffline(t *testing.T) {
	srv := newServer(t)
	var pkgs []apt.Package
	for i, name := range []string{"liba", "libc", "libb"} {
		body := randomBytes(1000+i, uint64(10+i))
		p, path := testPkg(name, body)
		srv.put(path, body)
		pkgs = append(pkgs, p)
	}
	o := testOptions(t, srv.URL, nil)
	online := mustNew(t, o)
	if _, err := online.Fetch(context.Background(), pkgs[:1]); err != nil {
		t.Fatal(err)
	}
	o.Offline = true
	f := mustNew(t, o)
	paths, err := f.Fetch(context.Background(), pkgs)
	var me *fault.MissingError
	if !errors.As(err, &me) {
		t.Fatalf("err = %v, want *MissingError", err)
	}
	var names []string
	for _, p := range me.Packages {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "libb,libc" {
		t.Errorf("missing %v, want libb,libc", names)
	}
	if !strings.Contains(err.Error(), "libb") || !strings.Contains(err.Error(), "libc") {
		t.Errorf("message %q does not list the debs", err)
	}
	if paths[pkgs[0].SHA256] != f.CachePath(pkgs[0].SHA256) {
		t.Errorf("cached deb not returned: %v", paths)
	}
	if got := f.Missing(pkgs); len(got) != 2 || got[0].Name != "libc" || got[1].Name != "libb" {
		t.Errorf("Missing = %v", got)
	}
	total := 0
	for _, p := range pkgs {
		u, _ := url.Parse(srv.URL)
		_ = u
		total += srv.requests("/common/" + p.Filename)
	}
	if total != 1 {
		t.Errorf("%d requests, want 1 (the online fetch)", total)
	}
	if _, _, err := f.Index(context.Background(), apt.NewRepo("", "common", "r36.5")); err == nil {
		t.Error("offline Index from an http mirror succeeded")
	}
}

func TestFetchLocalMirrors(t *testing.T) {
	body := randomBytes(testSize, 8)
	dir := t.TempDir()
	pkg, path := testPkg("liblocal", body)
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, path), body, 0o644); err != nil {
		t.Fatal(err)
	}
	missing, _ := testPkg("libgone", []byte("nothing"))
	wrong := pkg
	wrong.SHA256 = sha256Hex([]byte("other"))
	for _, base := range []string{dir, "file://" + dir} {
		t.Run(base, func(t *testing.T) {
			o := testOptions(t, base, nil)
			f := mustNew(t, o)
			paths, err := f.Fetch(context.Background(), []apt.Package{pkg})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(paths[pkg.SHA256]); !bytes.Equal(got, body) {
				t.Error("cache entry differs from the mirror file")
			}
			_, err = f.Fetch(context.Background(), []apt.Package{missing})
			if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "libgone") {
				t.Errorf("missing file: err = %v", err)
			}
			_, err = f.Fetch(context.Background(), []apt.Package{wrong})
			var hm *fault.HashMismatchError
			if !errors.As(err, &hm) {
				t.Errorf("wrong hash: err = %v", err)
			}
			assertCleanCache(t, o.CacheDir)
		})
	}
}

func TestFetchInvalidInput(t *testing.T) {
	o := testOptions(t, t.TempDir(), nil)
	f := mustNew(t, o)
	bad := []apt.Package{
		{Name: "short", SHA256: "abc", Filename: "pool/x.deb", Repo: "common"},
		{Name: "nothex", SHA256: strings.Repeat("z", 64), Filename: "pool/x.deb", Repo: "common"},
		{Name: "negsize", SHA256: strings.Repeat("a", 64), Size: -1, Filename: "pool/x.deb", Repo: "common"},
		{Name: "escape", SHA256: strings.Repeat("b", 64), Filename: "../../etc/passwd", Repo: "common"},
	}
	_, err := f.Fetch(context.Background(), bad)
	if err == nil {
		t.Fatal("no error")
	}
	for _, p := range bad {
		if !strings.Contains(err.Error(), p.Name) {
			t.Errorf("error does not name %s: %v", p.Name, err)
		}
	}
	if f.CachePath("abc") != "" {
		t.Error("CachePath accepted a bad hash")
	}
	if got := f.CachePath(strings.Repeat("AB", 32)); filepath.Base(got) != strings.Repeat("ab", 32)+".deb" {
		t.Errorf("CachePath = %s", got)
	}
	for _, base := range []string{"ftp://example.com/x", "http://"} {
		if _, err := New(Options{Base: base, CacheDir: t.TempDir()}); err == nil {
			t.Errorf("New accepted base %q", base)
		}
	}
	assertCleanCache(t, o.CacheDir)
}

func TestHeaderTimeout(t *testing.T) {
	body := randomBytes(1000, 9)
	srv := newServer(t)
	pkg, path := testPkg("libheaders", body)
	slowHeaders := func(w http.ResponseWriter, r *http.Request, body []byte) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}
	srv.put(path, body, slowHeaders)
	o := testOptions(t, srv.URL, nil)
	o.Timeout = 100 * time.Millisecond
	o.HTTPClient = &http.Client{} // the Fetcher's own timer, not the transport's, must fire
	f := mustNew(t, o)
	if _, err := f.Fetch(context.Background(), []apt.Package{pkg}); err != nil {
		t.Fatal(err)
	}
	if n := srv.requests(path); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestFetchUnknownSize covers packages from a lock file without Size: the
// hash alone decides, resume still works.
func TestFetchUnknownSize(t *testing.T) {
	body := randomBytes(testSize, 11)
	tests := []struct {
		name     string
		faults   []srvFault
		requests int
		wantErr  func(error) bool
	}{
		{name: "ok", requests: 1},
		{name: "reset then resume", faults: []srvFault{resetAfter(100 << 10)}, requests: 2},
		{
			name:     "wrong bytes twice",
			faults:   []srvFault{serveBytes(corrupted(body)), serveBytes(corrupted(body))},
			requests: 2,
			wantErr:  isHashMismatch,
		},
		{
			name:     "truncated file twice",
			faults:   []srvFault{serveBytes(body[:1000]), serveBytes(body[:1000])},
			requests: 2,
			wantErr:  isHashMismatch,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t)
			pkg, path := testPkg("cuda-foo", body)
			pkg.Size = 0
			srv.put(path, body, tc.faults...)
			o := testOptions(t, srv.URL, nil)
			f := mustNew(t, o)
			_, err := f.Fetch(context.Background(), []apt.Package{pkg})
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatal(err)
			case tc.wantErr != nil && (err == nil || !tc.wantErr(err)):
				t.Fatalf("err = %v, want a matching error", err)
			}
			if got := srv.requests(path); got != tc.requests {
				t.Errorf("%d requests, want %d", got, tc.requests)
			}
			if tc.wantErr == nil && len(f.Missing([]apt.Package{pkg})) != 0 {
				t.Error("Missing reports the fetched deb")
			}
			assertCleanCache(t, o.CacheDir)
		})
	}
}
