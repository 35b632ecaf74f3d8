package fetch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/apt"
)

// srvFault replaces the normal answer for one request.
type srvFault func(w http.ResponseWriter, r *http.Request, body []byte)

// server is an httptest mirror that serves files by (decoded) path, applies a
// script of faults per path (request i gets faults[i], later ones are
// served normally, Range included) and counts requests.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	files  map[string][]byte
	faults map[string][]srvFault
	reqs   map[string]int
	ranges map[string][]string
}

func newServer(t testing.TB) *server {
	s := &server{
		files:  map[string][]byte{},
		faults: map[string][]srvFault{},
		reqs:   map[string]int{},
		ranges: map[string][]string{},
	}
	s.Server = httptest.NewServer(s)
	t.Cleanup(s.Close)
	return s
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	s.mu.Lock()
	n := s.reqs[p]
	s.reqs[p]++
	s.ranges[p] = append(s.ranges[p], r.Header.Get("Range"))
	body, ok := s.files[p]
	var fl srvFault
	if n < len(s.faults[p]) {
		fl = s.faults[p][n]
	}
	s.mu.Unlock()
	if fl != nil {
		fl(w, r, body)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

func (s *server) put(path string, body []byte, faults ...srvFault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = body
	s.faults[path] = faults
}

func (s *server) requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[path]
}

func (s *server) rangeHeaders(path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges[path]...)
}

func status(code int) srvFault {
	return func(w http.ResponseWriter, r *http.Request, _ []byte) { http.Error(w, http.StatusText(code), code) }
}

// resetAfter announces the full length, sends n bytes and drops the connection.
func resetAfter(n int) srvFault {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:n]) // the server's writes fail only when the client left: it reports what it got
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		conn, _, err := rc.Hijack()
		if err != nil {
			panic(err)
		}
		_ = conn.Close()
	}
}

// ignoreRange answers 200 with the whole file, whatever the Range header.
func ignoreRange(w http.ResponseWriter, r *http.Request, body []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// trickle sends the file in `chunks` pieces with delay between them.
func trickle(chunks int, delay time.Duration) srvFault {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		step := (len(body) + chunks - 1) / chunks
		for i := 0; i < len(body); i += step {
			_, _ = w.Write(body[i:min(i+step, len(body))])
			_ = rc.Flush()
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
	}
}

// stallAfter sends n bytes and then nothing until the client goes away.
func stallAfter(n int) srvFault {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:n])
		_ = http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}
}

// serveBytes answers 200 with other content.
func serveBytes(b []byte) srvFault {
	return func(w http.ResponseWriter, r *http.Request, _ []byte) { ignoreRange(w, r, b) }
}

func corrupted(body []byte) []byte {
	b := bytes.Clone(body)
	b[len(b)/2] ^= 0xff
	return b
}

// contentLength answers 200 with the whole body but announces len+delta,
// writing the raw response so that the server cannot correct the lie.
func contentLength(delta int) srvFault {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		conn, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		defer func() { _ = conn.Close() }()
		fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", len(body)+delta)
		_, _ = bw.Write(body)
		_ = bw.Flush()
	}
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// testPkg returns a package whose file is body, in repo "common", with a
// Filename containing '+' (escaped in URLs).
func testPkg(name string, body []byte) (apt.Package, string) {
	fn := "pool/main/c/" + name + "/" + name + "_12.6.68-1+cuda12.6_arm64.deb"
	return apt.Package{
		Repo: "common", Name: name, Version: "12.6.68-1", Filename: fn,
		Size: int64(len(body)), SHA256: sha256Hex(body),
	}, "/common/" + fn
}

// eventLog records events from many goroutines.
type eventLog struct {
	mu     sync.Mutex
	events []Event
}

func (l *eventLog) add(e Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *eventLog) count(k EventKind) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.events {
		if e.Kind == k {
			n++
		}
	}
	return n
}

func (l *eventLog) all() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events...)
}

// testOptions are fast options against base with a fresh cache.
func testOptions(t testing.TB, base string, log *eventLog) Options {
	o := Options{
		Base:         base,
		CacheDir:     t.TempDir(),
		Timeout:      5 * time.Second,
		StallTimeout: 200 * time.Millisecond,
		Backoff:      func(int) time.Duration { return time.Millisecond },
	}
	if log != nil {
		o.OnEvent = log.add
	}
	return o
}

func mustNew(t testing.TB, o Options) *Fetcher {
	t.Helper()
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

var (
	cacheName       = regexp.MustCompile(`^[0-9a-f]{64}\.(deb|lock)$`)
	indexBlobName   = regexp.MustCompile(`^index/sha256/([0-9a-f]{2})/([0-9a-f]{64})$`)
	indexRecordName = regexp.MustCompile(`^index/records/[0-9a-f]{64}\.json$`)
)

// assertCleanCache fails if the cache holds anything but complete, correct
// entries, lock files and the index cache: no temp, no partial files.
func assertCleanCache(t testing.TB, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		name := d.Name()
		if m := indexBlobName.FindStringSubmatch(filepath.ToSlash(rel)); m != nil {
			if b, err := os.ReadFile(path); err != nil || sha256Hex(b) != m[2] || m[2][:2] != m[1] {
				t.Errorf("index cache entry %s has other bytes (%v)", rel, err)
			}
			return nil
		}
		if indexRecordName.MatchString(filepath.ToSlash(rel)) {
			return nil
		}
		if !cacheName.MatchString(name) || filepath.Dir(rel) != filepath.Join("sha256", name[:2]) {
			t.Errorf("cache holds unexpected file %s", rel)
			return nil
		}
		if filepath.Ext(name) == ".deb" {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if got := sha256Hex(b); got+".deb" != name {
				t.Errorf("cache entry %s has sha256 %s", rel, got)
			}
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}
