package sbom

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/files"
)

// Read reads what the documents say from the manifests (paths relative to
// snap.Out, as its Files name them) and the files beside them, all through snap (one generation,
// regular files only, no link followed), as every reader of OUT takes
// them (debredist/outdir: each release valid and agreeing with its
// provenance, each archive the file its manifest names, not hard-linked
// outside OUT, and decoded within archive's bounds with one top directory
// named like the file); tool names the generator ("debredist 0.1.0"),
// created is the documents' creation time (zero: the latest release date
// of the manifests read).
// Every string read is checked by Input.Check; errors name the file and
// field.
func Read(
	ctx context.Context,
	snap *outdir.Snapshot,
	manifests []string,
	tool string,
	created time.Time,
) (*Input, error) {
	in := &Input{Tool: tool}
	var latest time.Time
	for _, mf := range slices.Sorted(slices.Values(manifests)) {
		relm := mf
		r, err := snap.ReadProduct(mf)
		if err != nil {
			return nil, err
		}
		m, prov, side := r.M, r.Prov, r.Sidecar
		siderel := side
		rel := Release{Manifest: relm, Product: m.ReleaseProduct, Label: m.ReleaseLabel, Profile: prov.Profile.Name,
			JetPack: prov.Profile.JetPack, L4T: prov.Profile.L4T, ReleaseDate: m.ReleaseDate}
		if d, err := time.Parse(time.DateOnly, m.ReleaseDate); err != nil {
			return nil, fmt.Errorf("%s: release_date %q: not a date (YYYY-MM-DD)", relm, m.ReleaseDate)
		} else if d.After(latest) {
			latest = d
		}
		base := filepath.Dir(mf)
		// Every artifact of the manifest, by relative path.
		arts := map[string]*redist.Artifact{}
		comps := map[string]*redist.Component{}
		for _, name := range slices.Sorted(maps.Keys(m.Components)) {
			c := m.Components[name]
			for _, pa := range c.Artifacts() {
				arts[pa.Artifact.RelativePath] = pa.Artifact
				comps[pa.Artifact.RelativePath] = c
			}
		}
		urls := map[string]string{}
		for _, ix := range prov.Indexes {
			if i := strings.Index(ix.URL, "/dists/"); i > 0 &&
				(strings.HasPrefix(ix.URL, "https://") || strings.HasPrefix(ix.URL, "http://")) {
				urls[ix.Repo] = ix.URL[:i+1]
			}
		}
		wheelRules := prov.Profile.Merged().Wheels
		covered := map[string]bool{}
		for _, a := range prov.Archives {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			where := fmt.Sprintf("%s: archive %s", filepath.ToSlash(siderel), a.RelativePath)
			art, c := arts[a.RelativePath], comps[a.RelativePath]
			if art == nil {
				return nil, fmt.Errorf("%s: relative_path: not named by the manifest %s", where, relm)
			}
			if art.SHA256 != a.SHA256 || art.Size != strconv.FormatInt(a.Size, 10) {
				return nil, fmt.Errorf(
					"%s: sha256/size %s/%d, the manifest says %s/%s",
					where,
					a.SHA256,
					a.Size,
					art.SHA256,
					art.Size,
				)
			}
			rp, ok := redist.CleanRelativePath(a.RelativePath)
			if !ok {
				return nil, fmt.Errorf("%s: relative_path is absolute or escapes the manifest's directory", where)
			}
			lp, ok := redist.CleanRelativePath(c.LicensePath)
			if !ok {
				return nil, fmt.Errorf("%s: license_path %q is absolute or escapes the manifest's directory", relm, c.LicensePath)
			}
			lic, err := snap.ReadFile(filepath.Join(base, lp), 16<<20)
			if err != nil {
				return nil, err
			}
			arRel := path.Join(path.Dir(relm), rp)
			comp := Component{PName: a.PName, Name: c.Name, Version: a.Version, Platform: a.Platform, CUDAVariant: a.CUDAVariant,
				License: License{Name: c.License, Text: string(lic)}}
			for _, d := range a.Debs {
				sd := Deb{Package: d.Package, Version: d.Version, Filename: d.Filename, SHA256: d.SHA256, Size: d.Size}
				if u := urls[d.Repo]; u != "" {
					sd.URL = u + d.Filename
				}
				comp.Debs = append(comp.Debs, sd)
			}
			// What to hash inside the archive: the stubs, their libraries, the wheels.
			var wheels []wheelOf
			for _, r := range wheelRules {
				if len(r.Packages) == 0 || slices.Contains(r.Packages, a.PName) {
					var debs []string
					for _, d := range a.Debs {
						if slices.Contains(r.Debs, d.Package) {
							debs = append(debs, d.Package)
						}
					}
					if len(debs) > 0 {
						wheels = append(wheels, wheelOf{r.Name, debs})
					}
				}
			}
			want := map[string]bool{}
			for _, s := range a.Stubs {
				want[s.Path], want[s.From] = true, true
			}
			file, inner, err := hashArchive(ctx, snap, filepath.Join(base, rp), a.Size, want, len(wheels) > 0)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			if file.SHA256 != a.SHA256 || file.Size != a.Size {
				return nil, fault.Errorf(
					"%s: the file has sha256 %s and %d bytes, the provenance records %s and %d: it changed since the conversion (%s "+
						"tells more)",
					where,
					file.SHA256,
					file.Size,
					a.SHA256,
					a.Size,
					fault.RefVerify,
				)
			}
			if file.MD5 != a.MD5 {
				return nil, fault.Errorf(
					"%s: the file has md5 %s, the provenance records %s: it changed since the conversion (%s tells more)",
					where,
					file.MD5,
					a.MD5,
					fault.RefVerify,
				)
			}
			file.Path = arRel
			comp.Archive = file
			for _, s := range a.Stubs {
				sf, ok1 := inner[s.Path]
				ff, ok2 := inner[s.From]
				if !ok1 || !ok2 {
					return nil, fmt.Errorf("%s: stubs: %s or %s is not a regular file of the archive", where, s.Path, s.From)
				}
				if sf.SHA256 != s.SHA256 {
					return nil, fmt.Errorf(
						"%s: stubs: %s has sha256 %s, the provenance records %s",
						where,
						s.Path,
						sf.SHA256,
						s.SHA256,
					)
				}
				comp.Stubs = append(comp.Stubs, Stub{File: sf, From: ff, FromDeb: s.FromDeb, SOName: s.SOName})
			}
			for _, p := range slices.Sorted(maps.Keys(inner)) {
				if !strings.HasPrefix(p, "python/") || !strings.HasSuffix(p, ".whl") {
					continue
				}
				for _, w := range wheels {
					if strings.HasPrefix(path.Base(p), w.name+"-") {
						comp.Wheels = append(comp.Wheels, Wheel{File: inner[p], Debs: w.debs})
					}
				}
			}
			rel.Components = append(rel.Components, comp)
			covered[a.RelativePath] = true
		}
		for _, p := range slices.Sorted(maps.Keys(arts)) {
			if !covered[p] { // never a bill of materials that leaves an archive out
				return nil, fault.Errorf(
					"%s: archive %s: the provenance sidecar %s has no record of it (%s tells more)",
					relm,
					p,
					siderel,
					fault.RefVerify,
				)
			}
		}
		in.Releases = append(in.Releases, rel)
	}
	in.Created = latest
	if !created.IsZero() {
		in.Created = created.UTC()
	}
	return in, in.Check()
}

type wheelOf struct {
	name string
	debs []string
}

// hashArchive hashes an archive file read through snap (sha256, sha1,
// size; snap.OpenArchive refuses a size other than the recorded one before
// a byte is read, and hard links outside OUT), then decodes it (bounded,
// one top directory named like the file) and hashes the wanted entries and,
// with wheels, every python/*.whl, by path inside the top directory.
func hashArchive(
	ctx context.Context,
	snap *outdir.Snapshot,
	name string,
	size int64,
	want map[string]bool,
	wheels bool,
) (File, map[string]File, error) {
	f, err := snap.OpenArchive(name, size)
	if err != nil {
		return File{}, nil, fault.Errorf("%w (%s tells more)", err, fault.RefVerify)
	}
	defer f.Close()
	s2, s1, m5 := sha256.New(), sha1.New(), md5.New()
	n, err := io.Copy(io.MultiWriter(s2, s1, m5), files.ContextReader(ctx, f))
	if err != nil {
		return File{}, nil, err
	}
	file := File{
		SHA256: hex.EncodeToString(s2.Sum(nil)),
		SHA1:   hex.EncodeToString(s1.Sum(nil)),
		MD5:    hex.EncodeToString(m5.Sum(nil)),
		Size:   n,
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return file, nil, err
	}
	inner := map[string]File{}
	err = archive.Walk(ctx, f, archive.TopName(filepath.Base(name)), func(h entry.Header, content io.Reader) error {
		isWheel := wheels && strings.HasPrefix(h.Path, "python/") && strings.HasSuffix(h.Path, ".whl")
		if h.Type != entry.Regular || !want[h.Path] && !isWheel {
			return nil
		}
		hs := []hash.Hash{sha256.New(), sha1.New()}
		n, err := io.Copy(io.MultiWriter(hs[0], hs[1]), content)
		if err != nil {
			return err
		}
		inner[h.Path] = File{
			Path:   h.Path,
			SHA256: hex.EncodeToString(hs[0].Sum(nil)),
			SHA1:   hex.EncodeToString(hs[1].Sum(nil)),
			Size:   n,
		}
		return nil
	})
	return file, inner, err
}
