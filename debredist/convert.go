package debredist

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/gofrs/flock"
	"golang.org/x/sync/errgroup"

	"github.com/debredist/debredist/internal/apt"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/deb"
	"github.com/debredist/debredist/internal/fetch"
	"github.com/debredist/debredist/internal/layout"
)

// Result summarizes a conversion.
type Result struct {
	Out      string          `json:"out"`
	Profile  Profile         `json:"profile"`
	Products []ProductResult `json:"products"`
	Packages []PackageResult `json:"packages"`
	// Skipped are the redist packages not emitted (empty.go).
	Skipped []SkippedPackage `json:"skipped,omitempty"`
	// Warnings are things a consumer will trip over (empty nixpkgs outputs).
	Warnings []string `json:"warnings,omitempty"`
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
	lockName = ".debredist.lock"
	tmpName  = ".debredist-tmp"
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
// (see publish.go).
func Convert(ctx context.Context, o Options) (_ *Result, err error) {
	defer exportErr(&err)
	if o.Out == "" {
		return nil, usagef("no output directory (--out)")
	}
	comp, err := compression(o.Compression)
	if err != nil {
		return nil, err
	}
	builds := o.Jobs
	if builds <= 0 {
		builds = defaultBuilds()
	}
	pl, err := Plan(ctx, o)
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
	unlock, err := lockOut(ctx, o)
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
	return res, nil
}

// commitGeneration builds the next generation of OUT (the current output
// shared by hardlinks, the new archives, LICENSE files and manifests),
// checks it, and publishes it. When every package is up to date and OUT's
// manifests and provenance already say what this run would write, no
// generation is made and nothing is written (a read-only OUT works).
func commitGeneration(o Options, pl *PlanResult, jobs []*job, tmp string, prev previous) (res *Result, err error) {
	if allUpToDate(jobs) {
		res, err := writeManifests(o, pl, jobs, "", prev) // writes nothing: fails if a write is needed
		if err == nil && tmp != "" {
			_, err = pruneGenerations(o.Out) // what a killed run left
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
	g, err := newGeneration(o.Out)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			g.discard()
		}
	}()
	for _, j := range jobs {
		if j.productDir, err = outPath(g.dir, j.pkg.Product, "redist"); err != nil {
			return nil, err
		}
		if j.final, err = outPath(j.productDir, j.rel); err != nil {
			return nil, err
		}
		if j.licenseFile, err = outPath(j.productDir, j.pkg.PName, "LICENSE.txt"); err != nil {
			return nil, err
		}
	}
	gprev := readPrevious(g.dir) // the current output, as cloned
	if err = commit(pl, jobs, tmp); err != nil {
		return nil, err
	}
	og := o
	og.Out = g.dir
	if res, err = writeManifests(og, pl, jobs, tmp, gprev); err != nil {
		return nil, err
	}
	res.Out = o.Out
	if err = checkOutput(g.dir, res, jobs); err != nil {
		return nil, fmt.Errorf("verifying the output: %w", err)
	}
	if g.sameAsCurrent() { // a no-op run: OUT is left as it is
		g.discard()
		return res, nil
	}
	if err = g.publish(); err != nil {
		return nil, err
	}
	return res, nil
}

// checkOutput re-reads the manifests just written and checks that every
// artifact they name is the file this run built or kept: same size and the
// sha256 computed while writing it (or re-hashed when it was kept). It does
// not decode the archives again (Verify does; `debredist verify`).
func checkOutput(out string, res *Result, jobs []*job) error {
	byPath := map[string]ProvenanceArchive{}
	for _, j := range jobs {
		byPath[j.final] = j.res
	}
	var problems []Problem
	for _, pr := range res.Products {
		mf := filepath.Join(out, filepath.FromSlash(pr.Manifest))
		f, err := os.Open(mf)
		if err != nil {
			return err
		}
		m, err := ReadManifest(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", pr.Manifest, err)
		}
		for _, name := range sortedKeys(m.Components) {
			for _, pa := range m.Components[name].Artifacts() {
				a := pa.Artifact
				p, ok := safeRel(a.RelativePath)
				if !ok {
					problems = append(problems, problemf(pr.Manifest, "%s: unsafe relative_path %q", name, a.RelativePath))
					continue
				}
				file := filepath.Join(filepath.Dir(mf), p)
				rec, ok := byPath[file]
				size := fileSize(file)
				switch {
				case !ok: // kept from an earlier run by --only: check the file itself
					if sum, err := sha256File(context.Background(), file); err != nil || sum != a.SHA256 || strconv.FormatInt(size, 10) != a.Size {
						problems = append(problems, problemf(pr.Manifest, "%s: %s (kept from an earlier run) no longer matches the manifest", name, a.RelativePath))
					}
				case a.SHA256 != rec.SHA256 || a.Size != strconv.FormatInt(rec.Size, 10) || size != rec.Size:
					problems = append(problems, problemf(pr.Manifest, "%s: %s is %d bytes, manifest says %s bytes sha256 %s, written %d bytes sha256 %s",
						name, a.RelativePath, size, a.Size, a.SHA256, rec.Size, rec.SHA256))
				}
			}
		}
	}
	if len(problems) > 0 {
		return &VerifyError{Problems: problems}
	}
	return nil
}

func sha256File(ctx context.Context, name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", fmt.Errorf("hashing %s: %w", name, err)
		}
	}
}

// job is one redist package to build (or to keep).
type job struct {
	pkg     PlanPackage
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
	res        ProvenanceArchive
	license    []byte
	staged     string   // the built archive in the temporary directory
	empty      bool     // the debs carry no payload: not emitted (empty.go)
	warnings   []string // empty nixpkgs outputs (empty.go)

	// final and licenseFile are where the archive and LICENSE.txt go in
	// OUT (named by outPath).
	final, licenseFile string
}

// commit moves the archives and LICENSE files built in tmp into OUT. The
// manifests of the products it touches are removed first and rewritten
// last (writeManifests), so that no manifest ever names an archive whose
// bytes it does not describe, even if this is interrupted half-way.
func commit(pl *PlanResult, jobs []*job, tmp string) error {
	for _, pr := range pl.Products {
		for _, j := range jobs {
			if j.pkg.Product == pr.Product && !j.upToDate {
				mf, err := outPath(j.productDir, "redistrib_"+pr.Label+".json")
				if err != nil {
					return err
				}
				if err := os.Remove(mf); err != nil && !os.IsNotExist(err) {
					return err
				}
				break
			}
		}
	}
	for _, j := range jobs {
		if j.upToDate {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(j.final), 0o755); err != nil {
			return err
		}
		if err := writeAtomic(j.licenseFile, j.license, tmp); err != nil {
			return err
		}
		if err := os.Rename(j.staged, j.final); err != nil {
			return err
		}
		commitStep("placed " + j.rel)
	}
	return nil
}

func (j *job) build(ctx context.Context, o Options, paths map[string]string, work string) error {
	if err := os.MkdirAll(filepath.Join(work, "blobs"), 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(work)
	var inputs []layout.Input
	debs := append([]apt.Package(nil), j.pkg.Debs...)
	sort.Slice(debs, func(a, b int) bool { return debs[a].Name < debs[b].Name })
	n := 0
	var read []ProvenanceDeb // the debs as read: what provenance and input key record
	for _, d := range debs {
		p, ok := paths[d.SHA256]
		if !ok {
			return fmt.Errorf("deb %s (%s) is not in the cache", d.Name, d.SHA256)
		}
		ins, rd, err := stage(ctx, o, d, p, filepath.Join(work, "blobs"), &n)
		if err != nil {
			return err
		}
		inputs = append(inputs, ins...)
		read = append(read, rd)
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
	if !treeHasPayload(tree) {
		j.empty = true
		o.emit(Event{Kind: EventWarning, Package: j.pkg.PName, Message: "not emitted: " + noPayloadReason})
		return nil
	}
	j.warnings = outputWarnings(j.profile, j.pkg, tree)
	for _, w := range j.warnings {
		o.emit(Event{Kind: EventWarning, Package: j.pkg.PName, Message: w})
	}
	entries := make([]archive.Entry, 0, len(tree.Nodes))
	for _, nd := range tree.Nodes {
		e := archive.Entry{Name: nd.Path, Mode: nd.Mode, Size: nd.Size, Linkname: nd.Link}
		switch nd.Type {
		case layout.Dir:
			e.Type = archive.Dir
		case layout.Symlink:
			e.Type = archive.Symlink
		case layout.Hardlink:
			e.Type = archive.Hardlink
		default:
			e.Type = archive.Regular
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
	r, err := archive.Write(ctx, bw, entries, archive.Options{Top: topDir(name, j.comp), MTime: j.mtime, Compression: j.comp, Preset: j.preset, Budget: j.budget})
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
	j.res = ProvenanceArchive{Product: j.pkg.Product, PName: j.pkg.PName, Platform: j.pkg.Platform, Variant: j.pkg.CUDAVariant, Version: j.pkg.Version,
		RelativePath: j.rel, Size: r.Size, SHA256: r.SHA256, MD5: r.MD5, NAR: r.NAR, InputKey: inputKey(j.profile, asRead, j.comp, j.preset, j.mtime), Debs: read, Stubs: stubs, Changes: treeChanges(tree)}
	return nil
}

// stage streams one deb from the cache apart: every regular file is copied
// to a blob file under dir (hashed on the way), everything else is
// metadata. The deb's bytes are hashed as they are read: it returns the
// deb as read (sha256 and size), and a *fetch.CorruptError, whatever the
// deb reader said, when the cache entry is not the deb it was stored as.
func stage(ctx context.Context, o Options, d apt.Package, debPath, dir string, n *int) ([]layout.Input, ProvenanceDeb, error) {
	ent, err := fetch.OpenEntry(debPath, d.Name, d.SHA256)
	if err != nil {
		return nil, ProvenanceDeb{}, err
	}
	defer ent.Close()
	ins, err := stageDeb(ctx, o, d, ent, dir, n)
	if err != nil && ctx.Err() != nil {
		return nil, ProvenanceDeb{}, err // cancelled: do not read the rest
	}
	sum, size, verr := ent.Verify()
	if verr != nil {
		return nil, ProvenanceDeb{}, verr
	}
	return ins, ProvenanceDeb{Repo: d.Repo, Package: d.Name, Version: d.Version, Filename: d.Filename, SHA256: sum, Size: size}, err
}

func stageDeb(ctx context.Context, o Options, d apt.Package, f io.Reader, dir string, n *int) ([]layout.Input, error) {
	r, err := deb.NewReader(ctx, bufio.NewReaderSize(f, 1<<20), deb.Options{Name: path.Base(d.Filename), Limits: o.Limits.deb(), SystemXZ: true, Size: d.Size})
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
		if in.Type == layout.File {
			*n++
			blob := filepath.Join(dir, strconv.Itoa(*n))
			digest, err := copyBlob(blob, r, e.Size, buf)
			if err != nil {
				var de *deb.Error
				if errors.As(err, &de) { // names deb, member and entry already
					return nil, err
				}
				return nil, fmt.Errorf("%s: %s: %w", path.Base(d.Filename), e.Name, err)
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

func compression(s string) (archive.Compression, error) {
	switch s {
	case "", "xz":
		return archive.XZ, nil
	case "zstd", "zst":
		return archive.Zstd, nil
	}
	return 0, usagef("unknown compression %q (want xz or zstd)", s)
}

// inputKey identifies everything an archive's bytes depend on.
func inputKey(p Profile, pkg PlanPackage, c archive.Compression, preset int, mtime time.Time) string {
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

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}

// writeAtomic writes data to a temp file in tmpDir and renames it to dst.
func writeAtomic(dst string, data []byte, tmpDir string) error {
	f, err := os.CreateTemp(tmpDir, ".write-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // the random temporary name means nothing to the user
			err = fmt.Errorf("cannot create a file in %s: %w", tmpDir, pe.Err)
		}
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.MkdirAll(filepath.Dir(dst), 0o755)
	}
	if err == nil {
		err = os.Rename(f.Name(), dst)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	return nil
}

func lockOut(ctx context.Context, o Options) (func(), error) {
	l := flock.New(filepath.Join(o.Out, lockName))
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", o.Out, err)
	}
	if !ok {
		o.emit(Event{Kind: EventLockWait, Message: "another debredist process is writing " + o.Out + "; waiting for it to finish"})
		if _, err := l.TryLockContext(ctx, 200*time.Millisecond); err != nil {
			return nil, fmt.Errorf("waiting for the lock on %s held by another debredist process: %w", o.Out, err)
		}
	}
	return func() { l.Unlock() }, nil
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

// defaultBuilds is how many packages Convert builds at once when
// Options.Jobs is 0: one per core, and at least two, so that decoding one
// package's debs (one serial stream each) overlaps encoding another's.
// Encoding is block-parallel and bounded by one budget for all packages,
// so more packages in flight add memory, not speed: measured on the
// real-bytes corpus on 2 cores, --jobs 2 took 89.9 s, --jobs 1 97.2 s and
// --jobs 4 113.0 s (bench/README.md).
func defaultBuilds() int { return max(2, runtime.GOMAXPROCS(0)) }
