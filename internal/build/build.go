// Package build builds one redist package: it stages the package's debs
// from the cache (each hashed as read), lays their union out in NVIDIA's
// layout (internal/layout), adds the profile's wheels and stubs, writes the
// archive (internal/archive) and returns what the provenance records of it.
// It decides nothing about OUT (which packages are up to date, where files
// go, generations): the facade composes that around Package.
package build

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
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/deb"
	"github.com/debredist/debredist/internal/fetch"
	"github.com/debredist/debredist/internal/layout"
)

// Options are one package's build: what to build, from which debs, into
// which file, and with which encoding.
type Options struct {
	Profile profile.Profile
	Package plan.Package
	// Paths maps each deb's sha256 to its cache entry.
	Paths map[string]string
	// Work is a directory of the build's own (removed when done); Staged
	// is the file the archive is written to.
	Work, Staged string
	// Rel is the archive's path relative to the product's redist folder.
	Rel         string
	Compression archive.Compression
	Preset      int
	MTime       time.Time
	// Budget bounds the compression blocks in flight across all packages
	// built at once.
	Budget *archive.Budget
	Limits entry.Limits
	// Decoders bounds the debs decoded at once across all builds of a run
	// (a package's debs are staged side by side); nil: no bound.
	Decoders chan struct{}
	// Tool is the tool and version recorded in the input key ("debredist
	// 0.1.0").
	Tool string
}

// Result is one built package.
type Result struct {
	// Empty: the debs carry nothing the redist layout keeps
	// (NoPayloadReason); no archive was written and Archive is zero.
	Empty bool
	// Archive is what the provenance records of the archive written to
	// Options.Staged.
	Archive redist.Archive
	// License is the archive's LICENSE (LICENSE.txt beside it in OUT).
	License []byte
	// Warnings are the output's warnings (empty nixpkgs outputs, dropped
	// entries) in the order found; Archive.Warnings holds them sorted.
	Warnings []redist.Warning
	// Rules are the profile's own rules the tree used (also when Empty).
	Rules []string
}

// Package builds one redist package: staging, layout, wheels, stubs,
// archive, and what is recorded.
func Package(ctx context.Context, o Options) (*Result, error) {
	work := o.Work
	if err := os.MkdirAll(filepath.Join(work, "blobs"), 0o755); err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(work) }()
	pkg := o.Package
	debs := append([]apt.Package(nil), pkg.Debs...)
	sort.Slice(debs, func(a, b int) bool { return debs[a].Name < debs[b].Name })
	inputs, read, err := stageAll(ctx, o.Decoders, o.Limits, debs, o.Paths, filepath.Join(work, "blobs"))
	if err != nil {
		return nil, err
	}
	eng, err := layout.New(o.Profile)
	if err != nil {
		return nil, err
	}
	tree, err := eng.Build(pkg.PName, inputs, ReadBlob)
	if err != nil {
		return nil, err
	}
	if _, err := addWheels(o.Profile, pkg.PName, pkg.Version, o.Tool, tree); err != nil { // wheels.go
		return nil, err
	}
	stubs, err := addStubs(o.Profile, pkg.PName, tree, debs) // stubs.go
	if err != nil {
		return nil, err
	}
	res := &Result{Rules: tree.ProfileRules}
	if !treeHasPayload(tree) {
		res.Empty = true
		return res, nil
	}
	res.Warnings = outputWarnings(o.Profile, pkg, tree)
	for _, c := range tree.Changes {
		// Entries dropped (a link into /etc/alternatives no rule resolves)
		// are warnings too, not only changes in the provenance.
		if w, ok := strings.CutPrefix(c, "warning: "); ok {
			res.Warnings = append(res.Warnings, redist.Warning{Code: redist.WarnEntryDropped, Package: pkg.PName, Message: w})
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
			res.License = nd.Data
		}
		entries = append(entries, e)
	}
	if res.License == nil {
		return nil, fmt.Errorf("no copyright file in any of its debs: cannot write LICENSE")
	}
	name := path.Base(o.Rel)
	f, err := os.Create(o.Staged)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	r, err := archive.Write(
		ctx,
		bw,
		entries,
		archive.Options{
			MTime:       o.MTime,
			Compression: o.Compression,
			Preset:      o.Preset,
			Top:         topDir(name, o.Compression),
			Budget:      o.Budget,
		},
	)
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
		return nil, fmt.Errorf("writing %s: %w", name, err)
	}
	// The input key is made of the debs as read, so an archive is never
	// recorded under inputs it was not made from.
	asRead := pkg
	asRead.Debs = slices.Clone(debs)
	for i := range asRead.Debs {
		asRead.Debs[i].SHA256, asRead.Debs[i].Size = read[i].SHA256, read[i].Size
	}
	sec := o.MTime.Unix()
	res.Archive = redist.Archive{
		Product:      pkg.Product,
		PName:        pkg.PName,
		Platform:     pkg.Platform,
		CUDAVariant:  pkg.CUDAVariant,
		Version:      pkg.Version,
		RelativePath: o.Rel,
		Size:         r.Size,
		SHA256:       r.SHA256,
		MD5:          r.MD5,
		NAR:          r.NAR,
		InputKey:     InputKey(o.Tool, o.Profile, asRead, o.Compression, o.Preset, o.MTime),
		Debs:         read,
		Stubs:        stubs,
		Changes:      treeChanges(tree),
		Warnings: redist.SortWarnings(
			res.Warnings,
		),
		ProfileRules: tree.ProfileRules,
		MTime:        &sec,
		Preset:       Encoder(o.Compression, o.Preset).Preset,
	}
	return res, nil
}

// stageAll stages a package's debs (in order) side by side, each into its
// own folder under dir, at most cap(decoders) at once across the run. The
// inputs and the debs as read come in the order of debs; a failure is the
// first deb's in that order (every deb started runs to its end, so the
// error does not depend on timing; none is started after one that cannot
// be).
func stageAll(
	ctx context.Context,
	decoders chan struct{},
	limits entry.Limits,
	debs []apt.Package,
	paths map[string]string,
	dir string,
) ([]layout.Input, []redist.Deb, error) {
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
			if decoders != nil {
				select {
				case decoders <- struct{}{}:
				case <-ctx.Done():
					res[i].err = ctx.Err()
					return
				}
				defer func() { <-decoders }()
			}
			n := 0
			res[i].ins, res[i].rd, res[i].err = Stage(ctx, limits, d, p, sub, &n)
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

// Stage streams one deb from the cache apart (debPath; blobs numbered from
// *n + 1): every regular file is copied
// to a blob file under dir (hashed on the way), everything else is
// metadata. The deb's bytes are hashed as they are read: it returns the
// deb as read (sha256 and size), and a *fault.CorruptCacheError, whatever the
// deb reader said, when the cache entry is not the deb it was stored as.
func Stage(
	ctx context.Context,
	limits entry.Limits,
	d apt.Package,
	debPath, dir string,
	n *int,
) ([]layout.Input, redist.Deb, error) {
	ent, err := fetch.OpenEntry(debPath, d.Name, d.SHA256)
	if err != nil {
		return nil, redist.Deb{}, err
	}
	defer func() { _ = ent.Close() }()
	ins, err := stageDeb(ctx, limits, d, ent, dir, n)
	if err != nil && ctx.Err() != nil {
		return nil, redist.Deb{}, err // cancelled: do not read the rest
	}
	sum, size, verr := ent.Verify()
	if verr != nil {
		return nil, redist.Deb{}, verr
	}
	return ins, redist.Deb{
		Repo:     d.Repo,
		Package:  d.Name,
		Version:  d.Version,
		Filename: d.Filename,
		SHA256:   sum,
		Size:     size,
	}, err
}

func stageDeb(
	ctx context.Context,
	limits entry.Limits,
	d apt.Package,
	f io.Reader,
	dir string,
	n *int,
) ([]layout.Input, error) {
	r, err := deb.NewReader(
		ctx,
		bufio.NewReaderSize(f, 1<<20),
		deb.Options{Limits: limits, Name: path.Base(d.Filename), SystemXZ: true, Size: d.Size},
	)
	if err != nil {
		return nil, err
	}
	defer func() { _ = r.Close() }()
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

// ReadBlob reads a staged blob for the layout engine (a license file; at
// most layout.MaxLicenseBytes+1 bytes).
func ReadBlob(ref string) ([]byte, error) {
	f, err := os.Open(ref)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, layout.MaxLicenseBytes+1))
}

func topDir(name string, c archive.Compression) string { return name[:len(name)-len(c.Ext())] }

// InputKey identifies everything an archive's bytes depend on; tool is
// the tool and version that builds it.
func InputKey(
	tool string,
	p profile.Profile,
	pkg plan.Package,
	c archive.Compression,
	preset int,
	mtime time.Time,
) string {
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
		Profile  profile.Profile
		Rules    any
		PName    string
		Platform string
		Variant  string
		Version  string
		Product  string
		Debs     []deb
	}{tool, true, archive.BlockSize, c.Ext(), preset, mtime.Unix(), p, p.Merged(), pkg.PName, pkg.Platform,
		pkg.CUDAVariant, pkg.Version, pkg.Product, debs})
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Encoder describes how archives are compressed with c at preset (0: the
// default), as the provenance records it: the preset really used, for
// every compression. preset is in c's range (Options.Check).
func Encoder(c archive.Compression, preset int) redist.Encoder {
	used, _ := c.Preset(preset)
	return redist.Encoder{Format: c.Ext(), BlockSize: archive.BlockSize, Preset: used}
}
