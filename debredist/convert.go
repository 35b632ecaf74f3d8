package debredist

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/debredist/debredist/internal/apt"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/fetch"
)

// Result summarizes a conversion.
type Result struct {
	Out      string          `json:"out"`
	Profile  Profile         `json:"profile"`
	Products []ProductResult `json:"products"`
	Packages []PackageResult `json:"packages"`
	// Skipped are the redist packages not emitted: their debs carry no
	// payload (only copyright and changelog files).
	Skipped []SkippedPackage `json:"skipped,omitempty"`
	// Warnings are things a consumer will trip over (empty nixpkgs outputs).
	Warnings []string `json:"warnings,omitempty"`
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
	Changes []string `json:"changes,omitempty"`
}

const (
	outMutexName = ".debredist.lock" // the OUT mutex (acquireOut); the file keeps its old name so that older processes exclude us too
	tmpName      = ".debredist-tmp"
)

// Convert plans the release, fetches its debs, builds every redist
// package's archive, writes the manifests, LICENSE files and provenance
// under o.Out, and checks the manifests against the sizes and hashes computed
// while writing (Verify additionally decodes every archive). Archives whose
// inputs did not change and whose size and sha256 still match are kept
// (reported UpToDate). A failure, cancellation or kill leaves o.Out as it
// was or as the new output, never a mix: everything is built in a temporary
// directory inside it, assembled as the next generation beside the current
// one (unchanged files shared by hardlink) and switched to with one rename
// of OUT/.debredist/current.
func Convert(ctx context.Context, o Options) (_ *Result, err error) {
	defer exportErr(&err)
	if err := CheckConvert(o); err != nil {
		return nil, err
	}
	o = o.counting()
	o.Out = filepath.Clean(o.Out)
	comp, err := compression(o.Compression)
	if err != nil {
		return nil, err
	}
	builds := o.Jobs
	if builds <= 0 {
		builds = defaultBuilds()
	}
	pl, err := makePlan(ctx, o)
	if err != nil {
		return nil, err
	}
	if len(pl.Packages) == 0 {
		return nil, fmt.Errorf("L4T %s: nothing to convert (no redist package in the plan)", pl.Profile.Suite)
	}
	o.emit(Event{Kind: EventPlan, Total: int64(len(pl.Packages)), Message: pl.Profile.Name})
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	unlock, err := acquireOut(ctx, o)
	if err != nil {
		return nil, err
	}
	defer unlock()
	tmp, err := makeTmp(o.Out)
	if err != nil {
		return nil, err
	}
	if tmp != "" {
		defer os.RemoveAll(tmp)
	}
	mtime := o.MTime
	if mtime.IsZero() {
		mtime, err = time.Parse("2006-01-02", pl.Profile.ReleaseDate)
		if err != nil {
			return nil, fmt.Errorf("profile %s: release_date: %w", pl.Profile.Name, err)
		}
	}
	prev := readPrevious(o.Out)

	// Decide what must be built: an archive is kept when the provenance
	// records the same inputs and the file still has the recorded size and
	// sha256 (hashed in parallel; a damaged archive is rebuilt).
	// Two blocks per core in flight across all packages: both cores stay
	// busy while memory stays near 2 x cores x BlockSize whatever --jobs is.
	budget := archive.NewBudget(2 * runtime.GOMAXPROCS(0))
	jobs := make([]*job, 0, len(pl.Packages))
	kg, kctx := errgroup.WithContext(ctx)
	kg.SetLimit(builds)
	for _, p := range pl.Packages {
		j := &job{pkg: p, profile: pl.Profile, comp: comp, preset: o.Preset, mtime: mtime, budget: budget}
		j.key = inputKey(pl.Profile, p, comp, o.Preset, mtime)
		j.rel = path.Join(p.PName, p.Platform, ArchiveName(p.PName, p.Platform, p.Version, p.CUDAVariant, comp.Ext()))
		if j.productDir, err = outPath(o.Out, p.Product, "redist"); err != nil {
			return nil, err
		}
		if j.final, err = outPath(o.Out, p.Product, "redist", j.rel); err != nil {
			return nil, err
		}
		if j.licenseFile, err = outPath(o.Out, p.Product, "redist", p.PName, "LICENSE.txt"); err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
		rec, ok := prev.byKey[j.key]
		file := j.final
		if !ok || rec.RelativePath != j.rel || fileSize(file) != rec.Size || fileSize(j.licenseFile) < 0 {
			continue
		}
		kg.Go(func() error {
			if sum, err := sha256File(kctx, file); err == nil && sum == rec.SHA256 {
				j.res, j.upToDate = rec, true
			}
			return kctx.Err()
		})
	}
	if err := kg.Wait(); err != nil {
		return nil, err
	}
	var need []apt.Package
	for _, j := range jobs {
		if j.upToDate {
			o.emit(Event{Kind: EventUpToDate, Package: j.pkg.PName})
		} else {
			need = append(need, j.pkg.Debs...)
		}
	}

	warnUnread(o, jobs)
	if len(need) > 0 && tmp == "" {
		return nil, errReadOnly(o.Out, fmt.Sprintf("%d deb(s) must be converted", len(need)))
	}
	var paths map[string]string
	var f *fetch.Fetcher
	if len(need) > 0 {
		if f, err = o.fetcher(); err != nil {
			return nil, err
		}
		if paths, err = f.Fetch(ctx, need); err != nil {
			return nil, err
		}
	}

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(builds)
	for i, j := range jobs {
		if j.upToDate {
			continue
		}
		work := filepath.Join(tmp, strconv.Itoa(i))
		j.staged = work + ".archive"
		g.Go(func() error {
			o.emit(Event{Kind: EventBuildStart, Package: j.pkg.PName, Total: int64(len(j.pkg.Debs))})
			err := j.build(gctx, o, paths, work)
			if err != nil {
				if err = repairCache(gctx, o, f, j.pkg.Debs, err); err == nil {
					err = j.build(gctx, o, paths, work) // from the downloaded copy
				}
			}
			if err != nil {
				return inPackage(j.pkg.PName, err)
			}
			o.emit(Event{Kind: EventBuildDone, Package: j.pkg.PName, Bytes: j.res.Size})
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	jobs, emptied := dropEmptyJobs(jobs) // empty.go
	// Everything is built: the next generation of OUT is assembled beside
	// the current one and switched to in one step (publish.go).
	res, err := commitGeneration(o, pl, jobs, tmp, prev)
	if err != nil {
		return nil, err
	}
	res.Skipped = append(append(res.Skipped, pl.SkippedPackages...), emptied...)
	for _, j := range jobs {
		res.Warnings = append(res.Warnings, j.warnings...)
	}
	// Last: a --lock-out that cannot be written leaves OUT complete.
	if o.LockOut != "" {
		if err := writeLockOut(o.LockOut, pl); err != nil {
			return nil, err
		}
	}
	res.Downloads = o.downloads.stats()
	return res, nil
}

func compression(s string) (archive.Compression, error) {
	switch s {
	case "", "xz":
		return archive.XZ, nil
	case "zstd", "zst":
		return archive.Zstd, nil
	}
	return 0, usagef("--compress %q: want xz or zstd", s)
}
