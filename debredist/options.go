package debredist

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/fetch"
)

// Version is debredist's version. It is part of every archive's input key:
// a new version rebuilds everything (archive bytes may change with it).
const Version = "0.1.0"

// Profile describes one JetPack/L4T release (see Profiles). It is the type
// of the public package github.com/debredist/debredist/debredist/profile,
// where its fields, the rule types and the validation rules are documented;
// the alias lets callers of this package name it without a second import.
type Profile = profile.Profile

// Profiles lists the built-in release profiles.
func Profiles() []Profile { return profile.Builtin() }

// FindProfile returns the built-in profile a name, alias, JetPack version
// or L4T suite selects (see Profiles).
func FindProfile(name string) (Profile, error) {
	if p, err := profile.ForJetPack(name); err == nil {
		return p, nil
	}
	for _, p := range Profiles() {
		if p.Suite == name {
			return p, nil
		}
	}
	var names []string
	for _, p := range Profiles() {
		names = append(names, p.Name)
	}
	return Profile{}, fmt.Errorf("no built-in profile %q (have: %s; also their aliases, JetPack versions and L4T suites: see 'debredist profiles')", name, strings.Join(names, ", "))
}

// LoadProfile reads a user's profile file; empty fields are inherited from
// the built-in profile of the same L4T major.
func LoadProfile(path string) (Profile, error) {
	p, err := profile.LoadFile(path)
	return p, err
}

// Options selects a release and says where inputs and outputs live. Exactly
// one of JetPack, L4T, ProfileFile and LockFile selects the release (a lock
// file may be combined with JetPack/L4T/ProfileFile to pick the profile).
type Options struct {
	JetPack     string // "5", "6", "7", "7.0", …
	L4T         string // "r36.5"
	ProfileFile string // a user's profile (JSON)
	// LockFile pins the exact debs (debredist lock or jetpack-nixos
	// sourceinfo format) instead of reading live indexes.
	LockFile string
	// LockOut, when set, receives the lock of the debs this run used.
	LockOut string

	Mirror      string // base URL or directory; default NVIDIA's repository
	CacheDir    string // default $XDG_CACHE_HOME/debredist
	Jobs        int    // parallel downloads (default 4) and package builds (default: one per core, at least 2); negative is a UsageError
	Offline     bool   // use the cache only
	VerifyCache bool   // re-hash cache hits
	Keyring     string // OpenPGP keyring for InRelease/Release.gpg
	// AllowUnverifiedIndex accepts a Packages index that no Release file
	// lists (like apt's [trusted=yes]); otherwise such an index is refused
	// (ErrUnverifiedIndex), since nothing tells it from one cut short.
	AllowUnverifiedIndex bool
	// Retries bounds retries per download (default 5; negative: none).
	Retries int
	// StallTimeout aborts (and retries) a download that receives no bytes
	// for this long (default 30s).
	StallTimeout time.Duration

	Out         string   // output directory (Convert)
	Compression string   // archive compression (Convert): "xz" (default) or "zstd" (also "zst")
	Only        []string // convert only these redist packages (pnames)
	// Preset is the compression preset (Convert): 0 is the default; xz 1
	// (fastest) .. 6 (smallest), default 4; zstd 1..4.
	Preset int
	// MTime is every archive entry's mtime (Convert); zero means the
	// profile's release date (the CLI sets it from SOURCE_DATE_EPOCH).
	MTime time.Time

	// Limits bound what one deb may expand to.
	Limits DebLimits

	// OnEvent receives progress; it is called from several goroutines.
	OnEvent    func(Event)
	HTTPClient *http.Client

	downloads *downloadCounter // set by counting
}

// EventKind says what an Event reports.
type EventKind string

const (
	EventIndex       EventKind = "index"        // an index was read
	EventPlan        EventKind = "plan"         // the plan is made: Total redist packages
	EventWarning     EventKind = "warning"      // something the user should act on
	EventNotice      EventKind = "notice"       // something worth knowing that needs no action (signatures not checked)
	EventFetchPlan   EventKind = "fetch-plan"   // downloads are about to start: Total debs of Bytes bytes, Attempt of them cached
	EventFetchStart  EventKind = "fetch-start"  // a download started
	EventFetchBytes  EventKind = "fetch-bytes"  // download progress
	EventFetchDone   EventKind = "fetch-done"   // a deb is in the cache
	EventFetchRetry  EventKind = "fetch-retry"  // a download is retried
	EventFetchFailed EventKind = "fetch-failed" // a download failed for good
	EventCacheHit    EventKind = "cache-hit"    // a deb was already cached
	EventBuildStart  EventKind = "build-start"  // a redist package is being built
	EventBuildDone   EventKind = "build-done"   // its archive is written
	EventUpToDate    EventKind = "up-to-date"   // its archive is current: skipped
	EventOutBusy     EventKind = "out-busy"     // another process is writing Out: waiting for it to finish
)

// Event is one progress report.
type Event struct {
	Kind    EventKind
	Package string // redist package or deb package
	URL     string
	Bytes   int64
	Total   int64
	Attempt int
	Message string
	Err     error
}

// fetchDebs is Fetcher.Fetch announced: one EventFetchPlan first with the
// number of distinct debs (Total) and their bytes (Bytes), so that progress
// can show the whole download from its start.
func (o *Options) fetchDebs(ctx context.Context, f *fetch.Fetcher, debs []apt.Package) (map[string]string, error) {
	seen := map[string]bool{}
	var n, bytes int64
	for _, d := range debs {
		if !seen[d.SHA256] {
			seen[d.SHA256] = true
			n++
			bytes += d.Size
		}
	}
	o.emit(Event{Kind: EventFetchPlan, Total: n, Bytes: bytes})
	return f.Fetch(ctx, debs)
}

func (o *Options) emit(e Event) {
	o.downloads.count(e)
	if o.OnEvent != nil {
		o.OnEvent(e)
	}
}

func (o *Options) fetcher() (*fetch.Fetcher, error) {
	f, err := fetch.New(fetch.Options{
		Base:            o.Mirror,
		CacheDir:        o.CacheDir,
		Jobs:            o.Jobs,
		Offline:         o.Offline,
		VerifyCache:     o.VerifyCache,
		Keyring:         o.Keyring,
		AllowUnverified: o.AllowUnverifiedIndex,
		Retries:         o.Retries,
		StallTimeout:    o.StallTimeout,
		HTTPClient:      o.HTTPClient,
		OnEvent: func(e fetch.Event) {
			kinds := map[fetch.EventKind]EventKind{
				fetch.Started: EventFetchStart, fetch.Progress: EventFetchBytes, fetch.Done: EventFetchDone,
				fetch.CacheHit: EventCacheHit, fetch.Retried: EventFetchRetry, fetch.Failed: EventFetchFailed,
			}
			k, ok := kinds[e.Kind]
			if !ok {
				return
			}
			o.emit(Event{Kind: k, Package: e.Package, URL: e.URL, Bytes: e.Bytes, Total: e.Total, Attempt: e.Attempt, Err: e.Err})
		},
	})
	var ke *fault.KeyringError
	switch {
	case errors.Is(err, fetch.ErrCacheNotDir):
		return nil, fmt.Errorf("--cache: %w", err)
	case errors.As(err, &ke): // a file the user named
		return nil, &fault.UsageError{Msg: ke.Error(), Err: err, File: ke.Path}
	}
	return f, err
}

// indexHint adds to an index failure what the user can do about it: accept
// an unverified index explicitly, or, when the mirror (by default NVIDIA's
// repository) cannot be reached, point at another mirror, work offline
// from the cache or from a lock.
func indexHint(o Options, err error) error {
	if errors.Is(err, fault.ErrUnverifiedIndex) {
		return fmt.Errorf("%w (to use it anyway, as apt's [trusted=yes] does: --allow-unverified-index)", err)
	}
	var ne net.Error
	if errors.As(err, &ne) || isDNSError(err) {
		base := o.Mirror
		if base == "" {
			base = "NVIDIA's repository " + apt.DefaultBase
		}
		return fmt.Errorf("%w\ncannot reach %s: give another mirror (--mirror URL or DIR, or DEBREDIST_MIRROR), or use --offline after one online run, or --lock FILE whose debs are in the cache", err, base)
	}
	return err
}

func isDNSError(err error) bool {
	var de *net.DNSError
	var oe *net.OpError
	return errors.As(err, &de) || errors.As(err, &oe)
}
