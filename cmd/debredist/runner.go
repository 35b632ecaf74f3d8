package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/fault"
)

func noArgs(args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// humanBytes renders n as "12.3 MiB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// ---- release selection shared by plan, fetch and convert

// selection holds the flags that select a release and where its debs
// come from.
type selection struct {
	jetpack, l4t, lock, profile string
	mirror, cache, keyring      string
	offline, unverified         bool
}

func (s *selection) register(fs *flagSet) {
	fs.StringVar(
		&s.jetpack,
		"jetpack",
		"",
		"select the release by JetPack `version` or profile name (5, 6, 7, 6.2, jetpack6; see 'debredist profiles')",
	)
	fs.StringVar(&s.l4t, "l4t", "", "select the release by L4T apt `suite` (rMAJOR.MINOR, e.g. r36.5)")
	fs.StringVar(
		&s.lock,
		"lock",
		"",
		"pin the exact debs with a lock `file` (debredist lock or jetpack-nixos sourceinfo); may be combined with "+
			"--jetpack/--l4t/--profile",
	)
	fs.StringVar(
		&s.profile,
		"profile",
		"",
		"select the release with a profile `file` (JSON, see 'debredist profiles --json NAME')",
	)
	s.registerSource(fs)
}

// registerSource registers the flags that say where indexes and debs come
// from (not which release).
func (s *selection) registerSource(fs *flagSet) {
	s.registerDebSource(
		fs,
		"default $DEBREDIST_MIRROR, else NVIDIA's repository",
		"debs, and the indexes of an earlier online run",
	)
	fs.StringVar(
		&s.keyring,
		"keyring",
		"",
		"OpenPGP keyring `file` to check InRelease/Release.gpg signatures (unchecked without it)",
	)
	fs.BoolVar(
		&s.unverified,
		"allow-unverified-index",
		false,
		"accept a Packages index no Release file lists (like apt's [trusted=yes]); without a Release nothing tells a "+
			"complete index from one cut short",
	)
}

// registerDebSource registers the flags that say where debs come from:
// mirror (its default as defaults says), cache and offline (what the
// cache gives, as cached says).
func (s *selection) registerDebSource(fs *flagSet, defaults, cached string) {
	fs.StringVar(&s.mirror, "mirror", "", "apt mirror: base `URL` (https, http, file) or directory ("+defaults+")")
	fs.StringVar(&s.cache, "cache", "", "deb and index cache `dir` (default $XDG_CACHE_HOME/debredist)")
	fs.BoolVar(&s.offline, "offline", false, "use only the cache ("+cached+"); fail listing what is missing")
}

// source returns the Options fields the source flags set; the mirror
// defaults to $DEBREDIST_MIRROR.
func (s *selection) source(a *app) debredist.Options {
	mirror := s.mirror
	if mirror == "" {
		if mirror = a.getenv("DEBREDIST_MIRROR"); mirror != "" {
			a.tookEnv(fault.RefMirror, "DEBREDIST_MIRROR")
		}
	}
	return debredist.Options{
		Source: debredist.Source{
			Mirror:               mirror,
			CacheDir:             s.cache,
			Keyring:              s.keyring,
			Offline:              s.offline,
			AllowUnverifiedIndex: s.unverified,
		},
	}
}

// options checks the selection and turns it into Options.
func (s *selection) options(a *app) (debredist.Options, error) {
	o := s.source(a)
	o.Release.JetPack, o.Release.L4T, o.Release.ProfileFile, o.Release.LockFile = s.jetpack, s.l4t, s.profile, s.lock
	var err error
	o.Build.MTime, err = a.sourceDateEpoch()
	return o, err
}

// sourceDateEpoch is the time SOURCE_DATE_EPOCH sets (zero when unset):
// every archive entry's mtime (Build.MTime), the bills of materials'
// creation time.
func (a *app) sourceDateEpoch() (time.Time, error) {
	v := a.getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Time{}, nil
	}
	sec, err := strconv.ParseInt(v, 10, 64)
	if err != nil || sec < 0 {
		return time.Time{}, usagef("SOURCE_DATE_EPOCH=%q: want a non-negative integer number of seconds", v)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// downloadsFlag is --downloads, Source.ParallelDownloads.
func downloadsFlag(fs *flagSet) *int {
	return fs.Int("downloads", 0, "`N` parallel downloads (default 4)")
}

// start is what the commands that plan share before they run: no
// positional argument, the options of the release selection, set (the
// command's own flags and checks; nil for none) applied, and progress
// shown through OnEvent. The caller closes the progress with the error.
func (s *selection) start(
	a *app,
	args []string,
	set func(o *debredist.Options) error,
) (debredist.Options, *progress, error) {
	if err := noArgs(args); err != nil {
		return debredist.Options{}, nil, err
	}
	o, err := s.options(a)
	if err != nil {
		return debredist.Options{}, nil, err
	}
	if set != nil {
		if err := set(&o); err != nil {
			return debredist.Options{}, nil, err
		}
	}
	pr := a.newProgress()
	o.OnEvent = pr.handle
	return o, pr, nil
}
