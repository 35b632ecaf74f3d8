package debredist

import (
	"context"

	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/reldiff"
	"github.com/debredist/debredist/internal/convert"
)

// DiffOptions are the options of Diff: where indexes and debs come from
// (the releases are Diff's arguments) and whether to compare in-archive
// paths.
type DiffOptions struct {
	// Source says where the releases' indexes and debs come from.
	Source Source
	// Files compares the archives' paths: it downloads (through the cache)
	// the debs of every component of the new release and of the old side
	// of every changed component, and lays them out with each side's
	// profile. Each component's debs are unpacked under the system
	// temporary directory ($TMPDIR), one component at a time.
	Files bool
	// Limits bound what one deb may expand to (with Files).
	Limits DebLimits
	// OnEvent receives progress (see [Options.OnEvent]).
	OnEvent func(event.Event)
}

// Diff compares two releases. Each of from and to is an L4T suite
// ("r36.4") or JetPack release ("jetpack6", "6": see Profiles) read from
// the mirror, a profile file (its suite read from the mirror with its
// rules), a lock file (debredist's or jetpack-nixos'
// sourceinfo/<suite>-debs.json), or an output directory of Convert (read
// through its provenance). PATH@rXX.Y picks the suite of a jetpack-nixos
// lock whose name does not say it, or one release of an output directory
// that holds several (a manifest whose label two releases share holds the
// last conversion only).
func Diff(ctx context.Context, o DiffOptions, from, to string) (*reldiff.Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	r := convert.New(convert.Options{Source: o.Source.fetch(), Limits: o.Limits, Tool: tool, OnEvent: o.OnEvent})
	a, err := r.Side(ctx, from)
	if err != nil {
		return nil, err
	}
	b, err := r.Side(ctx, to)
	if err != nil {
		return nil, err
	}
	res := reldiff.Compare(a, b)
	if !o.Files {
		return res, nil
	}
	fromNames, toNames := reldiff.NeedsFiles(res, a, b)
	fl, err := r.Listings(ctx, a, fromNames)
	if err != nil {
		return nil, err
	}
	tl, err := r.Listings(ctx, b, toNames)
	if err != nil {
		return nil, err
	}
	reldiff.AddFiles(res, b, fl, tl)
	return res, nil
}
