package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/build"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/publish"
)

// previous is what an earlier run left in OUT.
type previous struct {
	byKey     map[string]redist.Archive    // input key -> archive record
	sidecars  map[string]redist.Provenance // sidecar path -> content
	manifests map[string]*redist.Manifest  // manifest path -> content
	foreign   []string                     // links in OUT debredist did not write (not followed)
}

// readPrevious loads the manifests and provenance sidecars under OUT.
// Unreadable ones are ignored: what they described is rebuilt. A sidecar
// under the legacy name is keyed by the current name (it is the same
// record; writeManifests renames it).
func readPrevious(out string) previous {
	prev := previous{
		byKey:     map[string]redist.Archive{},
		sidecars:  map[string]redist.Provenance{},
		manifests: map[string]*redist.Manifest{},
	}
	found, err := outdir.Open(out)
	if err != nil {
		return prev // OUT may not exist yet
	}
	defer func() { _ = found.Close() }()
	prev.foreign = found.Paths(found.Foreign)
	var files, current []string
	for _, f := range found.Sidecars {
		if strings.HasSuffix(f, redist.LegacySidecarSuffix) {
			files = append(files, f)
		} else {
			current = append(current, f)
		}
	}
	files = append(files, current...) // current names last: they win over legacy ones
	files = append(files, found.Manifests...)
	for _, f := range files {
		b, err := found.ReadFile(f, redist.MaxJSON)
		if err != nil {
			continue
		}
		if name := filepath.Base(f); redist.IsSidecarName(name) {
			pp, err := redist.ReadProvenance(bytes.NewReader(b))
			if err != nil {
				continue
			}
			p := *pp
			key := found.Path(f) // as writeManifests names the files
			if strings.HasSuffix(name, redist.LegacySidecarSuffix) {
				key, _ = redist.SidecarFor(strings.TrimSuffix(key, redist.LegacySidecarSuffix) + ".json")
			}
			prev.sidecars[key] = p
			for _, a := range p.Archives {
				prev.byKey[a.InputKey] = a
			}
		} else if m, err := redist.ReadManifest(bytes.NewReader(b)); err == nil {
			prev.manifests[found.Path(f)] = m
		}
	}
	return prev
}

// writeManifests writes, per product, the provenance sidecar and then the
// manifest (last, so a manifest never names an archive that is not there),
// and removes archives of earlier runs that no manifest names any more;
// gen is the directory written: a new generation, or OUT itself when
// nothing needs writing.
func (o *Run) writeManifests(gen string, pl *plan.Plan, jobs []*job, tmp string, prev previous) (*Outcome, error) {
	res := &Outcome{Profile: pl.Profile}
	used := slices.Clone(o.emptyRules) // the profile's own rules some archive used
	byProduct := map[string][]*job{}
	for _, j := range jobs {
		byProduct[j.pkg.Product] = append(byProduct[j.pkg.Product], j)
	}
	comp := o.Compression
	kept := map[string]bool{}
	for _, pr := range pl.Products {
		js := byProduct[pr.Product]
		base := redist.ManifestPrefix + pr.Label
		dir, err := publish.Path(gen, pr.Product, "redist")
		if err != nil {
			return nil, err
		}
		manifestPath, err := publish.Path(dir, base+".json")
		if err != nil {
			return nil, err
		}
		sidecarPath, legacySidecar := redist.SidecarFor(manifestPath)
		if len(js) == 0 {
			// Filtered out by --only: kept as it is, and so are its
			// warnings.
			for _, a := range prev.sidecars[sidecarPath].Archives {
				res.Warnings = append(res.Warnings, a.Warnings...)
				used = append(used, a.ProfileRules...)
			}
			continue
		}
		m := &redist.Manifest{
			ReleaseDate:    pl.Profile.ReleaseDate,
			ReleaseLabel:   pr.Label,
			ReleaseProduct: pr.Product,
			Components:     map[string]*redist.Component{},
		}
		prov := redist.Provenance{
			Tool:    o.Tool,
			Encoder: build.Encoder(comp, o.Preset),
			Profile: pl.Profile,
			Indexes: pl.Indexes,
		}
		if !slices.ContainsFunc(pl.Indexes, func(ix redist.Index) bool { return ix.Repo != "lock" }) {
			prov.Mirror = o.Source.Base // a lock names no index: where the debs came from
		}
		if len(o.Only) > 0 {
			// --only rebuilds some components: the others of this
			// manifest stay as the earlier run wrote them.
			mine := map[string]bool{}
			for _, j := range js {
				mine[j.pkg.PName] = true
			}
			if old := prev.manifests[manifestPath]; old != nil {
				for name, c := range old.Components {
					if !mine[name] {
						m.Components[name] = c
					}
				}
			}
			for _, a := range prev.sidecars[sidecarPath].Archives {
				if !mine[a.PName] {
					prov.Archives = append(prov.Archives, a)
					kept[filepath.Join(dir, filepath.FromSlash(a.RelativePath))] = true
				}
			}
		}
		for _, j := range js {
			p := j.pkg
			c := m.Components[p.PName]
			if c == nil {
				c = &redist.Component{
					Name:        p.Name,
					License:     p.License,
					LicensePath: path.Join(p.PName, "LICENSE.txt"),
					Version:     p.Version,
					Platforms:   map[string]*redist.Platform{},
				}
				m.Components[p.PName] = c
			}
			a := &redist.Artifact{
				RelativePath: j.res.RelativePath,
				SHA256:       j.res.SHA256,
				MD5:          j.res.MD5,
				Size:         strconv.FormatInt(j.res.Size, 10),
			}
			for _, key := range manifestKeys(pl.Profile, p.Platform) {
				if p.CUDAVariant != "" {
					c.CUDAVariant = []string{p.CUDAVariant}
					c.Platforms[key] = &redist.Platform{Variants: map[string]*redist.Artifact{redist.VariantKey(p.CUDAVariant): a}}
				} else {
					c.Platforms[key] = &redist.Platform{Artifact: a}
				}
			}
			prov.Archives = append(prov.Archives, j.res)
			kept[filepath.Join(dir, filepath.FromSlash(j.res.RelativePath))] = true
			res.Archives = append(res.Archives, Archive{Package: p, Record: j.res, UpToDate: j.upToDate,
				Path: filepath.ToSlash(filepath.Join(pr.Product, "redist", j.res.RelativePath))})
		}
		sort.Slice(
			prov.Archives,
			func(a, b int) bool { return prov.Archives[a].RelativePath < prov.Archives[b].RelativePath },
		)
		for _, a := range prov.Archives {
			res.Warnings = append(res.Warnings, a.Warnings...)
			used = append(used, a.ProfileRules...)
		}
		pb, err := json.MarshalIndent(prov, "", "    ")
		if err != nil {
			return nil, err
		}
		var mb bytes.Buffer
		if err := redist.WriteManifest(&mb, m); err != nil {
			return nil, err
		}
		res.Products = append(
			res.Products,
			Product{ProductLabel: pr, Manifest: filepath.ToSlash(filepath.Join(pr.Product, "redist", base+".json"))},
		)
		if unchanged(js, prev, manifestPath, sidecarPath, legacySidecar, mb.Bytes()) {
			// Nothing of this product was built: its manifest and
			// provenance stay as the run that made the archives wrote them.
			continue
		}
		if tmp == "" {
			return nil, errReadOnly(gen, manifestPath+" must be rewritten")
		}
		if err := files.Write(sidecarPath, append(pb, '\n'), tmp); err != nil {
			return nil, err
		}
		if err := files.Write(manifestPath, mb.Bytes(), tmp); err != nil {
			return nil, err
		}
		// Migrate: the legacy sidecar name is taken for a release by NVIDIA's scripts.
		if err := os.Remove(legacySidecar); err != nil && !os.IsNotExist(err) {
			return nil, fmt.Errorf("removing the old-style sidecar %s: %w", legacySidecar, err)
		}
		removeStale(dir, prev.sidecars[sidecarPath], kept)
	}
	res.Warnings = redist.SortWarnings(append(res.Warnings, unusedRules(pl.Profile, used)...))
	return res, nil
}

// unusedRules are the warnings for the profile's own layout rules that no
// archive of the release (used: their ProfileRules) placed or dropped
// anything with.
func unusedRules(p profile.Profile, used []string) []redist.Warning {
	var ws []redist.Warning
	for _, r := range p.Rules.Paths {
		if slices.Contains(used, r.Match) {
			continue
		}
		what := "drop"
		switch {
		case r.To != nil:
			what = fmt.Sprintf("to %q", *r.To)
		case r.License:
			what = "license"
		}
		ws = append(ws, redist.Warning{Code: redist.WarnRuleUnused, Message: fmt.Sprintf(
			"profile %s: layout rule {match %q, %s} placed and dropped nothing in any archive of the release in OUT (a typo "+
				"in match, or packages/types that exclude every path?)",
			p.Name,
			r.Match,
			what,
		)})
	}
	return ws
}

// unchanged reports whether a product's manifest and provenance in OUT
// already say what this run would write: every package was up to date,
// the sidecar is there under its current name (a legacy one must be
// migrated) and the manifest has the same bytes.
func unchanged(js []*job, prev previous, manifestPath, sidecarPath, legacySidecar string, manifest []byte) bool {
	for _, j := range js {
		if !j.upToDate {
			return false
		}
	}
	if _, ok := prev.sidecars[sidecarPath]; !ok {
		return false
	}
	if _, err := os.Lstat(sidecarPath); err != nil {
		return false
	}
	if _, err := os.Lstat(legacySidecar); err == nil {
		return false
	}
	old, err := os.ReadFile(manifestPath)
	return err == nil && bytes.Equal(old, manifest)
}

// manifestKeys are the manifest keys an archive of platform is listed
// under: the platform, and the profile's also_platforms for archives of
// the profile's own platform (not "source" ones).
func manifestKeys(p profile.Profile, platform string) []string {
	keys := []string{platform}
	if platform == p.Platform {
		for _, k := range p.AlsoPlatforms {
			if k != platform {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// removeStale deletes the archives that the earlier sidecar of a manifest
// this run rewrote recorded and that the manifest no longer names (a
// package whose version changed). Other labels and files debredist did not
// record are never touched.
func removeStale(dir string, old redist.Provenance, kept map[string]bool) {
	for _, rec := range old.Archives {
		p, err := publish.Path(dir, rec.RelativePath) // the sidecar is a file in OUT: not trusted
		if err == nil && !kept[p] && publish.FileSize(p) == rec.Size {
			_ = os.Remove(p) // one left behind is only a stray file, as before
		}
	}
}

// writeLockOut records the debs this conversion read.
func writeLockOut(file string, pl *plan.Plan) error {
	l := &apt.Lock{Suite: pl.Profile.L4T, Packages: pl.Inputs}
	var b bytes.Buffer
	if err := apt.WriteLock(&b, l); err != nil {
		return fmt.Errorf("lock file %s: %w", file, err)
	}
	if err := files.Write(file, b.Bytes(), filepath.Dir(file)); err != nil {
		return fault.Errorf("%s: %w", fault.RefLockOut, err)
	}
	return nil
}
