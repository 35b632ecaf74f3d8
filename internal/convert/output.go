package convert

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/publish"
)

// commitGeneration builds the next generation of OUT (the current output
// shared by hardlinks, the new archives, LICENSE files and manifests),
// checks it, and publishes it. When every package is up to date and OUT's
// manifests and provenance already say what this run would write, no
// generation is made and nothing is written (a read-only OUT works).
func (o *Run) commitGeneration(
	ctx context.Context,
	pl *plan.Plan,
	jobs []*job,
	tmp string,
	prev previous,
) (res *Outcome, err error) {
	if allUpToDate(jobs) && (!o.SBOM || !sbomMissing(o.Out)) {
		res, err := o.writeManifests(o.Out, pl, jobs, "", prev) // writes nothing: fails if a write is needed
		if err == nil && tmp != "" {
			_, err = publish.Prune(o.Out) // what a killed run left
		}

		if err == nil {
			return res, nil
		}
		if tmp == "" {
			return nil, err
		}
	}
	if tmp == "" {
		return nil, errReadOnly(o.Out, "its manifests must be rewritten")
	}
	g, err := publish.NewGeneration(o.Out)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			g.Discard()
		}
	}()
	for _, j := range jobs {
		if j.productDir, err = publish.Path(g.Dir, j.pkg.Product, "redist"); err != nil {
			return nil, err
		}
		if j.final, err = publish.Path(j.productDir, j.rel); err != nil {
			return nil, err
		}
		if j.licenseFile, err = publish.Path(j.productDir, j.pkg.PName, "LICENSE.txt"); err != nil {
			return nil, err
		}
	}
	gprev := readPrevious(g.Dir) // the current output, as cloned
	if err = commit(jobs, tmp); err != nil {
		return nil, err
	}
	if res, err = o.writeManifests(g.Dir, pl, jobs, tmp, gprev); err != nil {
		return nil, err
	}
	if err = writeSBOMs(ctx, g.Dir, tmp, o.Tool, o.MTime, o.SBOM); err != nil { // sbom.go
		return nil, fmt.Errorf("writing the bill of materials: %w", err)
	}
	if err = checkWritten(g.Dir, res, jobs); err != nil {
		return nil, fmt.Errorf("verifying the output: %w", err)
	}
	if err = g.Publish(); err != nil {
		return nil, err
	}
	return res, nil
}

// commit moves the archives and LICENSE files built in tmp into the new
// generation (unpublished: nothing reads it until the switch); the
// manifests of the products it touches are rewritten after it
// (writeManifests: a product with a rebuilt package is never unchanged).
func commit(jobs []*job, tmp string) error {
	for _, j := range jobs {
		if j.upToDate {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(j.final), 0o755); err != nil {
			return err
		}
		if err := files.Write(j.licenseFile, j.license, tmp); err != nil {
			return err
		}
		if err := os.Rename(j.staged, j.final); err != nil {
			return err
		}
		publish.Step("placed " + j.rel)
	}
	return nil
}

// allUpToDate reports whether no package was built in this run.
func allUpToDate(jobs []*job) bool {
	for _, j := range jobs {
		if !j.upToDate {
			return false
		}
	}
	return true
}
