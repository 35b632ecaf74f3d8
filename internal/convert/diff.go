package convert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/debredist/reldiff"
	"github.com/debredist/debredist/internal/build"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/jsonpos"
)

var suiteInName = regexp.MustCompile(`(?:^|[^0-9A-Za-z])(r[0-9]+\.[0-9]+)(?:[^0-9]|$)`)

// Side resolves one side of a diff (see debredist.Diff): an L4T suite or
// JetPack release read from the mirror, a profile file, a lock file or an
// output directory, with PATH@rXX.Y picking a suite.
func (o *Run) Side(ctx context.Context, ref string) (*reldiff.Input, error) {
	o.Select, o.LockOut, o.Only = Select{}, "", nil
	p, suite := ref, ""
	if i := strings.LastIndex(ref, "@"); i > 0 {
		if _, err := os.Stat(ref[:i]); err == nil {
			p, suite = ref[:i], ref[i+1:]
			if !profile.ValidSuite(suite) {
				return nil, fault.Usagef("%s: %q after @ is not an L4T suite (rMAJOR.MINOR)", ref, suite)
			}
		}
	}
	st, err := os.Stat(p)
	switch {
	case err == nil && st.IsDir():
		return releaseFromOut(p, ref, suite)
	case err == nil && isProfileFile(p):
		o.Select.ProfileFile = p
		pl, err := o.Plan(ctx, true)
		if err != nil {
			return nil, err
		}
		return &reldiff.Input{
			Ref:      ref,
			Origin:   "profile",
			Profile:  pl.Profile,
			Packages: pl.Packages,
			Others:   others(pl),
		}, nil
	case err == nil:
		o.Select.LockFile = p
		l, _, lerr := ReadLock(p)
		// jetpack-nixos' format names no suite and lists no meta-packages.
		jetpackNixos := lerr == nil && l.Suite == ""
		if suite == "" {
			if jetpackNixos {
				if m := suiteInName.FindStringSubmatch(filepath.Base(p)); m != nil {
					suite = m[1]
				} else {
					return nil, fault.Usagef(
						"lock file %s does not name its L4T suite (jetpack-nixos format): write it as %s@rXX.Y",
						p,
						p,
					)
				}
			}
		}
		o.Select.L4T = suite
		pl, err := o.Plan(ctx, true)
		if err != nil {
			return nil, err
		}
		rel := &reldiff.Input{Ref: ref, Origin: "lock", Profile: pl.Profile, Packages: pl.Packages, Others: others(pl)}
		if jetpackNixos {
			rel.Others = nil // not comparable: the format leaves out the meta-packages
		}
		return rel, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if profile.ValidSuite(ref) {
		o.Select.L4T = ref
	} else {
		if _, err := profile.ForJetPack(ref); err != nil {
			return nil, fault.Usagef(
				"%q is no file or directory, no L4T suite (rMAJOR.MINOR) and no JetPack release (see %s)",
				ref,
				fault.RefProfiles,
			)
		}
		o.Select.JetPack = ref
	}
	pl, err := o.Plan(ctx, true)
	if err != nil {
		return nil, err
	}
	return &reldiff.Input{Ref: ref, Origin: "mirror", Profile: pl.Profile, Packages: pl.Packages, Others: others(pl)}, nil
}

// others are the plan's input debs that no component converts.
func others(pl *plan.Plan) []apt.Package {
	used := map[string]bool{}
	for _, p := range pl.Packages {
		for _, d := range p.Debs {
			used[d.Repo+"/"+d.Name] = true
		}
	}
	out := []apt.Package{}
	for _, d := range pl.Inputs {
		if !used[d.Repo+"/"+d.Name] {
			out = append(out, d)
		}
	}
	return out
}

// isProfileFile tells a profile file (a JSON object with "l4t", see
// 'debredist profiles --json') from a lock file (whose suite is "suite").
func isProfileFile(p string) bool {
	b, err := files.ReadRegular(p, redist.MaxJSON)
	if err != nil {
		return false
	}
	var top map[string]json.RawMessage
	if jsonpos.Decode(p, b, &top) != nil {
		return false
	}
	_, suite := top["l4t"]
	return suite
}

// releaseFromOut rebuilds the plan a conversion into out used, from its
// provenance records (suite picks one release when out holds several),
// read as every reader of OUT reads them (outdir.Snapshot.ReadRelease: a
// manifest and its sidecar each valid and agreeing, or an error).
func releaseFromOut(out, ref, suite string) (*reldiff.Input, error) {
	snap, err := outdir.Open(out)
	if err != nil {
		return nil, err
	}
	defer func() { _ = snap.Close() }()
	if len(snap.Foreign) > 0 { // what they stand for would be left out of the comparison silently
		return nil, fault.Errorf("%s: %d symbolic link(s) debredist did not write, not followed: %s (%s lists them)",
			out, len(snap.Foreign), strings.Join(snap.Paths(snap.Foreign), ", "), fault.RefVerify)
	}
	sidecars := map[string]redist.Provenance{}
	for _, mf := range snap.Manifests {
		rel, err := snap.ReadProduct(mf)
		if err != nil {
			return nil, fault.Errorf("%w (%s tells more)", err, fault.RefVerify)
		}
		sidecars[rel.Sidecar] = *rel.Prov
	}
	if len(sidecars) == 0 {
		return nil, fault.Errorf(
			"%s: no debredist provenance record found (not an output directory of %s?)",
			out,
			fault.RefConvert,
		)
	}
	files := make([]string, 0, len(sidecars))
	suites := map[string]bool{}
	for f, p := range sidecars {
		files = append(files, f)
		suites[p.Profile.L4T] = true
	}
	sort.Strings(files)
	if suite == "" {
		if len(suites) > 1 {
			var ss []string
			for s := range suites {
				ss = append(ss, s)
			}
			sort.Strings(ss)
			return nil, fault.Usagef(
				"%s holds several releases (%s): pick one with %s@<suite>",
				out,
				strings.Join(ss, ", "),
				out,
			)
		}
		for s := range suites {
			suite = s
		}
	} else if !suites[suite] {
		return nil, fmt.Errorf("%s holds no conversion of L4T %s", out, suite)
	}
	r := &reldiff.Input{Ref: ref, Origin: "out"}
	for _, f := range files {
		p := sidecars[f]
		if p.Profile.L4T != suite {
			continue
		}
		if r.Profile.Name == "" {
			r.Profile = p.Profile
		}
		for i := range p.Archives {
			r.Packages = append(r.Packages, build.RecordedPackage(&p.Archives[i]))
		}
	}
	return r, nil
}

// Listings lays out the named components of one release from its debs,
// fetched through the cache (build.Listing lays them out).
func (o *Run) Listings(ctx context.Context, r *reldiff.Input, names []string) (map[string]*reldiff.Listing, error) {
	out := map[string]*reldiff.Listing{}
	if len(names) == 0 {
		return out, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var pkgs []plan.Package
	var need []apt.Package
	for _, p := range r.Packages {
		if want[p.PName] {
			pkgs = append(pkgs, p)
			need = append(need, p.Debs...)
		}
	}
	f, err := o.fetcher()
	if err != nil {
		return nil, err
	}
	paths, err := o.fetchDebs(ctx, f, need)
	if err != nil {
		return nil, err
	}
	err = build.Listing(
		ctx,
		o.Limits,
		r.Profile,
		r.Ref,
		pkgs,
		paths,
		func(pname string, nodes []entry.Header, unplaced []fault.DebPath, err error) {
			l := reldiff.NewListing(nodes, unplaced, err)
			out[pname] = &l
		},
	)
	if err != nil {
		return nil, err
	}
	return out, nil
}
