package debredist

import (
	"context"
	"strings"

	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/convert"
)

// Result summarizes a conversion.
type Result struct {
	Out      string          `json:"out"`
	Profile  Profile         `json:"profile"`
	Products []ProductResult `json:"products"`
	Packages []PackageResult `json:"packages"`
	// Skipped are the redist packages not emitted: their debs carry no
	// payload (only copyright and changelog files).
	Skipped []plan.SkippedPackage `json:"skipped"`
	// Warnings are what a consumer will trip over (an empty nixpkgs
	// output, an insecure version, a dropped entry, a profile rule that
	// did nothing), with stable codes: those of every archive of the
	// manifests this run wrote or kept, as their provenance records them,
	// so a run that rebuilt nothing (or only --only's packages) reports
	// the same list as the run that built them. Sorted by package and code.
	Warnings []redist.Warning `json:"warnings"`
	// Downloads counts the files this call downloaded and the debs it
	// found in the cache.
	Downloads event.Downloads `json:"downloads"`
}

// ProductResult is one manifest written.
type ProductResult struct {
	Product  string `json:"product"`
	Label    string `json:"label"`
	Manifest string `json:"manifest"` // relative to Out
}

// PackageResult is one redist archive.
type PackageResult struct {
	PName       string `json:"pname"`
	Product     string `json:"product"`
	Version     string `json:"version"`
	Platform    string `json:"platform"`
	CUDAVariant string `json:"cuda_variant,omitempty"`
	Archive     string `json:"archive"` // relative to Out
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	MD5         string `json:"md5"`
	NAR         string `json:"nar_hash"`
	Debs        int    `json:"debs"`
	UpToDate    bool   `json:"up_to_date"`
	// Changes is what the archive changes beyond placing the debs'
	// entries, one line per entry (also in the provenance sidecar).
	Changes []string `json:"changes"`
}

// Convert plans the release, fetches its debs, builds every redist
// package's archive, writes the manifests, LICENSE files and provenance
// under o.Build.Out, and checks the manifests against the sizes and hashes
// computed while writing ([verify.Dir] additionally decodes every archive).
// Archives whose inputs did not change and whose size and sha256 still
// match are kept (reported UpToDate). A failure, cancellation or kill
// leaves o.Build.Out as it was or as the new output, never a mix:
// everything is built in a temporary directory inside it, assembled as the
// next generation beside the current one (unchanged files shared by
// hardlink) and switched to with one rename of OUT/.debredist/current.
func Convert(ctx context.Context, opts Options) (*Result, error) {
	if opts.Build.Out == "" {
		return nil, fault.Usagef("%s is required", fault.RefOut)
	}
	if err := opts.Check(); err != nil {
		return nil, err
	}
	comp, _ := compression(opts.Build.Compression) // checked
	r := convert.New(opts.stage(comp))
	pl, err := r.Plan(ctx, true)
	if err != nil {
		return nil, err
	}
	return convertPlan(ctx, opts, r, pl)
}

// ConvertPlan is Convert of a plan made beforehand (Plan or PlanCached,
// perhaps with packages left out of pl.Packages by the caller): it converts
// exactly pl.Packages, from exactly their debs, with pl's profile. The
// release options (opts.Release) and [Build.Only] are not read: the plan is
// the selection. Its SkippedPackages and Inputs are reported and locked
// ([Build.LockOut]) as Convert's are.
func ConvertPlan(ctx context.Context, opts Options, pl *plan.Plan) (*Result, error) {
	if opts.Build.Out == "" {
		return nil, fault.Usagef("%s is required", fault.RefOut)
	}
	if pl == nil {
		return nil, fault.Usagef("ConvertPlan: no plan")
	}
	if err := opts.checkBuild(); err != nil {
		return nil, err
	}
	comp, _ := compression(opts.Build.Compression) // checked
	return convertPlan(ctx, opts, convert.New(opts.stage(comp)), pl)
}

// convertPlan runs the conversion stage and reports its outcome as a
// Result, failing after it when Build.FailOnWarnings says so.
func convertPlan(ctx context.Context, opts Options, r *convert.Run, pl *plan.Plan) (*Result, error) {
	oc, err := r.Convert(ctx, pl)
	if err != nil {
		return nil, err
	}
	res := &Result{Out: r.Out, Profile: oc.Profile, Skipped: oc.Skipped, Warnings: oc.Warnings, Downloads: oc.Downloads}
	for _, p := range oc.Products {
		res.Products = append(res.Products, ProductResult{Product: p.Product, Label: p.Label, Manifest: p.Manifest})
	}
	for _, a := range oc.Archives {
		p, rec := a.Package, a.Record
		res.Packages = append(res.Packages, PackageResult{PName: p.PName, Product: p.Product, Version: p.Version,
			Platform: p.Platform, CUDAVariant: p.CUDAVariant, Archive: a.Path, Size: rec.Size, SHA256: rec.SHA256,
			MD5: rec.MD5, NAR: rec.NAR, Debs: len(rec.Debs), UpToDate: a.UpToDate, Changes: rec.Changes})
	}
	if err := opts.Build.checkWarnings(res.Warnings); err != nil {
		return res, err
	}
	return res, nil
}

// compression is the archive compression Build.Compression names.
func compression(s string) (archive.Compression, error) {
	c, err := archive.ParseCompression(s)
	if err != nil {
		var names []string
		for _, c := range archive.Compressions() {
			names = append(names, c.String())
		}
		return 0, fault.OptionErrorf(fault.RefCompression, err, "%q: want %s", s, strings.Join(names, " or "))
	}
	return c, nil
}

// CompressionInfo is one archive compression [Build.Compression] may name:
// its presets are 1..MaxPreset (fastest to smallest), 0 meaning
// DefaultPreset.
type CompressionInfo struct {
	Name                     string
	MaxPreset, DefaultPreset int
}

// Compressions lists the compressions [Build.Compression] may name, the
// default ("xz") first.
func Compressions() []CompressionInfo {
	var out []CompressionInfo
	for _, c := range archive.Compressions() {
		out = append(out, CompressionInfo{Name: c.String(), MaxPreset: c.MaxPreset(), DefaultPreset: c.DefaultPreset()})
	}
	return out
}
