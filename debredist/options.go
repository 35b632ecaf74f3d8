package debredist

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/convert"
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
	return Profile{}, fault.Errorf(
		"no built-in profile %q (have: %s; also their aliases, JetPack versions and L4T suites: see %s)",
		name,
		strings.Join(names, ", "),
		fault.RefProfiles,
	)
}

// LoadProfile reads a user's profile file; empty fields are inherited from
// the built-in profile of the same L4T major. A file that is missing or
// invalid is a [*profile.InvalidError] naming file, line and column.
func LoadProfile(path string) (Profile, error) {
	return profile.LoadFile(path)
}

// Options is what a call of this package reads, by stage, nested as
// crane nests remote options: where debs come from (Source), which release
// (Release), how to build (Build), and where progress goes. Plan reads
// Source, Release and [Build.Only]; Fetch also [Build.LockOut]; Convert all of
// it; Inventory Source and Release. The zero value of each field is its
// default.
type Options struct {
	Source  Source
	Release Release
	Build   Build
	// OnEvent receives progress; it is called from several goroutines at
	// once and must be safe for that and fast.
	OnEvent func(event.Event)
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
	// ([fault.ErrUnverifiedIndex]), since nothing tells it from one cut short.
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
	// FailOnWarnings makes Convert fail with a [*redist.WarningsError] when
	// the output has a warning ([Result.Warnings]) whose code is not in
	// AllowWarnings ([redist.WarningCodes] lists the codes). OUT is written
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
	return &redist.WarningsError{Warnings: bad, Allowed: b.AllowWarnings}
}

// stage translates the options into the conversion stage's: comp is
// Build.Compression parsed (Check has run).
func (o Options) stage(comp archive.Compression) convert.Options {
	return convert.Options{
		Source: o.Source.fetch(),
		Select: convert.Select{
			JetPack: o.Release.JetPack, L4T: o.Release.L4T, ProfileFile: o.Release.ProfileFile, LockFile: o.Release.LockFile,
		},
		Out: o.Build.Out, Jobs: o.Build.Jobs, Compression: comp, Preset: o.Build.Preset, Only: o.Build.Only,
		MTime: o.Build.MTime, Limits: o.Build.Limits, LockOut: o.Build.LockOut, SBOM: o.Build.SBOM,
		AllowNonEmptyOut: o.Build.AllowNonEmptyOut, Tool: tool, OnEvent: o.OnEvent,
	}
}

// fetch translates Source into internal/fetch's options.
func (s Source) fetch() fetch.Options {
	return fetch.Options{
		Base: s.Mirror, CacheDir: s.CacheDir, Jobs: s.ParallelDownloads, Offline: s.Offline, VerifyCache: s.VerifyCache,
		Keyring: s.Keyring, AllowUnverified: s.AllowUnverifiedIndex, Retries: s.Retries, StallTimeout: s.StallTimeout,
		HTTPClient: s.HTTPClient,
	}
}

// tool is what the provenance records as the archives' maker.
const tool = "debredist " + Version
