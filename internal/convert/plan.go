package convert

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/files"
)

// Plan selects the release, reads its indexes (or lock file) and groups
// the debs into redist packages (Only narrows them). With lookAhead a redist
// package whose debs are all in the cache and carry no payload is moved to
// SkippedPackages first, as Convert would find it empty.
func (o *Run) Plan(ctx context.Context, lookAhead bool) (*plan.Plan, error) {
	var lock *apt.Lock
	var lockSum string
	var err error
	if o.Select.LockFile != "" {
		if lock, lockSum, err = ReadLock(o.Select.LockFile); err != nil {
			return nil, err
		}
	}
	prof, err := o.selectProfile(lock)
	if err != nil {
		return nil, err
	}
	var pkgs []apt.Package
	var indexes []redist.Index
	if lock != nil {
		if lock.Suite != "" && lock.Suite != prof.L4T {
			return nil, fault.Usagef(
				"lock file %s pins L4T %s but the profile is for %s",
				o.Select.LockFile,
				lock.Suite,
				prof.L4T,
			)
		}
		pkgs = lock.Packages
		// recorded absolute, like a mirror directory: the provenance is
		// read from other directories later
		indexes = append(indexes, redist.Index{Repo: "lock", URL: AbsMirror(o.Select.LockFile), SHA256: lockSum})
	} else {
		f, err := o.fetcher()
		if err != nil {
			return nil, err
		}
		unsigned := false
		for _, repo := range prof.Repos {
			r := apt.NewRepo(o.Source.Base, repo, prof.L4T)
			ps, info, err := f.Index(ctx, r)
			if err != nil {
				return nil, o.indexHint(err) // names the repo, suite and URL already
			}
			if !info.Signed {
				unsigned = true
			}
			o.emit(event.Event{Kind: event.Index, Package: repo, URL: info.URL, Total: int64(len(ps))})
			indexes = append(indexes, redist.Index{Repo: repo, URL: info.URL, SHA256: info.SHA256, Signed: info.Signed})
			pkgs = append(pkgs, ps...)
		}
		if unsigned {
			msg := fault.Errorf("index signatures were not checked (no %s given)", fault.RefKeyring)
			if o.Source.Keyring != "" {
				msg = fault.Errorf("the repository publishes no signed Release: index signatures could not be checked")
			}
			o.emit(event.Event{Kind: event.Notice, Message: msg.Error(), Err: msg})
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
		if o.MTime.IsZero() {
			return nil, fault.Errorf(
				"L4T %s: no release date in the profile and none derivable from nvidia-l4t-* versions; set %s or release_date in "+
					"a %s file",
				prof.L4T,
				fault.RefMTime,
				fault.RefProfileFile,
			)
		}
		prof.ReleaseDate = o.MTime.UTC().Format("2006-01-02")
	}
	p, err := plan.Group(prof, pkgs)
	if err != nil {
		return nil, err
	}
	if err := o.checkExpected(prof, p.Packages); err != nil {
		return nil, err
	}
	res := &plan.Plan{
		Profile:  prof,
		Products: p.Products(),
		Packages: p.Packages,
		Skipped:  p.Skipped,
		Inputs:   pkgs,
		Indexes:  indexes,
	}
	if lookAhead {
		if err := o.skipEmptyPackages(ctx, res); err != nil { // empty.go
			return nil, err
		}
	}
	if len(o.Only) > 0 {
		var keep []plan.Package
		for _, name := range o.Only {
			i := slices.IndexFunc(p.Packages, func(q plan.Package) bool { return q.PName == name })
			if i < 0 {
				var names []string
				for _, q := range p.Packages {
					names = append(names, q.PName)
				}
				return nil, fault.OptionErrorf(
					fault.RefOnly,
					nil,
					"%s: no such redist package in %s (have: %s)",
					name,
					prof.L4T,
					strings.Join(names, ", "),
				)
			}
		}
		for _, q := range p.Packages {
			if slices.Contains(o.Only, q.PName) {
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
func (o *Run) checkExpected(prof profile.Profile, pkgs []plan.Package) error {
	var missing []string
	for _, e := range prof.Expect {
		if len(o.Only) > 0 && !slices.Contains(o.Only, e) {
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
	if o.Select.LockFile != "" {
		where = "the lock file " + o.Select.LockFile
	}
	return &fault.IncompleteError{Suite: prof.L4T, Profile: prof.Name, Missing: missing, Source: where}
}

// selectProfile returns the profile of the release o selects. o.Check has
// run, so exactly one of JetPack, L4T and ProfileFile is set, or none and
// the lock (o.Select.LockFile, read by the caller) names the suite.
func (o *Run) selectProfile(lock *apt.Lock) (profile.Profile, error) {
	switch {
	case o.Select.ProfileFile != "":
		p, err := profile.LoadFile(o.Select.ProfileFile)
		if ie := (*profile.InvalidError)(nil); errors.As(err, &ie) {
			return p, &fault.UsageError{Msg: err.Error(), Err: err, File: o.Select.ProfileFile}
		}
		return p, err
	case o.Select.JetPack != "":
		p, err := profile.ForJetPack(o.Select.JetPack)
		if err != nil {
			return p, &fault.UsageError{Msg: err.Error()}
		}
		return p, nil
	case o.Select.L4T != "":
		p, err := profile.ForSuite(o.Select.L4T)
		if err != nil {
			return p, &fault.UsageError{Msg: err.Error()}
		}
		return p, nil
	}
	if lock.Suite == "" {
		return profile.Profile{}, fault.Usagef(
			"lock file %s does not name its L4T suite (jetpack-nixos format): add %s or %s",
			o.Select.LockFile,
			fault.RefL4T,
			fault.RefJetPack,
		)
	}
	return profile.ForSuite(lock.Suite)
}

// ReadLock reads the lock file the user named: a file that is missing or
// malformed is a *UsageError naming it (and the line and column).
func ReadLock(path string) (*apt.Lock, string, error) {
	b, err := files.ReadRegular(path, redist.MaxJSON)
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

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
