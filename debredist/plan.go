package debredist

import (
	"context"
	"errors"
	"fmt"
	"github.com/debredist/debredist/internal/files"
	"io/fs"
	"slices"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
)

// Plan selects the release, reads its indexes (or lock file) and groups
// the debs into redist packages. It is a function of the indexes and the
// profile: it reads no deb, so the same indexes plan the same whatever the
// cache holds. ConvertPlan converts exactly its result; PlanCached adds
// the cache look-ahead Convert plans with.
func Plan(ctx context.Context, o Options) (*plan.Result, error) {
	return makePlan(ctx, newRun(o), false)
}

// PlanCached is Plan with the cache look-ahead that Convert, Fetch,
// Inventory and Diff plan with (and the plan command prints): a redist
// package whose debs are all in the cache (Source.CacheDir) and carry no
// payload is moved to SkippedPackages before Build.Only applies, as
// Convert would find it empty. Its result depends on the cache.
func PlanCached(ctx context.Context, o Options) (*plan.Result, error) {
	return makePlan(ctx, newRun(o), true)
}

// makePlan is Plan for this package's own use; lookAhead adds
// skipEmptyPackages (PlanCached).
func makePlan(ctx context.Context, o *run, lookAhead bool) (*plan.Result, error) {
	if err := o.Options.Check(); err != nil {
		return nil, err
	}
	var lock *apt.Lock
	var lockSum string
	var err error
	if o.Release.LockFile != "" {
		if lock, lockSum, err = readLock(o.Release.LockFile); err != nil {
			return nil, err
		}
	}
	prof, err := selectProfile(o, lock)
	if err != nil {
		return nil, err
	}
	var pkgs []apt.Package
	var indexes []redist.Index
	if lock != nil {
		if lock.Suite != "" && lock.Suite != prof.L4T {
			return nil, fault.Usagef("lock file %s pins L4T %s but the profile is for %s", o.Release.LockFile, lock.Suite, prof.L4T)
		}
		pkgs = lock.Packages
		// recorded absolute, like a mirror directory: the provenance is
		// read from other directories later
		indexes = append(indexes, redist.Index{Repo: "lock", URL: absMirror(o.Release.LockFile), SHA256: lockSum})
	} else {
		f, err := o.fetcher()
		if err != nil {
			return nil, err
		}
		unsigned := false
		for _, repo := range prof.Repos {
			r := apt.NewRepo(o.Source.Mirror, repo, prof.L4T)
			ps, info, err := f.Index(ctx, r)
			if err != nil {
				return nil, indexHint(o, err) // names the repo, suite and URL already
			}
			if !info.Signed {
				unsigned = true
			}
			o.emit(Event{Kind: EventIndex, Package: repo, URL: info.URL, Total: int64(len(ps))})
			indexes = append(indexes, redist.Index{Repo: repo, URL: info.URL, SHA256: info.SHA256, Signed: info.Signed})
			pkgs = append(pkgs, ps...)
		}
		if unsigned {
			msg := "index signatures were not checked (no Source.Keyring given)"
			if o.Source.Keyring != "" {
				msg = "the repository publishes no signed Release: index signatures could not be checked"
			}
			o.emit(Event{Kind: EventNotice, Message: msg})
		}
		pkgs = apt.Newest(pkgs)
	}
	var bins []profile.Binary
	for _, p := range pkgs {
		bins = append(bins, profile.Binary{Name: p.Name, Version: p.Version})
	}
	prof, err = prof.Resolve(bins)
	if err != nil {
		return nil, err
	}
	if prof.ReleaseDate == "" {
		prof.ReleaseDate = "1970-01-01"
		if o.Build.MTime.IsZero() {
			return nil, fmt.Errorf("L4T %s: no release date in the profile and none derivable from nvidia-l4t-* versions; set SOURCE_DATE_EPOCH or release_date in a Release.ProfileFile file", prof.L4T)
		}
		prof.ReleaseDate = o.Build.MTime.UTC().Format("2006-01-02")
	}
	p, err := plan.Build(prof, pkgs)
	if err != nil {
		return nil, err
	}
	if err := checkExpected(o, prof, p.Packages); err != nil {
		return nil, err
	}
	res := &plan.Result{Profile: prof, Products: p.Products(), Packages: p.Packages, Skipped: p.Skipped, Inputs: pkgs, Indexes: indexes}
	if lookAhead {
		if err := skipEmptyPackages(ctx, o, res); err != nil { // empty.go
			return nil, err
		}
	}
	if len(o.Build.Only) > 0 {
		var keep []plan.Package
		for _, name := range o.Build.Only {
			i := slices.IndexFunc(p.Packages, func(q plan.Package) bool { return q.PName == name })
			if i < 0 {
				var names []string
				for _, q := range p.Packages {
					names = append(names, q.PName)
				}
				return nil, fault.Usagef("Build.Only %s: no such redist package in %s (have: %s)", name, prof.L4T, strings.Join(names, ", "))
			}
		}
		for _, q := range p.Packages {
			if slices.Contains(o.Build.Only, q.PName) {
				keep = append(keep, q)
			}
		}
		res.Packages = keep
	}
	return res, nil
}

// checkExpected fails when the plan lacks a redist package the profile
// expects (of those --only names, when it narrows the run): an index cut
// short at a stanza boundary, or a deb pulled upstream, must not make a
// release that silently lacks a component.
func checkExpected(o *run, prof Profile, pkgs []plan.Package) error {
	var missing []string
	for _, e := range prof.Expect {
		if len(o.Build.Only) > 0 && !slices.Contains(o.Build.Only, e) {
			continue
		}
		if !slices.ContainsFunc(pkgs, func(q plan.Package) bool { return q.PName == e }) {
			missing = append(missing, e)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	where := "the index"
	if o.Release.LockFile != "" {
		where = "the lock file " + o.Release.LockFile
	}
	return &fault.IncompleteError{Suite: prof.L4T, Profile: prof.Name, Missing: missing, Source: where}
}

// selectProfile returns the profile of the release o selects. o.Check has
// run, so exactly one of JetPack, L4T and ProfileFile is set, or none and
// the lock (o.Release.LockFile, read by the caller) names the suite.
func selectProfile(o *run, lock *apt.Lock) (Profile, error) {
	switch {
	case o.Release.ProfileFile != "":
		p, err := profile.LoadFile(o.Release.ProfileFile)
		if ie := (*profile.InvalidError)(nil); errors.As(err, &ie) {
			return p, &fault.UsageError{Msg: err.Error(), Err: err, File: o.Release.ProfileFile}
		}
		return p, err
	case o.Release.JetPack != "":
		p, err := profile.ForJetPack(o.Release.JetPack)
		if err != nil {
			return p, &fault.UsageError{Msg: err.Error()}
		}
		return p, nil
	case o.Release.L4T != "":
		p, err := profile.ForSuite(o.Release.L4T)
		if err != nil {
			return p, &fault.UsageError{Msg: err.Error()}
		}
		return p, nil
	}
	if lock.Suite == "" {
		return Profile{}, fault.Usagef("lock file %s does not name its L4T suite (jetpack-nixos format): add Release.L4T or Release.JetPack", o.Release.LockFile)
	}
	return profile.ForSuite(lock.Suite)
}

// readLock reads the lock file the user named: a file that is missing or
// malformed is a *UsageError naming it (and the line and column).
func readLock(path string) (*apt.Lock, string, error) {
	b, err := files.ReadRegular(path, maxUserFile)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, "", &fault.UsageError{Msg: fmt.Sprintf("lock file %s: %v", path, err), Err: err, File: path}
	}
	l, err := apt.ParseLock(path, b)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "apt: ")
		if !strings.Contains(msg, path) {
			msg = path + ": " + msg
		}
		return nil, "", &fault.UsageError{Msg: "lock file " + msg, Err: err, File: path}
	}
	return l, sha256hex(b), nil
}
