package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/jsonpos"
)

// verifySBOM checks the bills of materials beside the manifest mf (rel
// is its path relative to the checked directory), when present: each must
// be the JSON document of its format and name every archive of the
// manifest with the sha256 the manifest records (which Dir checks against
// the archive itself), and no archive of this manifest's directory that the
// manifest does not name.
func verifySBOM(snap *outdir.Snapshot, rep *Report, rel string) {
	mf := rel
	label := strings.TrimSuffix(strings.TrimPrefix(path.Base(rel), redist.ManifestPrefix), ".json")
	spdxName, cdxName := redist.SBOMNames(label)
	var m *redist.Manifest
	for _, doc := range []struct {
		name string
		read func([]byte) (map[string]string, error)
	}{{spdxName, spdxArchives}, {cdxName, cdxArchives}} {
		p := filepath.Join(filepath.Dir(mf), doc.name)
		drel := path.Join(path.Dir(rel), doc.name)
		b, err := snap.ReadFile(p, 256<<20)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Path: drel, Err: err})
			continue
		}
		if m == nil {
			mb, err := snap.ReadFile(mf, redist.MaxJSON)
			if err != nil {
				return // verifyManifest reports it
			}
			if m, err = redist.ReadManifest(bytes.NewReader(mb)); err != nil {
				return // verifyManifest reports it
			}
		}
		got, err := doc.read(b)
		if err != nil {
			rep.Problems = append(rep.Problems, Problemf(drel, "bill of materials: %v", err))
			continue
		}
		want := map[string]string{}
		for _, c := range m.Components {
			for _, pa := range c.Artifacts() {
				want[path.Join(path.Dir(rel), pa.Artifact.RelativePath)] = pa.Artifact.SHA256
			}
		}
		for _, a := range slices.Sorted(maps.Keys(want)) {
			switch sum, ok := got[a]; {
			case !ok:
				rep.Problems = append(
					rep.Problems,
					Problemf(
						drel,
						"bill of materials does not list the archive %s (rerun %s with %s)",
						a,
						fault.RefConvert,
						fault.RefSBOM,
					),
				)
			case sum != want[a]:
				rep.Problems = append(
					rep.Problems,
					Problemf(
						drel,
						"bill of materials gives %s the sha256 %s, the manifest and the archive %s (rerun %s with %s)",
						a,
						sum,
						want[a],
						fault.RefConvert,
						fault.RefSBOM,
					),
				)
			}
		}
		dir := path.Dir(rel) + "/"
		for _, a := range slices.Sorted(maps.Keys(got)) {
			if _, ok := want[a]; !ok && strings.HasPrefix(a, dir) {
				rep.Problems = append(
					rep.Problems,
					Problemf(
						drel,
						"bill of materials lists the archive %s, which the manifest does not name (rerun %s with %s)",
						a,
						fault.RefConvert,
						fault.RefSBOM,
					),
				)
			}
		}
	}
}

// spdxArchives reads an SPDX 2.3 JSON document's archive files (type
// ARCHIVE, not inside another archive): path relative to OUT → sha256.
func spdxArchives(b []byte) (map[string]string, error) {
	var doc struct {
		SPDXVersion string `json:"spdxVersion"`
		Files       []struct {
			Name      string   `json:"fileName"`
			Types     []string `json:"fileTypes"`
			Checksums []struct {
				Algorithm string `json:"algorithm"`
				Value     string `json:"checksumValue"`
			} `json:"checksums"`
		} `json:"files"`
	}
	if err := jsonpos.Decode("", b, &doc, jsonpos.AllowUnknown); err != nil {
		return nil, fmt.Errorf("not SPDX JSON: %w", err)
	}
	if doc.SPDXVersion != "SPDX-2.3" {
		return nil, fmt.Errorf("spdxVersion is %q, want SPDX-2.3", doc.SPDXVersion)
	}
	out := map[string]string{}
	for _, f := range doc.Files {
		name := strings.TrimPrefix(f.Name, "./")
		if !slices.Contains(f.Types, "ARCHIVE") || !isArchiveName(name) {
			continue
		}
		for _, c := range f.Checksums {
			if c.Algorithm == "SHA256" {
				out[name] = c.Value
			}
		}
	}
	return out, nil
}

// cdxArchives reads a CycloneDX 1.6 JSON document's archive components
// (property debredist:archive): path relative to OUT → sha256.
func cdxArchives(b []byte) (map[string]string, error) {
	var doc struct {
		BOMFormat   string `json:"bomFormat"`
		SpecVersion string `json:"specVersion"`
		Components  []struct {
			Hashes []struct {
				Alg     string `json:"alg"`
				Content string `json:"content"`
			} `json:"hashes"`
			Properties []struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"properties"`
		} `json:"components"`
	}
	if err := jsonpos.Decode("", b, &doc, jsonpos.AllowUnknown); err != nil {
		return nil, fmt.Errorf("not CycloneDX JSON: %w", err)
	}
	if doc.BOMFormat != "CycloneDX" || doc.SpecVersion != "1.6" {
		return nil, fmt.Errorf("bomFormat %q specVersion %q, want CycloneDX 1.6", doc.BOMFormat, doc.SpecVersion)
	}
	out := map[string]string{}
	for _, c := range doc.Components {
		var name string
		for _, p := range c.Properties {
			if p.Name == "debredist:archive" {
				name = p.Value
			}
		}
		if name == "" {
			continue
		}
		for _, h := range c.Hashes {
			if h.Alg == "SHA-256" {
				out[name] = h.Content
			}
		}
	}
	return out, nil
}

func isArchiveName(p string) bool {
	_, _, ok := archive.TrimExt(p)
	return ok
}
