package debredist

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/debredist/debredist/internal/apt"
	"github.com/debredist/debredist/internal/archive"
)

// Provenance is the sidecar written beside each manifest
// (redistrib_<label>.provenance.json): how every archive was made.
type Provenance struct {
	Tool     string        `json:"tool"`
	Encoder  EncoderInfo   `json:"encoder"`
	Profile  Profile       `json:"profile"`
	Indexes  []IndexInfo   `json:"indexes"`
	Archives []provArchive `json:"archives"`
}

// EncoderInfo says how archives were compressed.
type EncoderInfo struct {
	Format    string `json:"format"`
	BlockSize int    `json:"block_size"`
}

type provArchive struct {
	Product      string `json:"product"`
	PName        string `json:"pname"`
	Platform     string `json:"platform"`
	Variant      string `json:"cuda_variant,omitempty"`
	Version      string `json:"version"`
	RelativePath string `json:"relative_path"`
	Size         int64  `json:"size"`
	SHA256       string `json:"sha256"`
	MD5          string `json:"md5"`
	// NAR is the SRI hash of the unpacked top directory's NAR
	// serialisation (what nix-hash --type sha256 --sri prints).
	NAR      string    `json:"nar_hash"`
	InputKey string    `json:"input_key"`
	Debs     []provDeb `json:"debs"`
	// Changes lists, one line per affected entry, what the archive changes
	// beyond placing the debs' entries (bits stripped, links re-rooted,
	// merged or dropped, license files merged).
	Changes []string `json:"changes,omitempty"`
}

type provDeb struct {
	Repo     string `json:"repo"`
	Package  string `json:"package"`
	Version  string `json:"version"`
	Filename string `json:"filename"`
	SHA256   string `json:"sha256"`
	Size     int64  `json:"size,omitempty"`
}

const provenanceSuffix = ".provenance.json"

// previous is what an earlier run left in OUT.
type previous struct {
	byKey     map[string]provArchive // input key -> archive record
	sidecars  map[string]Provenance  // sidecar path -> content
	manifests map[string]*Manifest   // manifest path -> content
}

// readPrevious loads the manifests and provenance sidecars under OUT.
// Unreadable ones are ignored: what they described is rebuilt.
func readPrevious(out string) previous {
	prev := previous{byKey: map[string]provArchive{}, sidecars: map[string]Provenance{}, manifests: map[string]*Manifest{}}
	files, _ := filepath.Glob(filepath.Join(out, "*", "redist", "redistrib_*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if strings.HasSuffix(f, provenanceSuffix) {
			var p Provenance
			if json.Unmarshal(b, &p) != nil {
				continue
			}
			prev.sidecars[f] = p
			for _, a := range p.Archives {
				prev.byKey[a.InputKey] = a
			}
		} else if m, err := ReadManifest(bytes.NewReader(b)); err == nil {
			prev.manifests[f] = m
		}
	}
	return prev
}

// writeManifests writes, per product, the provenance sidecar and then the
// manifest (last, so a manifest never names an archive that is not there),
// and removes archives of earlier runs that no manifest names any more.
func writeManifests(o Options, pl *PlanResult, jobs []*job, tmp string, prev previous) (*Result, error) {
	res := &Result{Out: o.Out, Profile: pl.Profile}
	byProduct := map[string][]*job{}
	for _, j := range jobs {
		byProduct[j.pkg.Product] = append(byProduct[j.pkg.Product], j)
	}
	comp, _ := compression(o.Compression)
	kept := map[string]bool{}
	for _, pr := range pl.Products {
		js := byProduct[pr.Product]
		if len(js) == 0 {
			continue // filtered out by --only
		}
		dir := filepath.Join(o.Out, pr.Product, "redist")
		base := "redistrib_" + pr.Label
		manifestPath, sidecarPath := filepath.Join(dir, base+".json"), filepath.Join(dir, base+provenanceSuffix)
		m := &Manifest{ReleaseDate: pl.Profile.ReleaseDate, ReleaseLabel: pr.Label, ReleaseProduct: pr.Product, Components: map[string]*Component{}}
		prov := Provenance{Tool: "debredist " + Version, Encoder: EncoderInfo{Format: comp.Ext(), BlockSize: archive.BlockSize}, Profile: pl.Profile, Indexes: pl.Indexes}
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
				c = &Component{Name: p.Name, License: p.License, LicensePath: path.Join(p.PName, "LICENSE.txt"), Version: p.Version, Platforms: map[string]*Platform{}}
				m.Components[p.PName] = c
			}
			a := &Artifact{RelativePath: j.res.RelativePath, SHA256: j.res.SHA256, MD5: j.res.MD5, Size: strconv.FormatInt(j.res.Size, 10)}
			if p.CUDAVariant != "" {
				c.CUDAVariant = []string{p.CUDAVariant}
				c.Platforms[p.Platform] = &Platform{Variants: map[string]*Artifact{"cuda" + p.CUDAVariant: a}}
			} else {
				c.Platforms[p.Platform] = &Platform{Artifact: a}
			}
			prov.Archives = append(prov.Archives, j.res)
			kept[filepath.Join(dir, filepath.FromSlash(j.res.RelativePath))] = true
			res.Packages = append(res.Packages, PackageResult{PName: p.PName, Product: p.Product, Version: p.Version, Platform: p.Platform,
				CUDAVariant: p.CUDAVariant, Archive: filepath.ToSlash(filepath.Join(pr.Product, "redist", j.res.RelativePath)),
				Size: j.res.Size, SHA256: j.res.SHA256, MD5: j.res.MD5, NAR: j.res.NAR, Debs: len(j.res.Debs), UpToDate: j.upToDate, Changes: j.res.Changes})
		}
		sort.Slice(prov.Archives, func(a, b int) bool { return prov.Archives[a].RelativePath < prov.Archives[b].RelativePath })
		pb, err := json.MarshalIndent(prov, "", "    ")
		if err != nil {
			return nil, err
		}
		if err := writeAtomic(sidecarPath, append(pb, '\n'), tmp); err != nil {
			return nil, err
		}
		var mb bytes.Buffer
		if err := WriteManifest(&mb, m); err != nil {
			return nil, err
		}
		if err := writeAtomic(manifestPath, mb.Bytes(), tmp); err != nil {
			return nil, err
		}
		removeStale(dir, prev.sidecars[sidecarPath], kept)
		res.Products = append(res.Products, ProductResult{Product: pr.Product, Label: pr.Label, Manifest: filepath.ToSlash(filepath.Join(pr.Product, "redist", base+".json"))})
	}
	return res, nil
}

// removeStale deletes the archives that the earlier sidecar of a manifest
// this run rewrote recorded and that the manifest no longer names (a
// package whose version changed). Other labels and files debredist did not
// record are never touched.
func removeStale(dir string, old Provenance, kept map[string]bool) {
	for _, rec := range old.Archives {
		p := filepath.Join(dir, filepath.FromSlash(rec.RelativePath))
		if !kept[p] && fileSize(p) == rec.Size {
			os.Remove(p)
		}
	}
}

// writeLockOut records the debs this conversion read.
func writeLockOut(file string, pl *PlanResult) error {
	l := &apt.Lock{Suite: pl.Profile.Suite, Packages: pl.Inputs}
	var b bytes.Buffer
	if err := apt.WriteLock(&b, l); err != nil {
		return fmt.Errorf("lock file %s: %w", file, err)
	}
	return writeAtomic(file, b.Bytes(), filepath.Dir(file))
}
