package nixoverlay

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/files"
)

// Deb is one deb the derivations fetch.
type Deb struct {
	Name string `json:"name"` // the store path name
	URL  string `json:"url"`
}

// Sidecar is a provenance sidecar as read: build-archive reads it again.
type Sidecar struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// ArchiveDerivation is one archive's derivation.
type ArchiveDerivation struct {
	Product      string   `json:"product"`
	RelativePath string   `json:"relative_path"`
	SHA256       string   `json:"sha256"`
	Attr         string   `json:"attr"` // its name under archives.<product>
	Debs         []string `json:"debs"` // sha256s
}

// storeNameRE is what a Nix store path name may hold; sha256RE a hex sha256.
var (
	storeNameRE = regexp.MustCompile(`^[A-Za-z0-9+_?=-][A-Za-z0-9+._?=-]*$`)
	storeBadRE  = regexp.MustCompile(`[^A-Za-z0-9+._?=-]`)
	sha256RE    = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// addDerivations adds the debs, sidecars and archive derivations of every
// product the overlay hands over (and of the others: their archives are
// built too).
func (d *Data) addDerivations(snap *outdir.Snapshot, mirror string) error {
	recs := map[string]redist.Archive{}
	for _, mf := range snap.Manifests {
		rel, err := snap.ReadProduct(mf) // valid, and agreeing with its provenance (outdir)
		if err != nil {
			return err
		}
		m, prov, sidecar := rel.M, rel.Prov, rel.Sidecar
		prod := m.ReleaseProduct
		raw, err := snap.ReadFile(sidecar, redist.MaxJSON) // embedded as it is: build-archive reads it
		if err != nil {
			return err
		}
		if !storeNameRE.MatchString(filepath.Base(sidecar)) {
			return fmt.Errorf("provenance sidecar %s: its name cannot be a Nix store path name", snap.Path(sidecar))
		}
		d.Provenance[prod] = Sidecar{Name: filepath.Base(sidecar), Text: string(raw)}
		base, err := mirrorBase(mirror, prov)
		if err != nil {
			return fmt.Errorf("%s: %w", sidecar, err)
		}
		named := map[string]bool{}
		for _, c := range m.Components {
			for _, pa := range c.Artifacts() {
				named[pa.Artifact.RelativePath] = true
			}
		}
		var made []string
		for _, a := range prov.Archives {
			if !named[a.RelativePath] || slices.Contains(made, a.RelativePath) {
				continue // recorded by an earlier conversion, no longer in the manifest
			}
			if a.MTime == nil {
				return fmt.Errorf(
					"%s does not record the entries' mtime of %s (%s wrote it): convert again with this debredist",
					sidecar,
					a.RelativePath,
					prov.Tool,
				)
			}
			if !storeNameRE.MatchString(path.Base(a.RelativePath)) || !sha256RE.MatchString(a.SHA256) {
				return fmt.Errorf(
					"%s: archive %q (sha256 %q): not a usable file name and sha256",
					sidecar,
					a.RelativePath,
					a.SHA256,
				)
			}
			made = append(made, a.RelativePath)
			drv := ArchiveDerivation{Product: prod, RelativePath: a.RelativePath, SHA256: a.SHA256, Attr: a.PName}
			for _, deb := range a.Debs {
				if !sha256RE.MatchString(deb.SHA256) {
					return fmt.Errorf("%s: deb %s: sha256 %q is not 64 hex digits", sidecar, deb.Package, deb.SHA256)
				}
				drv.Debs = append(drv.Debs, deb.SHA256)
				if _, ok := d.Debs[deb.SHA256]; ok {
					continue
				}
				u, err := apt.NewRepo(base, deb.Repo, prov.Profile.L4T).PoolURL(deb.Filename)
				if err != nil {
					return fmt.Errorf("%s: deb %s: %w", sidecar, deb.Package, err)
				}
				d.Debs[deb.SHA256] = Deb{Name: storeBadRE.ReplaceAllString(path.Base(deb.Filename), "_"), URL: fileURL(u)}
			}
			slices.Sort(drv.Debs)
			d.Derivations = append(d.Derivations, drv)
			recs[prod+"/"+a.RelativePath] = a
		}
		for _, rel := range slices.Sorted(maps.Keys(named)) {
			if !slices.Contains(made, rel) {
				return fmt.Errorf("manifest %s names %s, which its provenance does not record", mf, rel)
			}
		}
	}
	nameArchives(d.Derivations, recs)
	return nil
}

// mirrorBase is where the debs of prov are fetched from: the override,
// else the mirror its first index was read from (convert records a
// directory as an absolute path), the mirror a conversion from a lock
// file records, else NVIDIA's repository. A directory must hold the very
// indexes the conversion read (their sha256s as recorded): a same-named
// directory elsewhere, or a mirror updated since, is refused rather than
// pinned.
func mirrorBase(override string, prov *redist.Provenance) (string, error) {
	base := override
	if base == "" {
		base = prov.MirrorBase()
	}
	if base == "" || strings.Contains(base, "://") {
		return base, nil
	}
	abs, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fault.Errorf(
			"the mirror directory %s the debs were read from is not there: give %s",
			abs,
			fault.RefNixMirror,
		)
	}
	for _, ix := range prov.Indexes {
		i := strings.Index(ix.URL, "/"+ix.Repo+"/dists/")
		if ix.Repo == "lock" || i < 0 {
			continue
		}
		file := filepath.Join(abs, filepath.FromSlash(ix.URL[i+1:]))
		sum, err := files.SHA256(context.Background(), file)
		if err != nil {
			return "", fmt.Errorf(
				"the mirror directory %s: index %s of repo %s (recorded as %s): %w",
				abs,
				file,
				ix.Repo,
				ix.URL,
				err,
			)
		}
		if sum != ix.SHA256 {
			return "", fault.Errorf(
				"the mirror directory %s holds another index than the conversion read: %s has sha256 %s, the provenance records "+
					"%s for %s (give %s the mirror the conversion read)",
				abs,
				file,
				sum,
				ix.SHA256,
				ix.URL,
				fault.RefNixMirror,
			)
		}
	}
	return abs, nil
}

// fileURL makes a pool path under a directory mirror a file:// URL.
func fileURL(u string) string {
	if strings.Contains(u, "://") {
		return u
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(u)}).String()
}

// nameArchives gives each derivation a name nix-build lists (it skips
// attributes that are not identifiers): the pname, or where a product has
// several archives of one pname, the pname with platform and CUDA variant.
func nameArchives(drvs []ArchiveDerivation, recs map[string]redist.Archive) {
	count := map[string]int{}
	for _, d := range drvs {
		count[d.Product+"/"+d.Attr]++
	}
	for i, d := range drvs {
		if count[d.Product+"/"+d.Attr] > 1 {
			a := recs[d.Product+"/"+d.RelativePath]
			name := a.PName + "_" + a.Platform
			if a.CUDAVariant != "" {
				name += "_" + a.CUDAVariant
			}
			drvs[i].Attr = nixIdentRE.ReplaceAllString(name, "_")
		}
	}
}

// nixIdentRE is what an identifier nix-build lists may not hold.
var nixIdentRE = regexp.MustCompile(`[^A-Za-z0-9_+-]`)
