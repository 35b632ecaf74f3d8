package debredist

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/publish"
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
	Downloads DownloadStats `json:"downloads"`
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
// under o.Build.Out, and checks the manifests against the sizes and hashes computed
// while writing (Verify additionally decodes every archive). Archives whose
// inputs did not change and whose size and sha256 still match are kept
// (reported UpToDate). A failure, cancellation or kill leaves o.Build.Out as it
// was or as the new output, never a mix: everything is built in a temporary
// directory inside it, assembled as the next generation beside the current
// one (unchanged files shared by hardlink) and switched to with one rename
// of OUT/.debredist/current.
func Convert(ctx context.Context, opts Options) (*Result, error) {
	if opts.Build.Out == "" {
		return nil, fault.Usagef("Build.Out is required")
	}
	if err := opts.Check(); err != nil {
		return nil, err
	}
	o := newRun(opts)
	o.Build.Out = filepath.Clean(o.Build.Out)
	pl, err := makePlan(ctx, o, true)
	if err != nil {
		return nil, err
	}
	return convertPlan(ctx, o, pl)
}

// ConvertPlan is Convert of a plan made beforehand (Plan or PlanCached,
// perhaps with packages left out of pl.Packages by the caller): it converts
// exactly pl.Packages, from exactly their debs, with pl's profile. The
// release options (opts.Release) and Build.Only are not read: the plan is
// the selection. Its SkippedPackages and Inputs are reported and locked
// (Build.LockOut) as Convert's are.
func ConvertPlan(ctx context.Context, opts Options, pl *plan.Result) (*Result, error) {
	if opts.Build.Out == "" {
		return nil, fault.Usagef("Build.Out is required")
	}
	if pl == nil {
		return nil, fault.Usagef("ConvertPlan: no plan")
	}
	if err := opts.checkBuild(); err != nil {
		return nil, err
	}
	o := newRun(opts)
	o.Build.Out = filepath.Clean(o.Build.Out)
	return convertPlan(ctx, o, pl)
}

// convertPlan converts the packages of pl into o.Build.Out (Convert and
// ConvertPlan).
func convertPlan(ctx context.Context, o *run, pl *plan.Result) (_ *Result, err error) {
	comp, err := compression(o.Build.Compression)
	if err != nil {
		return nil, err
	}
	builds := o.Build.Jobs
	if builds <= 0 {
		builds = defaultBuilds()
	}
	if len(pl.Packages) == 0 {
		return nil, fmt.Errorf("L4T %s: nothing to convert (no redist package in the plan)", pl.Profile.L4T)
	}
	o.emit(Event{Kind: EventPlan, Total: int64(len(pl.Packages)), Message: pl.Profile.Name})
	if err := checkForeign(o.Build.Out, pl); err != nil {
		return nil, err
	}
	if err := checkNonEmpty(o.Build.Out, o.Build.AllowNonEmptyOut); err != nil {
		return nil, err
	}
	claim, err := publish.Take(ctx, o.Build.Out, func(msg string) { o.emit(Event{Kind: EventOutBusy, Message: msg}) })
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
	tmp, err := publish.MakeTmp(o.Build.Out)
	if err != nil {
		return nil, err
	}
	if tmp != "" {
		defer os.RemoveAll(tmp)
		// Links a killed run left half made, before OUT is read.
		did, err := publish.RepairLinks(o.Build.Out)
		if err != nil {
			return nil, fmt.Errorf("repairing the product links a killed run left in %s: %w", o.Build.Out, err)
		}
		if len(did) > 0 {
			o.emit(Event{Kind: EventNotice, Message: "finished what a killed run left in " + o.Build.Out + ": " + strings.Join(did, ", ")})
		}
	}
	mtime := o.Build.MTime
	if mtime.IsZero() {
		mtime, err = time.Parse("2006-01-02", pl.Profile.ReleaseDate)
		if err != nil {
			return nil, fmt.Errorf("profile %s: release_date: %w", pl.Profile.Name, err)
		}
	}
	prev := readPrevious(o.Build.Out)

	jobs, err := newJobs(ctx, o, pl, comp, mtime, prev, builds)
	if err != nil {
		return nil, err
	}
	if err := buildJobs(ctx, o, jobs, tmp, builds); err != nil {
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
	res, err := commitGeneration(ctx, o, pl, jobs, tmp, prev)
	if err != nil {
		return nil, err
	}
	published = true // OUT stays, whatever fails after
	res.Skipped = append(append(res.Skipped, pl.SkippedPackages...), emptied...)
	for _, w := range res.Warnings {
		o.emit(Event{Kind: EventWarning, Package: w.Package, Code: w.Code, Message: w.Message})
	}
	// Last: a --lock-out that cannot be written leaves OUT complete.
	if o.Build.LockOut != "" {
		if err := writeLockOut(o.Build.LockOut, pl); err != nil {
			return nil, err
		}
	}
	res.Downloads = o.downloads.stats()
	if err := o.Build.checkWarnings(res.Warnings); err != nil {
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
		return 0, &fault.UsageError{Msg: fmt.Sprintf("Build.Compression %q: want %s", s, strings.Join(names, " or ")), Err: err}
	}
	return c, nil
}

// CompressionInfo is one archive compression Build.Compression may name:
// its presets are 1..MaxPreset (fastest to smallest), 0 meaning
// DefaultPreset.
type CompressionInfo struct {
	Name                     string
	MaxPreset, DefaultPreset int
}

// Compressions lists the compressions Build.Compression may name, the
// default ("xz") first.
func Compressions() []CompressionInfo {
	var out []CompressionInfo
	for _, c := range archive.Compressions() {
		out = append(out, CompressionInfo{Name: c.String(), MaxPreset: c.MaxPreset(), DefaultPreset: c.DefaultPreset()})
	}
	return out
}

// checkForeign refuses, before anything is written to OUT, a product
// entry (OUT/cuda) that debredist neither wrote nor takes over: a symlink
// that is not its product link, a file, or a directory without redist/
// (an older debredist's output, which is migrated, has one). Such content
// is the user's: it has to be moved, and no rerun changes that.
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
	return fault.Usagef("Build.Out %s is not empty and holds no debredist output (no redistrib_*.json, no .debredist): give a new or empty directory, or set Build.AllowNonEmptyOut to convert into it beside what it holds; nothing was written", out)
}

func checkForeign(out string, pl *plan.Result) error {
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
		return fmt.Errorf("Build.Out %s: %s is %s, where the %s product goes; debredist does not take it over: move it out of %s (or convert into another Build.Out); nothing was written", out, at, what, pr.Product, out)
	}
	return nil
}
