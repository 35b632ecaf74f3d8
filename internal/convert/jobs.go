package convert

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/profile"

	"golang.org/x/sync/errgroup"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/build"
	"github.com/debredist/debredist/internal/fetch"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/publish"
)

// job is one redist package to build (or to keep).
type job struct {
	pkg     plan.Package
	profile profile.Profile
	// budget bounds the compression blocks in flight across all packages
	// built at once, so memory does not grow with --jobs or file sizes.
	budget     *archive.Budget
	comp       archive.Compression
	preset     int
	mtime      time.Time
	key        string
	rel        string // archive path relative to productDir
	productDir string
	upToDate   bool
	res        redist.Archive
	license    []byte
	staged     string           // the built archive in the temporary directory
	empty      bool             // the debs carry no payload: not emitted (empty.go)
	warnings   []redist.Warning // empty nixpkgs outputs (empty.go), dropped entries
	rules      []string         // the profile's own rules the tree used (layout.Tree.ProfileRules)

	// final and licenseFile are where the archive and LICENSE.txt go in
	// OUT (named by publish.Path).
	final, licenseFile string
}

// build builds the job's package (internal/build) into j.staged.
func (j *job) build(ctx context.Context, o *Run, paths map[string]string, work string) error {
	r, err := build.Package(ctx, build.Options{
		Profile: j.profile, Package: j.pkg, Paths: paths, Work: work, Staged: j.staged, Rel: j.rel,
		Compression: j.comp, Preset: j.preset, MTime: j.mtime, Budget: j.budget,
		Limits: o.Limits, Decoders: o.decoders, Tool: o.Tool,
	})
	if err != nil {
		return err
	}
	j.rules = r.Rules
	if r.Empty {
		j.empty = true
		o.emit(event.Event{Kind: event.Warning, Package: j.pkg.PName, Message: "not emitted: " + build.NoPayloadReason})
		return nil
	}
	j.res, j.license, j.warnings = r.Archive, r.License, r.Warnings
	return nil
}

// newJobs makes a job per planned package and decides which must be built:
// an archive is kept (upToDate) when the provenance records the same inputs
// and the file still has the recorded size and sha256 (hashed in parallel,
// builds at a time; a damaged archive is rebuilt).
func (o *Run) newJobs(
	ctx context.Context,
	pl *plan.Plan,
	comp archive.Compression,
	mtime time.Time,
	prev previous,
	builds int,
) ([]*job, error) {
	var err error
	// Two blocks per core in flight across all packages: both cores stay
	// busy while memory stays near 2 x cores x BlockSize whatever --jobs is.
	budget := archive.NewBudget(2 * runtime.GOMAXPROCS(0))
	jobs := make([]*job, 0, len(pl.Packages))
	kg, kctx := errgroup.WithContext(ctx)
	kg.SetLimit(builds)
	// The current output, read as any reader does (no link followed, regular
	// files only): a file that is not what debredist wrote is rebuilt.
	snap, _ := outdir.Open(o.Out) // OUT may not exist yet: nothing is up to date
	if snap != nil {
		defer func() { _ = snap.Close() }()
	}
	for _, p := range pl.Packages {
		j := &job{pkg: p, profile: pl.Profile, comp: comp, preset: o.Preset, mtime: mtime, budget: budget}
		j.key = build.InputKey(o.Tool, pl.Profile, p, comp, o.Preset, mtime)
		j.rel = path.Join(p.PName, p.Platform, redist.ArchiveName(p.PName, p.Platform, p.Version, p.CUDAVariant, comp.Ext()))
		if j.productDir, err = publish.Path(o.Out, p.Product, "redist"); err != nil {
			return nil, err
		}
		if j.final, err = publish.Path(o.Out, p.Product, "redist", j.rel); err != nil {
			return nil, err
		}
		if j.licenseFile, err = publish.Path(o.Out, p.Product, "redist", p.PName, "LICENSE.txt"); err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
		rec, ok := prev.byKey[j.key]
		dir := p.Product + "/redist/" // what the snapshot reads, relative to OUT
		if snap == nil || !ok || rec.RelativePath != j.rel || !snap.IsFile(dir+p.PName+"/LICENSE.txt") {
			continue
		}
		f, err := snap.Open(dir + j.rel)
		if err != nil {
			continue
		}
		if st, err := f.Stat(); err != nil || st.Size() != rec.Size {
			f.Close()
			continue
		}
		kg.Go(func() error {
			defer f.Close()
			if sum, err := files.HashFile(kctx, f, rec.Size); err == nil && sum == rec.SHA256 {
				j.res, j.upToDate = rec, true
				// The key matched: mtime and preset are this run's (records
				// written before they were recorded get them now).
				sec := j.mtime.Unix()
				j.res.MTime, j.res.Preset = &sec, build.Encoder(j.comp, j.preset).Preset
			}
			return kctx.Err()
		})
	}
	if err := kg.Wait(); err != nil {
		return nil, err
	}
	return jobs, nil
}

// largestFirst orders the jobs' indices by the bytes of their debs, the
// largest first (in plan order where equal): a big package started last
// would keep a few cores busy with its blocks while the others idle. The
// order changes no output byte.
func largestFirst(jobs []*job) []int {
	size := func(j *job) (n int64) {
		for _, d := range j.pkg.Debs {
			n += d.Size
		}
		return n
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size(jobs[b]), size(jobs[a])) })
	return order
}

// debBytes is the size of a package's debs: the work of building it.
func debBytes(p plan.Package) int64 {
	var n int64
	for _, d := range p.Debs {
		n += d.Size
	}
	return n
}

// buildJobs fetches the debs of the jobs that are not up to date and builds
// their archives in tmp, builds at a time.
func (o *Run) buildJobs(ctx context.Context, jobs []*job, tmp string, builds int) error {
	var err error
	var need []apt.Package
	for _, j := range jobs {
		if j.upToDate {
			o.emit(event.Event{Kind: event.UpToDate, Package: j.pkg.PName})
		} else {
			need = append(need, j.pkg.Debs...)
		}
	}

	o.warnUnread(jobs)
	if len(need) > 0 && tmp == "" {
		return errReadOnly(o.Out, fmt.Sprintf("%d deb(s) must be converted", len(need)))
	}
	var paths map[string]string
	var f *fetch.Fetcher
	if len(need) > 0 {
		if f, err = o.fetcher(); err != nil {
			return err
		}
		if paths, err = o.fetchDebs(ctx, f, need); err != nil {
			return err
		}
	}

	var nBuild, work int64
	for _, j := range jobs {
		if !j.upToDate {
			nBuild, work = nBuild+1, work+debBytes(j.pkg)
		}
	}
	o.emit(event.Event{Kind: event.BuildPlan, Total: nBuild, Bytes: work})
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(builds)
	for _, i := range largestFirst(jobs) {
		j := jobs[i]
		if j.upToDate {
			continue
		}
		work := filepath.Join(tmp, strconv.Itoa(i))
		j.staged = work + ".archive"
		g.Go(func() error {
			o.emit(event.Event{Kind: event.BuildStart, Package: j.pkg.PName, Total: int64(len(j.pkg.Debs))})
			err := j.build(gctx, o, paths, work)
			if err != nil {
				if err = o.repairCache(gctx, f, j.pkg.Debs, err); err == nil {
					err = j.build(gctx, o, paths, work) // from the downloaded copy
				}
			}
			if err != nil {
				return build.InPackage(j.pkg.PName, err)
			}
			o.emit(event.Event{Kind: event.BuildDone, Package: j.pkg.PName, Bytes: j.res.Size, Total: debBytes(j.pkg)})
			return nil
		})
	}
	return g.Wait()
}
