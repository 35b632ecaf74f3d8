package debredist

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/deb"
	"github.com/debredist/debredist/internal/fetch"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/layout"
	"github.com/debredist/debredist/internal/publish"
)

// job is one redist package to build (or to keep).
type job struct {
	pkg     plan.Package
	profile Profile
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

func (j *job) build(ctx context.Context, o *run, paths map[string]string, work string) error {
	if err := os.MkdirAll(filepath.Join(work, "blobs"), 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(work)
	debs := append([]apt.Package(nil), j.pkg.Debs...)
	sort.Slice(debs, func(a, b int) bool { return debs[a].Name < debs[b].Name })
	inputs, read, err := stageAll(ctx, o, debs, paths, filepath.Join(work, "blobs"))
	if err != nil {
		return err
	}
	eng, err := layout.New(j.profile)
	if err != nil {
		return err
	}
	tree, err := eng.Build(j.pkg.PName, inputs, readBlob)
	if err != nil {
		return err
	}
	if _, err := addWheels(j.profile, j.pkg.PName, j.pkg.Version, tree); err != nil { // wheels.go
		return err
	}
	stubs, err := addStubs(j.profile, j.pkg.PName, tree, debs) // stubs.go
	if err != nil {
		return err
	}
	j.rules = tree.ProfileRules
	if !treeHasPayload(tree) {
		j.empty = true
		o.emit(Event{Kind: EventWarning, Package: j.pkg.PName, Message: "not emitted: " + noPayloadReason})
		return nil
	}
	j.warnings = outputWarnings(j.profile, j.pkg, tree)
	for _, c := range tree.Changes {
		// Entries dropped (a link into /etc/alternatives no rule resolves)
		// are warnings too, not only changes in the provenance.
		if w, ok := strings.CutPrefix(c, "warning: "); ok {
			j.warnings = append(j.warnings, redist.Warning{Code: redist.WarnEntryDropped, Package: j.pkg.PName, Message: w})
		}
	}
	entries := make([]archive.Entry, 0, len(tree.Nodes))
	for _, nd := range tree.Nodes {
		e := archive.Entry{Header: nd.Header}
		if nd.Type == entry.Regular {
			if nd.Data != nil {
				data := nd.Data
				e.Open = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
			} else {
				ref := nd.Ref
				e.Open = func() (io.ReadCloser, error) { return os.Open(ref) }
			}
		}
		if nd.Path == "LICENSE" {
			j.license = nd.Data
		}
		entries = append(entries, e)
	}
	if j.license == nil {
		return fmt.Errorf("no copyright file in any of its debs: cannot write LICENSE")
	}
	name := path.Base(j.rel)
	f, err := os.Create(j.staged)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	r, err := archive.Write(ctx, bw, entries, archive.Options{MTime: j.mtime, Compression: j.comp, Preset: j.preset, Top: topDir(name, j.comp), Budget: j.budget})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	// The input key is made of the debs as read, so an archive is never
	// recorded under inputs it was not made from.
	asRead := j.pkg
	asRead.Debs = slices.Clone(debs)
	for i := range asRead.Debs {
		asRead.Debs[i].SHA256, asRead.Debs[i].Size = read[i].SHA256, read[i].Size
	}
	sec := j.mtime.Unix()
	j.res = redist.Archive{Product: j.pkg.Product, PName: j.pkg.PName, Platform: j.pkg.Platform, Variant: j.pkg.CUDAVariant, Version: j.pkg.Version,
		RelativePath: j.rel, Size: r.Size, SHA256: r.SHA256, MD5: r.MD5, NAR: r.NAR, InputKey: inputKey(j.profile, asRead, j.comp, j.preset, j.mtime), Debs: read, Stubs: stubs, Changes: treeChanges(tree),
		Warnings: redist.SortWarnings(j.warnings), ProfileRules: tree.ProfileRules, MTime: &sec, Preset: encoderInfo(j.comp, j.preset).Preset}
	return nil
}

// stageAll stages a package's debs (in order) side by side, each into its
// own folder under dir, at most o.decoders at once across the run. The
// inputs and the debs as read come in the order of debs; a failure is the
// first deb's in that order (every deb started runs to its end, so the
// error does not depend on timing; none is started after one that cannot
// be).
func stageAll(ctx context.Context, o *run, debs []apt.Package, paths map[string]string, dir string) ([]layout.Input, []redist.Deb, error) {
	type staged struct {
		ins []layout.Input
		rd  redist.Deb
		err error
	}
	res := make([]staged, len(debs))
	var wg sync.WaitGroup
	for i, d := range debs {
		p, ok := paths[d.SHA256]
		if !ok {
			res[i].err = fmt.Errorf("deb %s (%s) is not in the cache", d.Name, d.SHA256)
			break
		}
		sub := filepath.Join(dir, strconv.Itoa(i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			res[i].err = err
			break
		}
		wg.Go(func() {
			select {
			case o.decoders <- struct{}{}:
			case <-ctx.Done():
				res[i].err = ctx.Err()
				return
			}
			defer func() { <-o.decoders }()
			n := 0
			res[i].ins, res[i].rd, res[i].err = stage(ctx, o, d, p, sub, &n)
		})
	}
	wg.Wait()
	var inputs []layout.Input
	var read []redist.Deb // the debs as read: what provenance and input key record
	for _, r := range res {
		if r.err != nil {
			return nil, nil, r.err
		}
		inputs = append(inputs, r.ins...)
		read = append(read, r.rd)
	}
	return inputs, read, nil
}

// stage streams one deb from the cache apart: every regular file is copied
// to a blob file under dir (hashed on the way), everything else is
// metadata. The deb's bytes are hashed as they are read: it returns the
// deb as read (sha256 and size), and a *fault.CorruptCacheError, whatever the
// deb reader said, when the cache entry is not the deb it was stored as.
func stage(ctx context.Context, o *run, d apt.Package, debPath, dir string, n *int) ([]layout.Input, redist.Deb, error) {
	ent, err := fetch.OpenEntry(debPath, d.Name, d.SHA256)
	if err != nil {
		return nil, redist.Deb{}, err
	}
	defer ent.Close()
	ins, err := stageDeb(ctx, o, d, ent, dir, n)
	if err != nil && ctx.Err() != nil {
		return nil, redist.Deb{}, err // cancelled: do not read the rest
	}
	sum, size, verr := ent.Verify()
	if verr != nil {
		return nil, redist.Deb{}, verr
	}
	return ins, redist.Deb{Repo: d.Repo, Package: d.Name, Version: d.Version, Filename: d.Filename, SHA256: sum, Size: size}, err
}

func stageDeb(ctx context.Context, o *run, d apt.Package, f io.Reader, dir string, n *int) ([]layout.Input, error) {
	r, err := deb.NewReader(ctx, bufio.NewReaderSize(f, 1<<20), deb.Options{Limits: o.Build.Limits, Name: path.Base(d.Filename), SystemXZ: true, Size: d.Size})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []layout.Input
	buf := make([]byte, 1<<20)
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		in := layout.FromDeb(d.Name, e)
		if in.Type == entry.Regular {
			*n++
			blob := filepath.Join(dir, strconv.Itoa(*n))
			digest, err := copyBlob(blob, r, e.Size, buf)
			if err != nil {
				var de *fault.DebError
				if errors.As(err, &de) { // names deb, member and entry already
					return nil, err
				}
				return nil, fmt.Errorf("%s: %s: %w", path.Base(d.Filename), e.Path, err)
			}
			in.Digest, in.Ref = digest, blob
		}
		out = append(out, in)
	}
	return out, nil
}

func copyBlob(dst string, r io.Reader, size int64, buf []byte) (string, error) {
	f, err := os.Create(dst)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	n, err := io.CopyBuffer(io.MultiWriter(f, h), r, buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	if n != size {
		return "", fmt.Errorf("read %d bytes, header says %d", n, size)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func readBlob(ref string) ([]byte, error) {
	f, err := os.Open(ref)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, layout.MaxLicenseBytes+1))
}

func topDir(name string, c archive.Compression) string { return name[:len(name)-len(c.Ext())] }

// inputKey identifies everything an archive's bytes depend on.
func inputKey(p Profile, pkg plan.Package, c archive.Compression, preset int, mtime time.Time) string {
	p.Expect, p.Capabilities = nil, nil // what the plan must contain and whom it is for, not how an archive is made
	type deb struct{ Name, SHA256 string }
	var debs []deb
	for _, d := range pkg.Debs {
		debs = append(debs, deb{d.Name, d.SHA256})
	}
	sort.Slice(debs, func(i, j int) bool { return debs[i].Name < debs[j].Name })
	b, err := json.Marshal(struct {
		Tool string
		// Read marks keys made of the debs' sha256 as hashed while
		// converting; records made before (from the index's word alone,
		// perhaps from a damaged cache entry) never match and are rebuilt.
		Read     bool
		Block    int
		Comp     string
		Preset   int
		MTime    int64
		Profile  Profile
		Rules    any
		PName    string
		Platform string
		Variant  string
		Version  string
		Product  string
		Debs     []deb
	}{"debredist " + Version, true, archive.BlockSize, c.Ext(), preset, mtime.Unix(), p, p.Merged(), pkg.PName, pkg.Platform, pkg.CUDAVariant, pkg.Version, pkg.Product, debs})
	if err != nil {
		panic(err)
	}
	return sha256hex(b)
}

// defaultBuilds is how many packages Convert builds at once when
// Options.Jobs is 0: one per core, and at least two, so that decoding one
// package's debs (one serial stream each) overlaps encoding another's.
// Encoding is block-parallel and bounded by one budget for all packages,
// so more packages in flight add memory, not speed: measured on the
// real-bytes corpus on 2 cores, --jobs 2 took 89.9 s, --jobs 1 97.2 s and
// --jobs 4 113.0 s (bench/README.md).
func defaultBuilds() int { return max(2, runtime.GOMAXPROCS(0)) }

// newJobs makes a job per planned package and decides which must be built:
// an archive is kept (upToDate) when the provenance records the same inputs
// and the file still has the recorded size and sha256 (hashed in parallel,
// builds at a time; a damaged archive is rebuilt).
func newJobs(ctx context.Context, o *run, pl *plan.Result, comp archive.Compression, mtime time.Time, prev previous, builds int) ([]*job, error) {
	var err error
	// Two blocks per core in flight across all packages: both cores stay
	// busy while memory stays near 2 x cores x BlockSize whatever --jobs is.
	budget := archive.NewBudget(2 * runtime.GOMAXPROCS(0))
	jobs := make([]*job, 0, len(pl.Packages))
	kg, kctx := errgroup.WithContext(ctx)
	kg.SetLimit(builds)
	// The current output, read as any reader does (no link followed, regular
	// files only): a file that is not what debredist wrote is rebuilt.
	snap, _ := outdir.Open(o.Build.Out) // OUT may not exist yet: nothing is up to date
	if snap != nil {
		defer snap.Close()
	}
	for _, p := range pl.Packages {
		j := &job{pkg: p, profile: pl.Profile, comp: comp, preset: o.Build.Preset, mtime: mtime, budget: budget}
		j.key = inputKey(pl.Profile, p, comp, o.Build.Preset, mtime)
		j.rel = path.Join(p.PName, p.Platform, redist.ArchiveName(p.PName, p.Platform, p.Version, p.CUDAVariant, comp.Ext()))
		if j.productDir, err = publish.Path(o.Build.Out, p.Product, "redist"); err != nil {
			return nil, err
		}
		if j.final, err = publish.Path(o.Build.Out, p.Product, "redist", j.rel); err != nil {
			return nil, err
		}
		if j.licenseFile, err = publish.Path(o.Build.Out, p.Product, "redist", p.PName, "LICENSE.txt"); err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
		rec, ok := prev.byKey[j.key]
		file := j.final
		if snap == nil || !ok || rec.RelativePath != j.rel || !snap.IsFile(j.licenseFile) {
			continue
		}
		f, err := snap.Open(file)
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
				j.res.MTime, j.res.Preset = &sec, encoderInfo(j.comp, j.preset).Preset
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
func buildJobs(ctx context.Context, o *run, jobs []*job, tmp string, builds int) error {
	var err error
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
		return errReadOnly(o.Build.Out, fmt.Sprintf("%d deb(s) must be converted", len(need)))
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
	o.emit(Event{Kind: EventBuildPlan, Total: nBuild, Bytes: work})
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
			o.emit(Event{Kind: EventBuildDone, Package: j.pkg.PName, Bytes: j.res.Size, Total: debBytes(j.pkg)})
			return nil
		})
	}
	return g.Wait()
}
