package convert

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/fetch"
)

// Options are what a Run reads, as the facade translates its own: where
// indexes and debs come from (Source), which release (Select), how to build
// and where to (the rest). The zero value of each field is its default.
type Options struct {
	// Source says where indexes and debs come from; its OnEvent is the
	// Run's own (it reports through OnEvent below).
	Source fetch.Options
	// Select names the release.
	Select Select
	// RecordedMirror is true when Source.Base is not the caller's but the
	// mirror a provenance recorded (RecordedDebs).
	RecordedMirror bool

	Out              string              // the output directory (Convert)
	Jobs             int                 // redist packages built at once; 0: DefaultJobs
	Compression      archive.Compression // the archives' compression
	Preset           int                 // its preset; 0: the default
	Only             []string            // build (and plan) only these redist packages
	MTime            time.Time           // every archive entry's mtime; zero: the release date
	Limits           entry.Limits        // what one deb may expand to
	LockOut          string              // where the lock of the debs read goes ("": none)
	SBOM             bool                // write each manifest's bills of materials beside it
	AllowNonEmptyOut bool                // convert into a non-empty directory that is no output
	// Tool is what the provenance records as its maker, and part of every
	// archive's input key ("debredist 0.1.0").
	Tool string
	// OnEvent receives progress, from several goroutines at once.
	OnEvent func(event.Event)
}

// Select names a release: exactly one of JetPack, L4T and ProfileFile, or
// LockFile alone (a lock file may be combined with one of them to pick the
// profile). The facade checks that before a Run starts.
type Select struct {
	JetPack, L4T, ProfileFile, LockFile string
}

// Run is one call's options and state: the one fetcher (made on first
// use: one keyring read, one HTTP client, one set of in-process cache
// locks for every stage) and what it counted.
type Run struct {
	Options

	mu        sync.Mutex
	downloads event.Downloads

	fetchOnce sync.Once
	f         *fetch.Fetcher
	fetchErr  error

	// decoders bounds the debs decoded at once across all packages (one
	// per core, at least two): a package's debs are staged side by side.
	decoders chan struct{}

	// emptyRules are the profile's own layout rules that packages not
	// emitted (nothing left) used: no provenance records them.
	emptyRules []string
}

// New starts a run. A mirror directory is made absolute, so that the
// provenance records where the debs were read from wherever it is read
// later (nix --derivations from another directory).
func New(o Options) *Run {
	o.Source.Base = AbsMirror(o.Source.Base)
	if o.Out != "" {
		o.Out = filepath.Clean(o.Out)
	}
	return &Run{Options: o, decoders: make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))}
}

// Downloads is what the run fetched so far.
func (r *Run) Downloads() event.Downloads {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.downloads
}

// AbsMirror makes a mirror directory absolute (a URL stays as given).
func AbsMirror(m string) string {
	if m == "" || strings.Contains(m, "://") {
		return m
	}
	if abs, err := filepath.Abs(m); err == nil {
		return abs
	}
	return m
}

func (r *Run) emit(e event.Event) {
	r.mu.Lock()
	r.downloads.Count(e)
	r.mu.Unlock()
	if r.OnEvent != nil {
		r.OnEvent(e)
	}
}

// fetcher returns the run's fetcher, made on first use.
func (r *Run) fetcher() (*fetch.Fetcher, error) {
	r.fetchOnce.Do(func() { r.f, r.fetchErr = r.newFetcher() })
	return r.f, r.fetchErr
}

// fetchKinds are the events of internal/fetch as the run reports them.
var fetchKinds = map[fetch.EventKind]event.Kind{
	fetch.Started: event.FetchStart, fetch.Progress: event.FetchBytes, fetch.Done: event.FetchDone,
	fetch.CacheHit: event.CacheHit, fetch.Retried: event.FetchRetry, fetch.Failed: event.FetchFailed,
}

func (r *Run) newFetcher() (*fetch.Fetcher, error) {
	fo := r.Source
	fo.OnEvent = func(e fetch.Event) {
		if k, ok := fetchKinds[e.Kind]; ok {
			r.emit(
				event.Event{
					Kind:    k,
					Package: e.Package,
					URL:     e.URL,
					Bytes:   e.Bytes,
					Total:   e.Total,
					Attempt: e.Attempt,
					Err:     e.Err,
				},
			)
		}
	}
	f, err := fetch.New(fo)
	var ke *fault.KeyringError
	switch {
	case errors.Is(err, fetch.ErrCacheNotDir) && fo.CacheDir == "":
		return nil, fault.Errorf("the default %w (or give %s)", err, fault.RefCacheDir)
	case errors.Is(err, fetch.ErrCacheNotDir):
		return nil, fault.Errorf("%s: %w", fault.RefCacheDir, err)
	case errors.As(err, &ke): // a file the user named
		return nil, &fault.UsageError{Msg: ke.Error(), Err: err, File: ke.Path}
	}
	return f, err
}

// fetchDebs is Fetcher.Fetch announced: one event.FetchPlan first with the
// number of distinct debs (Total) and their bytes (Bytes), so that progress
// can show the whole download from its start.
func (r *Run) fetchDebs(ctx context.Context, f *fetch.Fetcher, debs []apt.Package) (map[string]string, error) {
	seen := map[string]bool{}
	var n, bytes int64
	for _, d := range debs {
		if !seen[d.SHA256] {
			seen[d.SHA256] = true
			n++
			bytes += d.Size
		}
	}
	r.emit(event.Event{Kind: event.FetchPlan, Total: n, Bytes: bytes, URL: f.Mirror(), Message: f.CacheDir()})
	if !r.Source.Offline && len(f.Missing(debs)) > 0 {
		// One error for a mirror directory that is not there, not one
		// per deb.
		if err := fetch.CheckMirrorDir(f.Mirror()); err != nil {
			return nil, r.mirrorError(err)
		}
	}
	return f.Fetch(ctx, debs)
}

// mirrorError words an error about a mirror directory that is not there:
// when the caller gave it (Source.Mirror), that value is what is wrong, not
// one index or deb of it (a *fault.UsageError whose Option says so); when
// it is the one a provenance recorded, the caller can give another. Any
// other error is returned as it is.
func (r *Run) mirrorError(err error) error {
	nf := (*fault.NotFoundError)(nil)
	switch {
	case !errors.As(err, &nf) || nf.What != fault.MirrorDirectory || r.Source.Base == "":
		return err
	case r.RecordedMirror:
		return fault.Errorf("%w: the conversion read the debs from there (give %s where they are now)", err, fault.RefMirror)
	}
	return MirrorNotFound(fault.RefMirror, nf)
}

// MirrorNotFound is the error for a mirror directory the caller gave as
// option that is not there.
func MirrorNotFound(option fault.Ref, nf *fault.NotFoundError) error {
	return &fault.UsageError{
		Option: option,
		Msg:    nf.Error() + " (want a directory that holds <repo>/dists/<suite>/, or an http(s) or file URL)",
		Err:    nf,
		File:   nf.Path,
	}
}

// indexHint adds to an index failure what the user can do about it: accept
// an unverified index explicitly, or, when the mirror (by default NVIDIA's
// repository) cannot be reached, point at another mirror, work offline
// from the cache or from a lock.
func (r *Run) indexHint(err error) error {
	if errors.Is(err, fault.ErrUnverifiedIndex) {
		return fault.Errorf("%w (to use it anyway, as apt's [trusted=yes] does: %s)", err, fault.RefAllowUnverifiedIndex)
	}
	if merr := r.mirrorError(err); merr != err {
		return merr
	}
	if nf := (*fault.NotFoundError)(nil); errors.As(err, &nf) && nf.Repo != "" && !nf.Listed {
		return fault.Errorf(
			"%w (is the mirror URL right? %s lists the suites of the built-in releases)",
			err,
			fault.RefProfiles,
		)
	}
	var ne net.Error
	if errors.As(err, &ne) || isDNSError(err) {
		base := r.Source.Base
		if base == "" {
			base = "NVIDIA's repository " + apt.DefaultBase
		}
		return fault.Errorf(
			"%w\ncannot reach %s: give another mirror (%s URL or DIR), or use %s after one online run, or %s FILE whose debs "+
				"are in the cache",
			err,
			base,
			fault.RefMirror,
			fault.RefOffline,
			fault.RefLockFile,
		)
	}
	return err
}

func isDNSError(err error) bool {
	var de *net.DNSError
	var oe *net.OpError
	return errors.As(err, &de) || errors.As(err, &oe)
}

// DefaultJobs is how many packages Convert builds at once when Jobs is 0:
// one per core, and at least two, so that decoding one package's debs (one
// serial stream each) overlaps encoding another's. Encoding is
// block-parallel and bounded by one budget for all packages, so more
// packages in flight add memory, not speed: measured on the real-bytes
// corpus on 2 cores, --jobs 2 took 89.9 s, --jobs 1 97.2 s and --jobs 4
// 113.0 s (bench/README.md).
func DefaultJobs() int { return max(2, runtime.GOMAXPROCS(0)) }
