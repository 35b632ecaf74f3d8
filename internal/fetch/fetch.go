package fetch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"golang.org/x/sync/errgroup"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
)

// EventKind says what an Event reports.
type EventKind int

const (
	// Started: a download begins (Total is the expected size, 0 if unknown).
	Started EventKind = iota
	// Progress: Bytes of Total are on disk (cumulative, including resumed bytes).
	Progress
	// Done: the file was verified and is in the cache (Bytes is its size).
	Done
	// CacheHit: the file was already in the cache (Bytes is its size).
	CacheHit
	// Retried: attempt Attempt-1 failed with Err; attempt Attempt follows after a backoff.
	Retried
	// Failed: the file could not be fetched; Err says why.
	Failed
)

func (k EventKind) String() string {
	switch k {
	case Started:
		return "started"
	case Progress:
		return "progress"
	case Done:
		return "done"
	case CacheHit:
		return "cache-hit"
	case Retried:
		return "retried"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is a progress report. Package is empty for index files.
type Event struct {
	Kind    EventKind
	Package string
	URL     string
	Bytes   int64
	Total   int64
	Attempt int
	Err     error
}

// Options configure a Fetcher. The zero value fetches from apt.DefaultBase
// into the user cache directory.
type Options struct {
	// Base is the mirror base: https://…, http://…, file:///… or a directory
	// path; "" means apt.DefaultBase.
	Base string
	// CacheDir is the cache root; "" means $XDG_CACHE_HOME/debredist (or
	// ~/.cache/debredist).
	CacheDir string
	// Jobs is the number of parallel downloads per Fetch call; default 4.
	Jobs int
	// Offline uses the cache only; missing debs yield a *MissingError
	// listing them all.
	Offline bool
	// VerifyCache re-hashes cache hits fully (default: size check only).
	VerifyCache bool
	// AllowUnverified accepts a Packages index that no InRelease/Release
	// file lists (like apt's [trusted=yes]); otherwise Index refuses it
	// with fault.ErrUnverifiedIndex.
	AllowUnverified bool
	// Keyring is an OpenPGP keyring file (armored or binary) used to verify
	// InRelease or Release + Release.gpg. Empty: signatures are not checked.
	Keyring string
	// Retries is the number of retries after a failed attempt; default 5,
	// negative means none. An attempt that grew the download by at least
	// 1 MiB beyond any earlier attempt does not use up a retry.
	Retries int
	// Timeout bounds the wait for response headers; default 30s.
	Timeout time.Duration
	// StallTimeout aborts (and retries) an attempt when no body bytes arrive
	// for this long; default 30s.
	StallTimeout time.Duration
	// HTTPClient is used for http(s) mirrors; nil means a client with its
	// own transport. Its Timeout, if any, caps whole downloads: leave it 0.
	HTTPClient *http.Client
	// OnEvent receives progress events. It is called from several goroutines
	// at once (one per job) and must be safe for that and fast; nil is fine.
	OnEvent func(Event)
	// Backoff overrides the delay before attempt+1 after attempt failed
	// (attempt starts at 1). Default: exponential backoff with jitter,
	// 0.5s initial, ×1.5, at most 30s.
	Backoff func(attempt int) time.Duration
}

const (
	defaultJobs    = 4
	defaultRetries = 5
	defaultTimeout = 30 * time.Second
	defaultStall   = 30 * time.Second
)

// Fetcher downloads indexes and debs. It is safe for concurrent use; several
// Fetchers (also in other processes) may share one cache directory.
type Fetcher struct {
	opts    Options
	base    string
	cache   string
	client  *http.Client
	keyring openpgp.EntityList

	mu    sync.Mutex
	locks map[string]*keyLock // in-process per-hash locks, see lock
}

// New validates opts, fills in defaults and loads the keyring, if any. It
// creates no files; the cache directory is created on first download.
func New(opts Options) (*Fetcher, error) {
	f := &Fetcher{opts: opts, base: opts.Base, cache: opts.CacheDir, locks: map[string]*keyLock{}}
	if f.base == "" {
		f.base = apt.DefaultBase
	}
	if err := CheckBase(f.base); err != nil {
		return nil, fmt.Errorf("fetch: mirror %w", err)
	}
	if b := strings.TrimRight(f.base, "/"); b != "" {
		f.base = b
	}
	if f.cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("fetch: no cache directory given and none found: %w", err)
		}
		f.cache = filepath.Join(dir, "debredist")
	}
	if st, err := os.Stat(f.cache); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("cache directory %s: %w", f.cache, ErrCacheNotDir)
	}
	if f.opts.Jobs <= 0 {
		f.opts.Jobs = defaultJobs
	}
	switch {
	case f.opts.Retries == 0:
		f.opts.Retries = defaultRetries
	case f.opts.Retries < 0:
		f.opts.Retries = 0
	}
	if f.opts.Timeout <= 0 {
		f.opts.Timeout = defaultTimeout
	}
	if f.opts.StallTimeout <= 0 {
		f.opts.StallTimeout = defaultStall
	}
	f.client = opts.HTTPClient
	if f.client == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = f.opts.Timeout
		t.MaxIdleConnsPerHost = f.opts.Jobs + 2
		f.client = &http.Client{Transport: t}
	}
	if opts.Keyring != "" {
		kr, err := loadKeyring(opts.Keyring)
		if err != nil {
			return nil, err
		}
		f.keyring = kr
	}
	return f, nil
}

func (f *Fetcher) emit(e Event) {
	if f.opts.OnEvent != nil {
		f.opts.OnEvent(e)
	}
}

// ErrCacheNotDir is New's error for a cache directory that is a file.
var ErrCacheNotDir = errors.New("exists and is not a directory")

// errOffline marks a deb that is absent (or corrupt) while Offline is set.
var errOffline = errors.New("not in the cache (offline)")

// Fetch makes sure every deb is in the cache, downloading up to Jobs at a
// time, and returns the cache path per (lower-case) sha256. Packages with the
// same sha256 are downloaded once; if the first URL fails the others are
// tried. It returns every failure joined (each naming package, URL and cause;
// failures with the same underlying cause as one *SameCauseError) together
// with the paths of the debs that did succeed. Offline, a
// *MissingError lists every deb that is not cached.
func (f *Fetcher) Fetch(ctx context.Context, pkgs []apt.Package) (map[string]string, error) {
	type group struct {
		sha   string
		cands []apt.Package
	}
	var (
		groups []*group
		bySHA  = map[string]*group{}
		errs   []error
	)
	for _, p := range pkgs {
		sha, err := normalizeSHA(p.SHA256)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %s (%s): %w", p.Name, p.Version, p.Filename, err))
			continue
		}
		if p.Size < 0 {
			errs = append(errs, fmt.Errorf("%s %s (%s): negative size %d", p.Name, p.Version, p.Filename, p.Size))
			continue
		}
		g := bySHA[sha]
		if g == nil {
			g = &group{sha: sha}
			bySHA[sha] = g
			groups = append(groups, g)
		}
		g.cands = append(g.cands, p)
	}

	if len(groups) > 0 && !f.opts.Offline {
		// One error for a cache that cannot be written, not one per deb.
		if err := os.MkdirAll(filepath.Join(f.cache, "sha256"), 0o755); err != nil {
			return nil, errors.Join(append(errs, fmt.Errorf("cache directory: %w", err))...)
		}
	}
	var (
		mu      sync.Mutex
		paths   = make(map[string]string, len(groups))
		missing []apt.Package
		eg      errgroup.Group
	)
	eg.SetLimit(f.opts.Jobs)
	for _, g := range groups {
		if ctx.Err() != nil {
			break
		}
		eg.Go(func() error {
			path, err := f.fetchOne(ctx, g.sha, g.cands)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				paths[g.sha] = path
			case errors.Is(err, errOffline):
				missing = append(missing, g.cands...)
			default:
				errs = append(errs, err)
			}
			return nil
		})
	}
	_ = eg.Wait() // goroutines report through errs
	if err := context.Cause(ctx); err != nil {
		errs = append(errs, err)
	}
	if len(missing) > 0 {
		slices.SortFunc(missing, func(a, b apt.Package) int {
			return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Repo, b.Repo))
		})
		me := &fault.MissingError{Cache: f.cache, Mirror: f.base, Local: !isHTTP(f.base)}
		for _, p := range missing {
			me.Packages = append(
				me.Packages,
				fault.MissingDeb{Name: p.Name, Version: p.Version, Filename: p.Filename, SHA256: p.SHA256},
			)
		}
		errs = append(errs, me)
	}
	slices.SortStableFunc(errs, func(a, b error) int { return cmp.Compare(a.Error(), b.Error()) })
	return paths, errors.Join(groupByCause(errs)...)
}

// Missing returns the packages whose deb is not in the cache, in input order.
// It checks presence and size only (also when VerifyCache is set).
func (f *Fetcher) Missing(pkgs []apt.Package) []apt.Package {
	var out []apt.Package
	for _, p := range pkgs {
		sha, err := normalizeSHA(p.SHA256)
		if err != nil {
			out = append(out, p)
			continue
		}
		if st, _, _ := f.checkEntry(f.CachePath(sha), p.Size, sha, false); st != entryOK {
			out = append(out, p)
		}
	}
	return out
}

// CachePath returns where the deb with this sha256 lives (or would live) in
// the cache: <CacheDir>/sha256/<aa>/<hex>.deb. It returns "" for a string
// that is not a sha256 in hex.
func (f *Fetcher) CachePath(sha256 string) string {
	sha, err := normalizeSHA(sha256)
	if err != nil {
		return ""
	}
	return filepath.Join(f.cache, "sha256", sha[:2], sha+".deb")
}

// normalizeSHA returns s in lower case if it is 64 hex digits.
func normalizeSHA(s string) (string, error) {
	if len(s) != 64 {
		return "", fmt.Errorf("sha256 %q is not 64 hex digits", s)
	}
	s = strings.ToLower(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return "", fmt.Errorf("sha256 %q is not 64 hex digits", s)
		}
	}
	return s, nil
}

// poolURL is where pkg lives on the mirror.
func (f *Fetcher) poolURL(p apt.Package) (string, error) {
	u, err := apt.NewRepo(f.base, p.Repo, "").PoolURL(p.Filename)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", p.Name, p.Version, err)
	}
	return u, nil
}
