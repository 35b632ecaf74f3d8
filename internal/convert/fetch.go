package convert

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/redist"
)

// Fetched is what Fetch made available in the cache.
type Fetched struct {
	Plan     *plan.Plan
	Debs     []apt.Package
	Paths    map[string]string // sha256 -> cache file
	CacheDir string
}

// Fetch plans the release as Convert does and makes sure every deb the
// plan needs is in the cache (or, with packages given, those binary
// packages of the release's repos); with LockOut it writes their lock.
func (o *Run) Fetch(ctx context.Context, packages []string) (*Fetched, error) {
	pl, err := o.Plan(ctx, true)
	if err != nil {
		return nil, err
	}
	var debs []apt.Package
	if len(packages) > 0 {
		want := map[string]bool{}
		for _, p := range packages {
			want[p] = true
		}
		for _, d := range pl.Inputs {
			if want[d.Name] {
				debs = append(debs, d)
				delete(want, d.Name)
			}
		}
		if len(want) > 0 {
			missing := make([]string, 0, len(want))
			for p := range want {
				missing = append(missing, p)
			}
			sort.Strings(missing)
			return nil, fault.Usagef("not in the %s indexes: %s", pl.Profile.L4T, strings.Join(missing, ", "))
		}
	} else {
		for _, p := range pl.Packages {
			debs = append(debs, p.Debs...)
		}
	}
	f, err := o.fetcher()
	if err != nil {
		return nil, err
	}
	paths, err := o.fetchDebs(ctx, f, debs)
	if err != nil {
		return nil, err
	}
	if o.LockOut != "" {
		if err := writeLockOut(o.LockOut, pl); err != nil {
			return nil, err
		}
	}
	return &Fetched{Plan: pl, Debs: debs, Paths: paths, CacheDir: f.CacheDir()}, nil
}

// RecordedDebs makes sure the debs of an archive's provenance record are
// in the cache, fetched as Fetch fetches them, and returns their cache
// paths in the record's order.
func (o *Run) RecordedDebs(ctx context.Context, rec *redist.Archive) ([]string, error) {
	f, err := o.fetcher()
	if err != nil {
		return nil, err
	}
	debs := make([]apt.Package, 0, len(rec.Debs))
	for _, d := range rec.Debs {
		debs = append(
			debs,
			apt.Package{Repo: d.Repo, Name: d.Package, Version: d.Version, Filename: d.Filename, SHA256: d.SHA256, Size: d.Size},
		)
	}
	got, err := o.fetchDebs(ctx, f, debs)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(got))
	for _, d := range rec.Debs {
		if p := got[strings.ToLower(d.SHA256)]; p != "" && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return paths, nil
}
