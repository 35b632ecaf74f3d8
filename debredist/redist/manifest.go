package redist

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/debredist/debredist/internal/jsonpos"
)

// Manifest is an NVIDIA redistrib_<label>.json: a release of one product
// (cuda, cudnn, tensorrt, …) and the archives of its components.
//
// It unmarshals NVIDIA's real manifests and marshals in NVIDIA's layout:
// release_date, release_label, release_product first, then components by
// name; inside a component name, license, license_path, version,
// cuda_variant, then platforms; 4-space indentation.
type Manifest struct {
	ReleaseDate    string
	ReleaseLabel   string
	ReleaseProduct string
	Components     map[string]*Component
}

// Component is one redist package of a manifest.
type Component struct {
	Name        string
	License     string
	LicensePath string
	Version     string
	// CUDAVariant lists the CUDA majors the component is built for
	// ("cuda_variant": ["12"]); its platforms then hold Variants.
	CUDAVariant []string
	Platforms   map[string]*Platform
	// Extra keeps fields debredist does not know, verbatim.
	Extra map[string]json.RawMessage
}

// Platform holds either one artifact or, for components with CUDA
// variants, one artifact per "cuda<MAJOR>" key.
type Platform struct {
	Artifact *Artifact
	Variants map[string]*Artifact
}

// Artifact is one archive: its path relative to the manifest's directory
// and its size and digests.
type Artifact struct {
	RelativePath string `json:"relative_path"`
	SHA256       string `json:"sha256"`
	MD5          string `json:"md5,omitempty"`
	Size         string `json:"size"` // decimal bytes, a string as NVIDIA's schema has it: see Bytes
}

// Bytes is Size as a number of bytes, as every other size debredist
// reports is; an error when Size is not a non-negative decimal integer.
func (a *Artifact) Bytes() (int64, error) {
	n, err := strconv.ParseInt(a.Size, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf(
			"artifact %s: size %s is not a number of bytes",
			jsonpos.Quote(a.RelativePath),
			jsonpos.Quote(a.Size),
		)
	}
	return n, nil
}

// Artifacts lists every artifact of the component with its platform and
// variant ("" when the component has none), in a stable order.
func (c *Component) Artifacts() []PlatformArtifact {
	var out []PlatformArtifact
	for _, p := range slices.Sorted(maps.Keys(c.Platforms)) {
		pl := c.Platforms[p]
		if pl.Artifact != nil {
			out = append(out, PlatformArtifact{Platform: p, Artifact: pl.Artifact})
		}
		for _, v := range slices.Sorted(maps.Keys(pl.Variants)) {
			out = append(
				out,
				PlatformArtifact{Platform: p, CUDAVariant: strings.TrimPrefix(v, "cuda"), Artifact: pl.Variants[v]},
			)
		}
	}
	return out
}

// PlatformArtifact is an artifact with the keys it sits under: its
// platform and its CUDA variant, spelled as everywhere in debredist's Go
// and JSON ("12", "13.2"; "" for none). VariantKey spells it as the
// manifest's key.
type PlatformArtifact struct {
	Platform, CUDAVariant string
	Artifact              *Artifact
}

// VariantKey is the manifest key NVIDIA nests the artifact of a CUDA
// variant under ("cuda12" for "12", "cuda13.2" for "13.2"), the key of
// [Platform.Variants].
func VariantKey(cudaVariant string) string { return "cuda" + cudaVariant }

var variantKeyRE = regexp.MustCompile(`^cuda[0-9]+(\.[0-9]+)?$`) // cuda13, and cuda13.2 (cuda_compat from CUDA 13)

// UnmarshalJSON reads NVIDIA's manifest format (strictly, as debredist
// reads every JSON input: keys case-sensitive, none twice). Its errors are
// the JSON reader's, located by the caller's decoder ([ReadManifest]
// names line and column).
func (m *Manifest) UnmarshalJSON(b []byte) error {
	var top map[string]json.RawMessage
	if err := jsonpos.Unmarshal(b, &top); err != nil {
		return err
	}
	*m = Manifest{Components: map[string]*Component{}}
	var fields struct {
		ReleaseDate    string `json:"release_date"`
		ReleaseLabel   string `json:"release_label"`
		ReleaseProduct string `json:"release_product"`
	}
	if err := jsonpos.Unmarshal(b, &fields, jsonpos.AllowUnknown); err != nil {
		return err
	}
	m.ReleaseDate, m.ReleaseLabel, m.ReleaseProduct = fields.ReleaseDate, fields.ReleaseLabel, fields.ReleaseProduct
	for k, raw := range top {
		switch k {
		case "release_date", "release_label", "release_product":
		default:
			c := &Component{}
			if err := jsonpos.Unmarshal(raw, c); err != nil {
				return fmt.Errorf("component %s: %w", jsonpos.Quote(k), err)
			}
			m.Components[k] = c
		}
	}
	return nil
}

// UnmarshalJSON reads one component.
func (c *Component) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := jsonpos.Unmarshal(b, &fields); err != nil {
		return err
	}
	var known struct {
		Name        string   `json:"name"`
		License     string   `json:"license"`
		LicensePath string   `json:"license_path"`
		Version     string   `json:"version"`
		CUDAVariant []string `json:"cuda_variant"`
	}
	if err := jsonpos.Unmarshal(b, &known, jsonpos.AllowUnknown); err != nil {
		return err
	}
	*c = Component{Name: known.Name, License: known.License, LicensePath: known.LicensePath, Version: known.Version,
		CUDAVariant: known.CUDAVariant, Platforms: map[string]*Platform{}}
	for k, raw := range fields {
		switch k {
		case "name", "license", "license_path", "version", "cuda_variant":
			continue
		}
		trimmed := bytes.TrimSpace(raw)
		if len(trimmed) == 0 || trimmed[0] != '{' {
			if c.Extra == nil {
				c.Extra = map[string]json.RawMessage{}
			}
			c.Extra[k] = raw
			continue
		}
		// Every object-valued key is a platform (as nixpkgs reads it).
		var obj map[string]json.RawMessage
		if err := jsonpos.Unmarshal(raw, &obj); err != nil {
			return err
		}
		p := &Platform{}
		if _, ok := obj["relative_path"]; ok {
			p.Artifact = &Artifact{}
			if err := jsonpos.Unmarshal(raw, p.Artifact, jsonpos.AllowUnknown); err != nil {
				return fmt.Errorf("platform %s: %w", jsonpos.Quote(k), err)
			}
		} else {
			p.Variants = map[string]*Artifact{}
			for v, vraw := range obj {
				if !variantKeyRE.MatchString(v) {
					return fmt.Errorf(
						"platform %s: unexpected key %s (want relative_path or cuda<MAJOR>[.<MINOR>])",
						jsonpos.Quote(k),
						jsonpos.Quote(v),
					)
				}
				a := &Artifact{}
				if err := jsonpos.Unmarshal(vraw, a, jsonpos.AllowUnknown); err != nil {
					return fmt.Errorf("platform %s/%s: %w", jsonpos.Quote(k), v, err)
				}
				p.Variants[v] = a
			}
		}
		c.Platforms[k] = p
	}
	return nil
}

// MarshalJSON writes NVIDIA's layout (see Manifest).
func (m *Manifest) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	w := &objWriter{buf: &buf}
	w.open()
	w.field("release_date", m.ReleaseDate)
	w.field("release_label", m.ReleaseLabel)
	w.field("release_product", m.ReleaseProduct)
	for _, k := range slices.Sorted(maps.Keys(m.Components)) {
		b, err := m.Components[k].MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("component %s: %w", k, err)
		}
		w.raw(k, b)
	}
	w.close()
	return buf.Bytes(), nil
}

// MarshalJSON writes one component in NVIDIA's key order.
func (c *Component) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	w := &objWriter{buf: &buf}
	w.open()
	w.field("name", c.Name)
	w.field("license", c.License)
	if c.LicensePath != "" {
		w.field("license_path", c.LicensePath)
	}
	w.field("version", c.Version)
	if c.CUDAVariant != nil {
		w.field("cuda_variant", c.CUDAVariant)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Extra)) {
		w.raw(k, c.Extra[k])
	}
	for _, p := range slices.Sorted(maps.Keys(c.Platforms)) {
		pl := c.Platforms[p]
		if pl.Artifact != nil {
			w.field(p, pl.Artifact)
			continue
		}
		vs := &objWriter{buf: &bytes.Buffer{}}
		vs.open()
		for _, v := range slices.Sorted(maps.Keys(pl.Variants)) {
			vs.field(v, pl.Variants[v])
		}
		vs.close()
		w.raw(p, vs.buf.Bytes())
	}
	w.close()
	return buf.Bytes(), nil
}

type objWriter struct {
	buf *bytes.Buffer
	n   int
}

func (w *objWriter) open()  { w.buf.WriteByte('{') }
func (w *objWriter) close() { w.buf.WriteByte('}') }
func (w *objWriter) raw(k string, v []byte) {
	if w.n > 0 {
		w.buf.WriteByte(',')
	}
	w.n++
	kb, _ := json.Marshal(k)
	w.buf.Write(kb)
	w.buf.WriteByte(':')
	w.buf.Write(v)
}
func (w *objWriter) field(k string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // strings, slices and Artifacts always marshal
	}
	w.raw(k, b)
}

// WriteManifest writes m as NVIDIA formats it: 4-space indentation and a
// trailing newline.
func WriteManifest(w io.Writer, m *Manifest) error {
	b, err := m.MarshalJSON()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "    "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// ReadManifest parses a manifest: at most [MaxJSON] bytes, read as every
// JSON input is (bounded nesting, keys case-sensitive, none twice, errors
// with line and column), and valid ([Manifest.Check]).
func ReadManifest(r io.Reader) (*Manifest, error) {
	b, err := jsonpos.ReadAll("", r, MaxJSON)
	if err != nil {
		return nil, err
	}
	m := &Manifest{}
	if err := jsonpos.Decode("", b, m); err != nil {
		return nil, err
	}
	if m.ReleaseProduct == "" && m.ReleaseLabel == "" {
		return nil, fmt.Errorf("not a redist manifest: no release_label or release_product")
	}
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("not a valid manifest: %w", err)
	}
	return m, nil
}

// ArchiveName is the file name of a redist archive:
// <pname>-<platform>-<version>[_cuda<variant>]-archive<ext>, where ext
// includes its dot (".tar.xz") and a variant "12" or "13.2" gives
// "_cuda12" or "_cuda13.2".
func ArchiveName(pname, platform, version, cudaVariant, ext string) string {
	name := pname + "-" + platform + "-" + version
	if cudaVariant != "" {
		name += "_cuda" + cudaVariant
	}
	return name + "-archive" + ext
}

// CleanRelativePath checks that a relative_path stays below the
// manifest's directory and returns it as a local path.
func CleanRelativePath(p string) (string, bool) {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || strings.ContainsRune(p, 0) {
		return "", false
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return filepath.FromSlash(c), true
}
