package debredist

import (
	"context"

	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/internal/convert"
)

// Plan selects the release, reads its indexes (or lock file) and groups
// the debs into redist packages. It is a function of the indexes and the
// profile: it reads no deb, so the same indexes plan the same whatever the
// cache holds. ConvertPlan converts exactly its result; PlanCached adds
// the cache look-ahead Convert plans with.
func Plan(ctx context.Context, o Options) (*plan.Plan, error) {
	return planWith(ctx, o, false)
}

// PlanCached is [Plan] with the cache look-ahead that Convert, Fetch,
// Inventory and Diff plan with (and the plan command prints): a redist
// package whose debs are all in the cache ([Source.CacheDir]) and carry
// no payload is moved to [plan.Plan.SkippedPackages] before [Build.Only]
// applies, as Convert would find it empty. Its result depends on the
// cache.
func PlanCached(ctx context.Context, o Options) (*plan.Plan, error) {
	return planWith(ctx, o, true)
}

// planWith checks the options and runs the planning stage.
func planWith(ctx context.Context, o Options, lookAhead bool) (*plan.Plan, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	comp, _ := compression(o.Build.Compression) // checked
	return convert.New(o.stage(comp)).Plan(ctx, lookAhead)
}
