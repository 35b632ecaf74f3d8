package convert

import (
	"context"

	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/internal/build"
	"github.com/debredist/debredist/internal/layout"
)

// skipEmptyPackages moves the packages whose debs are all in the cache and
// carry no payload from res.Packages to res.SkippedPackages. Packages with
// a deb not yet cached stay (Convert checks them once fetched).
func (o *Run) skipEmptyPackages(ctx context.Context, res *plan.Plan) error {
	f, err := o.fetcher()
	if err != nil {
		return nil // no cache to look into: Convert checks after fetching
	}
	eng, err := layout.New(res.Profile)
	if err != nil {
		return err
	}
	var keep []plan.Package
	for _, p := range res.Packages {
		empty := len(f.Missing(p.Debs)) == 0
		for _, d := range p.Debs {
			if !empty {
				break
			}
			empty = !build.DebHasPayload(ctx, o.Limits, eng, p.PName, d, f.CachePath(d.SHA256))
		}
		if empty {
			res.SkippedPackages = append(res.SkippedPackages, build.Skipped(p))
			continue
		}
		keep = append(keep, p)
	}
	res.Packages = keep
	return nil
}

// dropEmptyJobs removes the jobs whose tree turned out empty.
func dropEmptyJobs(jobs []*job) ([]*job, []plan.SkippedPackage) {
	var keep []*job
	var skip []plan.SkippedPackage
	for _, j := range jobs {
		if j.empty {
			skip = append(skip, build.Skipped(j.pkg))
			continue
		}
		keep = append(keep, j)
	}
	return keep, skip
}
