package debredist

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
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
		if p.L4T == name {
			return p, nil
		}
	}
	var names []string
	for _, p := range Profiles() {
		names = append(names, p.Name)
	}
	return Profile{}, fmt.Errorf("no built-in profile %q (have: %s; also their aliases, JetPack versions and L4T suites: see Profiles)", name, strings.Join(names, ", "))
}

// LoadProfile reads a user's profile file; empty fields are inherited from
// the built-in profile of the same L4T major. A file that is missing or
// invalid is a *profile.InvalidError naming file, line and column.
func LoadProfile(path string) (Profile, error) {
	return profile.LoadFile(path)
}

// Options is what a call of this package reads, by stage, nested as
// crane nests remote options: where debs come from (Source), which release
// (Release), how to build (Build), and where progress goes. Plan reads
// Source, Release and Build.Only; Fetch also Build.LockOut; Convert all of
// it; Inventory Source and Release. The zero value of each field is its
// default.
type Options struct {
	Source  Source
	Release Release
	Build   Build
	// OnEvent receives progress; it is called from several goroutines at
	// once and must be safe for that and fast.
	OnEvent func(Event)
}

// Source says where indexes and debs come from.
type Source struct {
	Mirror   string // base URL (https, http, file) or directory; default NVIDIA's repository
	CacheDir string // deb and index cache; default $XDG_CACHE_HOME/debredist
	// Offline uses the cache only: debs, and the index files an earlier
	// online run read.
	Offline     bool
	VerifyCache bool   // re-hash cache hits in full
	Keyring     string // OpenPGP keyring for InRelease/Release.gpg; "" checks no signature
	// AllowUnverifiedIndex accepts a Packages index that no Release file
	// lists (like apt's [trusted=yes]); otherwise such an index is refused
	// (fault.ErrUnverifiedIndex), since nothing tells it from one cut short.
	AllowUnverifiedIndex bool
	// ParallelDownloads is the number of parallel downloads (default 4).
	ParallelDownloads int
	// Retries bounds retries per download (default 5; negative: none).
	Retries int
	// StallTimeout aborts (and retries) a download that receives no bytes
	// for this long (default 30s).
	StallTimeout time.Duration
	HTTPClient   *http.Client // nil: a client of its own
}

// Release selects the release: exactly one of JetPack, L4T and
// ProfileFile, or LockFile alone (a lock file may be combined with one of
// them to pick the profile).
type Release struct {
	JetPack     string // "5", "6", "7", "7.0", a profile name or alias
	L4T         string // an L4T apt suite, "r36.5"
	ProfileFile string // a user's profile (JSON, see package profile)
	// LockFile pins the exact debs (debredist lock or jetpack-nixos
	// sourceinfo format) instead of reading live indexes.
	LockFile string
}

// Build says how archives are built and where they go.
type Build struct {
	Out string // the output directory (Convert)
	// Jobs is the number of redist packages built at once (default: one
	// per core, at least 2); negative is a usage error.
	Jobs        int
	Compression string   // archive compression: "xz" (default) or "zstd" (also "zst")
	Only        []string // build (and plan) only these redist packages (pnames)
	// Preset is the compression preset: 0 is the default; xz 1 (fastest)
	// .. 6 (smallest), default 4; zstd 1..4.
	Preset int
	// MTime is every archive entry's mtime; zero means the profile's
	// release date (the CLI sets it from SOURCE_DATE_EPOCH).
	MTime time.Time
	// Limits bound what one deb may expand to.
	Limits DebLimits
	// LockOut, when set, receives the lock of the debs the run used.
	LockOut string
	// SBOM writes each manifest's bill of materials beside it (SPDX and
	// CycloneDX, SBOMFileNames); documents an earlier run wrote are
	// rewritten with every new output either way.
	SBOM bool
	// FailOnWarnings makes Convert fail with a *fault.WarningsError when
	// the output has a warning (Result.Warnings) whose code is not in
	// AllowWarnings (redist.WarningCodes lists the codes). OUT is written
	// and verified first, so the same OUT fails the same way again;
	// Convert then returns the Result with the error.
	FailOnWarnings bool
	AllowWarnings  []string
	// AllowNonEmptyOut lets Convert write into an Out that exists, is not
	// empty and holds no debredist output (no redistrib_*.json, no
	// .debredist): without it such a directory is refused, since the
	// conversion would add its products and state beside files that are
	// not its own (verify then names each of them).
	AllowNonEmptyOut bool
}

// checkWarnings is FailOnWarnings.
func (b Build) checkWarnings(ws []redist.Warning) error {
	if !b.FailOnWarnings {
		return nil
	}
	var bad []redist.Warning
	for _, w := range ws {
		if !slices.Contains(b.AllowWarnings, w.Code) {
			bad = append(bad, w)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &fault.WarningsError{Warnings: bad, Allowed: b.AllowWarnings}
}

// run is one call's options and state (what it counted).
type run struct {
	Options
	downloads *downloadCounter
	// recordedMirror is true when Source.Mirror is not the caller's but
	// the one a provenance recorded (RecordedDebs).
	recordedMirror bool

	// The one fetcher of the call (made on first use): one keyring read,
	// one HTTP client, one set of in-process cache locks for every stage.
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

// newRun starts a call.
func newRun(o Options) *run {
	o.Source.Mirror = absMirror(o.Source.Mirror)
	return &run{Options: o, downloads: &downloadCounter{}, decoders: make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))}
}

// absMirror makes a mirror directory absolute (a URL stays as given), so
// that the provenance records where the debs were read from wherever it
// is read later (nix --derivations from another directory).
func absMirror(m string) string {
	if m == "" || strings.Contains(m, "://") {
		return m
	}
	if abs, err := filepath.Abs(m); err == nil {
		return abs
	}
	return m
}

// EventKind says what an Event reports.
type EventKind string

const (
	EventIndex       EventKind = "index"        // an index was read
	EventPlan        EventKind = "plan"         // the plan is made: Total redist packages
	EventWarning     EventKind = "warning"      // something the user should act on
	EventNotice      EventKind = "notice"       // something worth knowing that needs no action (signatures not checked)
	EventFetchPlan   EventKind = "fetch-plan"   // downloads are about to start: Total debs of Bytes bytes from the mirror URL (a directory: read, not downloaded) into the cache Message
	EventFetchStart  EventKind = "fetch-start"  // a download started
	EventFetchBytes  EventKind = "fetch-bytes"  // download progress
	EventFetchDone   EventKind = "fetch-done"   // a deb is in the cache
	EventFetchRetry  EventKind = "fetch-retry"  // a download is retried
	EventFetchFailed EventKind = "fetch-failed" // a download failed for good
	EventCacheHit    EventKind = "cache-hit"    // a deb was already cached
	EventBuildPlan   EventKind = "build-plan"   // Total redist packages are to be built (not up to date) from Bytes bytes of debs
	EventBuildStart  EventKind = "build-start"  // a redist package is being built
	EventBuildDone   EventKind = "build-done"   // its archive is written: Bytes, made from Total bytes of debs
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
	// Code is an EventWarning's code (redist.Warning's) when the warning
	// is about the output; "" for warnings about the run itself (a cache
	// entry repaired, debs not read).
	Code string
}

// fetchDebs is Fetcher.Fetch announced: one EventFetchPlan first with the
// number of distinct debs (Total) and their bytes (Bytes), so that progress
// can show the whole download from its start.
func (o *run) fetchDebs(ctx context.Context, f *fetch.Fetcher, debs []apt.Package) (map[string]string, error) {
	seen := map[string]bool{}
	var n, bytes int64
	for _, d := range debs {
		if !seen[d.SHA256] {
			seen[d.SHA256] = true
			n++
			bytes += d.Size
		}
	}
	o.emit(Event{Kind: EventFetchPlan, Total: n, Bytes: bytes, URL: f.Mirror(), Message: f.CacheDir()})
	if !o.Source.Offline && len(f.Missing(debs)) > 0 {
		// One error for a mirror directory that is not there, not one
		// per deb.
		if err := fetch.CheckMirrorDir(f.Mirror()); err != nil {
			return nil, o.mirrorError(err)
		}
	}
	return f.Fetch(ctx, debs)
}

// mirrorError words an error about a mirror directory that is not there:
// when the caller gave it (Source.Mirror), that value is what is wrong, not
// one index or deb of it (a *fault.UsageError whose Option says so); when
// it is the one a provenance recorded, the caller can give another. Any
// other error is returned as it is.
func (o *run) mirrorError(err error) error {
	nf := (*fault.NotFoundError)(nil)
	switch {
	case !errors.As(err, &nf) || nf.What != fault.MirrorDirectory || o.Source.Mirror == "":
		return err
	case o.recordedMirror:
		return fmt.Errorf("%w: the conversion read the debs from there (give Source.Mirror where they are now)", err)
	}
	return mirrorNotFound("Source.Mirror", nf)
}

func (o *run) emit(e Event) {
	o.downloads.count(e)
	if o.OnEvent != nil {
		o.OnEvent(e)
	}
}

// fetcher returns the call's fetcher, made on first use.
func (o *run) fetcher() (*fetch.Fetcher, error) {
	o.fetchOnce.Do(func() { o.f, o.fetchErr = o.newFetcher() })
	return o.f, o.fetchErr
}

func (o *run) newFetcher() (*fetch.Fetcher, error) {
	f, err := fetch.New(fetch.Options{
		Base:            o.Source.Mirror,
		CacheDir:        o.Source.CacheDir,
		Jobs:            o.Source.ParallelDownloads,
		Offline:         o.Source.Offline,
		VerifyCache:     o.Source.VerifyCache,
		Keyring:         o.Source.Keyring,
		AllowUnverified: o.Source.AllowUnverifiedIndex,
		Retries:         o.Source.Retries,
		StallTimeout:    o.Source.StallTimeout,
		HTTPClient:      o.Source.HTTPClient,
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
	case errors.Is(err, fetch.ErrCacheNotDir) && o.Source.CacheDir == "":
		return nil, fmt.Errorf("the default %w (under $XDG_CACHE_HOME; or give Source.CacheDir)", err)
	case errors.Is(err, fetch.ErrCacheNotDir):
		return nil, fmt.Errorf("Source.CacheDir: %w", err)
	case errors.As(err, &ke): // a file the user named
		return nil, &fault.UsageError{Msg: ke.Error(), Err: err, File: ke.Path}
	}
	return f, err
}

// indexHint adds to an index failure what the user can do about it: accept
// an unverified index explicitly, or, when the mirror (by default NVIDIA's
// repository) cannot be reached, point at another mirror, work offline
// from the cache or from a lock.
func indexHint(o *run, err error) error {
	if errors.Is(err, fault.ErrUnverifiedIndex) {
		return fmt.Errorf("%w (to use it anyway, as apt's [trusted=yes] does: Source.AllowUnverifiedIndex)", err)
	}
	if merr := o.mirrorError(err); merr != err {
		return merr
	}
	if nf := (*fault.NotFoundError)(nil); errors.As(err, &nf) && nf.Repo != "" && !nf.Listed {
		return fmt.Errorf("%w (is the mirror URL right? Profiles lists the suites of the built-in releases)", err)
	}
	var ne net.Error
	if errors.As(err, &ne) || isDNSError(err) {
		base := o.Source.Mirror
		if base == "" {
			base = "NVIDIA's repository " + apt.DefaultBase
		}
		return fmt.Errorf("%w\ncannot reach %s: give another mirror (Source.Mirror URL or DIR, or DEBREDIST_MIRROR), or use Source.Offline after one online run, or Release.LockFile FILE whose debs are in the cache", err, base)
	}
	return err
}

func isDNSError(err error) bool {
	var de *net.DNSError
	var oe *net.OpError
	return errors.As(err, &de) || errors.As(err, &oe)
}
