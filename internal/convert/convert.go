package convert

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/publish"
)

// Outcome is what Convert wrote or kept in the output directory.
type Outcome struct {
	Profile  profile.Profile
	Products []Product // one manifest each
	Archives []Archive // in manifest order
	// Skipped are the redist packages not emitted: their debs carry no
	// payload (only copyright and changelog files).
	Skipped []plan.SkippedPackage
	// Warnings are the output's, as the provenance of every archive of
	// the manifests this run wrote or kept records them, sorted by
	// package and code.
	Warnings  []redist.Warning
	Downloads event.Downloads
}

// Product is one manifest of the output: its product and label, and its
// path relative to OUT.
type Product struct {
	plan.ProductLabel
	Manifest string
}

// Archive is one archive of the output: the package it was built from, its
// provenance record, its path relative to OUT, and whether this run kept
// it as it was (up to date).
type Archive struct {
	Package  plan.Package
	Record   redist.Archive
	Path     string
	UpToDate bool
}

// Convert converts exactly the packages of pl, from exactly their debs,
// into Out. A failure, cancellation or kill leaves Out as it was or as the
// new output, never a mix: everything is built in a temporary directory
// inside it, assembled as the next generation beside the current one
// (unchanged files shared by hardlink) and switched to with one rename of
// OUT/.debredist/current.
func (o *Run) Convert(ctx context.Context, pl *plan.Plan) (_ *Outcome, err error) {
	comp := o.Compression
	builds := o.Jobs
	if builds <= 0 {
		builds = DefaultJobs()
	}
	if len(pl.Packages) == 0 {
		return nil, fmt.Errorf("L4T %s: nothing to convert (no redist package in the plan)", pl.Profile.L4T)
	}
	o.emit(event.Event{Kind: event.Plan, Total: int64(len(pl.Packages)), Message: pl.Profile.Name})
	if err := checkForeign(o.Out, pl); err != nil {
		return nil, err
	}
	if err := checkNonEmpty(o.Out, o.AllowNonEmptyOut); err != nil {
		return nil, err
	}
	claim, err := publish.Take(ctx, o.Out, func(msg string) { o.emit(event.Event{Kind: event.OutBusy, Message: msg}) })
	if err != nil {
		return nil, err
	}
	defer claim.Release()
	published := false
	defer func() {
		if err != nil && !published { // a failed first conversion leaves no OUT behind
			claim.Undo()
		}
	}()
	tmp, err := publish.MakeTmp(o.Out)
	if err != nil {
		return nil, err
	}
	if tmp != "" {
		defer func() { _ = os.RemoveAll(tmp) }() // what is left, the next run removes
		// Links a killed run left half made, before OUT is read.
		did, err := publish.RepairLinks(o.Out)
		if err != nil {
			return nil, fmt.Errorf("repairing the product links a killed run left in %s: %w", o.Out, err)
		}
		if len(did) > 0 {
			o.emit(
				event.Event{
					Kind:    event.Notice,
					Message: "finished what a killed run left in " + o.Out + ": " + strings.Join(did, ", "),
				},
			)
		}
	}
	mtime := o.MTime
	if mtime.IsZero() {
		mtime, err = time.Parse("2006-01-02", pl.Profile.ReleaseDate)
		if err != nil {
			return nil, fmt.Errorf("profile %s: release_date: %w", pl.Profile.Name, err)
		}
	}
	prev := readPrevious(o.Out)

	jobs, err := o.newJobs(ctx, pl, comp, mtime, prev, builds)
	if err != nil {
		return nil, err
	}
	if err := o.buildJobs(ctx, jobs, tmp, builds); err != nil {
		return nil, err
	}
	for _, j := range jobs {
		if j.empty { // no archive records what its rules did
			o.emptyRules = append(o.emptyRules, j.rules...)
		}
	}
	jobs, emptied := dropEmptyJobs(jobs) // empty.go
	// Everything is built: the next generation of OUT is assembled beside
	// the current one and switched to in one step (publish.go).
	res, err := o.commitGeneration(ctx, pl, jobs, tmp, prev)
	if err != nil {
		return nil, err
	}
	published = true // OUT stays, whatever fails after
	res.Skipped = append(append(res.Skipped, pl.SkippedPackages...), emptied...)
	for _, w := range res.Warnings {
		o.emit(event.Event{Kind: event.Warning, Package: w.Package, Code: w.Code, Message: w.Message})
	}
	// Last: a --lock-out that cannot be written leaves OUT complete.
	if o.LockOut != "" {
		if err := writeLockOut(o.LockOut, pl); err != nil {
			return nil, err
		}
	}
	res.Downloads = o.Downloads()
	return res, nil
}

// checkNonEmpty refuses an out that exists, is not empty and is no output
// directory of debredist's (outdir.IsOut), unless allow.
func checkNonEmpty(out string, allow bool) error {
	ok, err := outdir.IsOut(out)
	if err != nil || ok || allow {
		return nil // unreadable: publish says so
	}
	d, err := os.Open(out)
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(1)
	d.Close()
	if len(names) == 0 {
		return nil
	}
	return fault.OptionErrorf(
		fault.RefOut,
		nil,
		"%s is not empty and holds no debredist output (no redistrib_*.json, no .debredist): give a new or empty directory, "+
			"or set %s to convert into it beside what it holds; nothing was written",
		out,
		fault.RefAllowNonEmptyOut,
	)
}

// checkForeign refuses, before anything is written to OUT, a product
// entry (OUT/cuda) that debredist neither wrote nor takes over: a symlink
// that is not its product link, a file, or a directory without redist/
// (an older debredist's output, which is migrated, has one). Such content
// is the user's: it has to be moved, and no rerun changes that.
func checkForeign(out string, pl *plan.Plan) error {
	for _, pr := range pl.Products {
		at := filepath.Join(out, pr.Product)
		st, err := os.Lstat(at)
		var what string
		switch {
		case err != nil:
			continue // absent (or unreadable: publish says so)
		case st.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(at)
			if l == publish.ProductLink(pr.Product) {
				continue // debredist's (publish checks what it leads to)
			}
			what = "a symlink to " + l + " that debredist did not write"
		case st.IsDir():
			if rs, err := os.Stat(filepath.Join(at, "redist")); err == nil && rs.IsDir() {
				continue // an older debredist's output: migrated
			}
			what = "a directory debredist did not write (no redist/ in it: not an older debredist output to migrate)"
		default:
			what = "a file debredist did not write"
		}
		return fault.Errorf(
			"%s %s: %s is %s, where the %s product goes; debredist does not take it over: move it out of %s (or convert into "+
				"another %s); nothing was written",
			fault.RefOut,
			out,
			at,
			what,
			pr.Product,
			out,
			fault.RefOut,
		)
	}
	return nil
}
