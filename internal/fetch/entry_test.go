package fetch

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
)

// TestEntryVerifiesWhatWasRead: a cache entry is hashed as it is read
// (also the part the reader left), a changed byte is a *CorruptError, and
// Evict + Fetch put the right bytes back.
func TestEntryVerifiesWhatWasRead(t *testing.T) {
	s := newServer(t)
	body := randomBytes(300<<10, 7)
	pkg, path := testPkg("libfoo", body)
	s.put(path, body)
	f := mustNew(t, testOptions(t, s.URL, nil))
	paths, err := f.Fetch(context.Background(), []apt.Package{pkg})
	if err != nil {
		t.Fatal(err)
	}
	entry := paths[pkg.SHA256]

	read := func() error {
		e, err := OpenEntry(entry, pkg.Name, pkg.SHA256)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = e.Close() }()
		if _, err := io.CopyN(io.Discard, e, 1000); err != nil { // a reader stopping early
			t.Fatal(err)
		}
		sum, n, err := e.Verify()
		if err == nil && (sum != pkg.SHA256 || n != int64(len(body))) {
			t.Errorf("Verify: %s %d, want %s %d", sum, n, pkg.SHA256, len(body))
		}
		return err
	}
	if err := read(); err != nil {
		t.Fatalf("intact entry: %v", err)
	}

	b := append([]byte(nil), body...)
	b[200<<10] ^= 1 // past what the reader read itself
	if err := os.WriteFile(entry, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var ce *fault.CorruptCacheError
	if err := read(); !errors.As(err, &ce) || ce.Package != "libfoo" || ce.Path != entry || ce.Expected != pkg.SHA256 {
		t.Fatalf("corrupt entry: got %v, want a *CorruptError naming package, path and hash", err)
	}
	if err := f.Evict(context.Background(), pkg.SHA256); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("Evict kept the corrupt entry: %v", err)
	}
	if _, err := f.Fetch(context.Background(), []apt.Package{pkg}); err != nil {
		t.Fatal(err)
	}
	if err := read(); err != nil {
		t.Fatalf("after re-download: %v", err)
	}
	// Evict leaves a good entry alone (another process repaired it first).
	if err := f.Evict(context.Background(), pkg.SHA256); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Errorf("Evict removed a good entry: %v", err)
	}
}

// TestUnwritableCacheIsOneError: a cache that cannot be created is one
// error, not one per deb.
func TestUnwritableCacheIsOneError(t *testing.T) {
	s := newServer(t)
	var pkgs []apt.Package
	for i, name := range []string{"liba", "libb", "libc"} {
		body := randomBytes(1000, uint64(i))
		p, path := testPkg(name, body)
		s.put(path, body)
		pkgs = append(pkgs, p)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, s.URL, nil)
	o.CacheDir = filepath.Join(file, "cache")
	_, err := mustNew(t, o).Fetch(context.Background(), pkgs)
	if err == nil || strings.Count(err.Error(), "\n") != 0 || !strings.Contains(err.Error(), "cache directory") {
		t.Fatalf("got %v, want one line about the cache directory", err)
	}
	// A regular file as the cache root is refused up front.
	o.CacheDir = file
	if _, err := New(o); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("New with a file as cache: %v", err)
	}
}

// TestSameCauseIsOneError: debs failing for one reason (a mirror that is
// down) are one error line; different causes stay apart, and errors.As
// still finds each.
func TestSameCauseIsOneError(t *testing.T) {
	s := newServer(t)
	var pkgs []apt.Package
	var paths []string
	for i, name := range []string{"liba", "libb", "libc"} {
		p, path := testPkg(name, randomBytes(1000, uint64(i)))
		pkgs, paths = append(pkgs, p), append(paths, path)
	}
	o := testOptions(t, "http://127.0.0.1:1", nil) // nothing listens there
	o.Retries = -1
	_, err := mustNew(t, o).Fetch(context.Background(), pkgs)
	var sc *fault.SameCauseError
	if !errors.As(err, &sc) || len(sc.Errs) != 3 || strings.Count(err.Error(), "\n") != 0 ||
		!strings.Contains(err.Error(), "3 debs failed the same way (") ||
		!strings.Contains(err.Error(), "connection refused): liba, libb, libc; the first: liba") {
		t.Fatalf("got %v, want one line for 3 debs", err)
	}

	// 404s name different URLs: still one line, in the same form, and
	// errors.As finds each *HTTPError.
	_, err = mustNew(t, testOptions(t, s.URL, nil)).Fetch(context.Background(), pkgs)
	var he *fault.HTTPError
	if !errors.As(err, &he) || strings.Count(err.Error(), "\n") != 0 ||
		!strings.Contains(
			err.Error(),
			"3 debs failed the same way (HTTP 404 Not Found): liba, libb, libc; the first: liba: ",
		) {
		t.Fatalf("got %v, want one line for 3 HTTP 404s", err)
	}
	if !errors.As(err, &sc) || len(sc.Errs) != 3 {
		t.Fatalf("got %v, want a *SameCauseError of 3", err)
	}

	// Another srvFault for one, 404 from the others: two lines, one per kind.
	s.put(paths[0], nil, status(500), status(500))
	o = testOptions(t, s.URL, nil)
	o.Retries = 1
	_, err = mustNew(t, o).Fetch(context.Background(), pkgs)
	if n := strings.Count(err.Error(), "\n"); n != 1 || !strings.HasPrefix(err.Error(), "liba ") ||
		!strings.Contains(err.Error(), "2 debs failed the same way (HTTP 404 Not Found): libb, libc;") {
		t.Errorf("got %v, want a line for liba and one for the two 404s", err)
	}
}
