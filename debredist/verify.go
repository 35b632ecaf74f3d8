package debredist

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/debredist/debredist/internal/archive"
)

// Report is the outcome of Verify.
type Report struct {
	Dir       string           `json:"dir"`
	Manifests []string         `json:"manifests"`
	Artifacts []ArtifactReport `json:"artifacts"`
	Problems  []string         `json:"problems,omitempty"` // not tied to one artifact
}

// ArtifactReport is the check of one archive named by a manifest.
type ArtifactReport struct {
	Manifest  string   `json:"manifest"`
	Component string   `json:"component"`
	Platform  string   `json:"platform"`
	Variant   string   `json:"cuda_variant,omitempty"`
	Path      string   `json:"path"`
	Size      int64    `json:"size"`
	NAR       string   `json:"nar_hash,omitempty"`
	Problems  []string `json:"problems,omitempty"`
}

// OK reports whether nothing is wrong.
func (r *Report) OK() bool { return r.Err() == nil }

// VerifyError lists everything Verify found wrong.
type VerifyError struct{ Problems []string }

func (e *VerifyError) Error() string {
	return fmt.Sprintf("%d problem(s):\n  %s", len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// Err returns a *VerifyError listing every problem, or nil.
func (r *Report) Err() error {
	var all []string
	all = append(all, r.Problems...)
	for _, a := range r.Artifacts {
		for _, p := range a.Problems {
			all = append(all, a.Path+": "+p)
		}
	}
	if len(all) == 0 {
		return nil
	}
	return &VerifyError{Problems: all}
}

// Verify re-reads every redistrib_*.json under dir and checks each archive
// it names: size, sha256 and md5, the one-top-directory rule (named like the
// file), entry safety (no absolute paths, escapes or devices), the license
// file, and the provenance sidecar's record of the archive. The returned
// error is for failures to run at all; what is wrong with the output is in
// the Report (see Report.Err).
func Verify(ctx context.Context, dir string) (*Report, error) {
	rep := &Report{Dir: dir}
	manifests, strays, err := listManifests(dir)
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", dir, err)
	}
	for _, p := range strays {
		// NVIDIA's shell-parse.sh takes every redistrib_* file for a release.
		rel, _ := filepath.Rel(dir, p)
		what := "is not a redistrib_<label>.json manifest"
		if strings.HasSuffix(p, legacySidecarSuffix) {
			what = "is a provenance sidecar under its old name (rerun convert to rename it)"
		}
		rep.Problems = append(rep.Problems, fmt.Sprintf("%s %s, but NVIDIA's shell-parse.sh takes every redistrib_* file for a release", filepath.ToSlash(rel), what))
	}
	if len(manifests) == 0 {
		rep.Problems = append(rep.Problems, "no redistrib_*.json manifest under "+dir)
	}
	for _, mf := range manifests {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(dir, mf)
		rep.Manifests = append(rep.Manifests, filepath.ToSlash(rel))
		verifyManifest(ctx, rep, mf, filepath.ToSlash(rel))
	}
	return rep, ctx.Err()
}

// listManifests returns the redistrib_<label>.json manifests under dir
// (following OUT's product symlinks; not in the generations or the
// temporary directory) and the other files whose names
// start with redistrib_.
func listManifests(dir string) (manifests, strays []string, err error) {
	err = walkOutput(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == tmpName:
			return filepath.SkipDir
		case d.IsDir():
		case isManifestName(d.Name()):
			manifests = append(manifests, p)
		case strings.HasPrefix(d.Name(), manifestPrefix):
			strays = append(strays, p)
		}
		return nil
	})
	return manifests, strays, err
}

func verifyManifest(ctx context.Context, rep *Report, mf, rel string) {
	f, err := os.Open(mf)
	if err != nil {
		rep.Problems = append(rep.Problems, rel+": "+err.Error())
		return
	}
	m, err := ReadManifest(f)
	f.Close()
	if err != nil {
		rep.Problems = append(rep.Problems, rel+": "+err.Error())
		return
	}
	base := filepath.Dir(mf)
	prov := map[string]provArchive{}
	provFile, legacy := sidecarFor(mf)
	if fileSize(provFile) < 0 && fileSize(legacy) >= 0 {
		provFile = legacy // reported by Verify's walk; still checked against
	}
	if b, err := os.ReadFile(provFile); err != nil {
		rep.Problems = append(rep.Problems, rel+": provenance sidecar missing: "+err.Error())
	} else {
		var p Provenance
		if err := json.Unmarshal(b, &p); err != nil {
			rep.Problems = append(rep.Problems, rel+": provenance sidecar unreadable: "+err.Error())
		}
		for _, a := range p.Archives {
			prov[a.RelativePath] = a
		}
	}
	named := map[string]bool{}
	for _, name := range sortedKeys(m.Components) {
		c := m.Components[name]
		if c.LicensePath != "" {
			if p, ok := safeRel(c.LicensePath); !ok || fileSize(filepath.Join(base, p)) < 0 {
				rep.Problems = append(rep.Problems, fmt.Sprintf("%s: %s: license_path %s is missing or unsafe", rel, name, c.LicensePath))
			}
		}
		for _, pa := range c.Artifacts() {
			ar := ArtifactReport{Manifest: rel, Component: name, Platform: pa.Platform, Variant: pa.Variant, Path: pa.Artifact.RelativePath}
			verifyArtifact(ctx, &ar, base, pa.Artifact, prov)
			rep.Artifacts = append(rep.Artifacts, ar)
			named[pa.Artifact.RelativePath] = true
		}
	}
	for _, p := range sortedKeys(prov) {
		if !named[p] {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: the provenance sidecar records %s, which the manifest does not name", rel, p))
		}
	}
}

func verifyArtifact(ctx context.Context, ar *ArtifactReport, base string, a *Artifact, prov map[string]provArchive) {
	bad := func(format string, v ...any) { ar.Problems = append(ar.Problems, fmt.Sprintf(format, v...)) }
	p, ok := safeRel(a.RelativePath)
	if !ok {
		bad("relative_path is absolute or escapes the manifest's directory")
		return
	}
	f, err := os.Open(filepath.Join(base, p))
	if err != nil {
		bad("%v", err)
		return
	}
	defer f.Close()
	st, _ := f.Stat()
	ar.Size = st.Size()
	if want, err := strconv.ParseInt(a.Size, 10, 64); err != nil || want != st.Size() {
		bad("size is %d bytes, manifest says %s", st.Size(), a.Size)
	}
	r, err := archive.Inspect(ctx, f)
	if err != nil {
		bad("archive: %v", err)
		return
	}
	ar.NAR = r.NAR
	if r.SHA256 != a.SHA256 {
		bad("sha256 is %s, manifest says %s", r.SHA256, a.SHA256)
	}
	if a.MD5 != "" && r.MD5 != a.MD5 {
		bad("md5 is %s, manifest says %s", r.MD5, a.MD5)
	}
	if want := topName(path.Base(a.RelativePath)); r.Top != want {
		bad("top-level directory is %q, want %q (the file name without its extension)", r.Top, want)
	}
	if rec, ok := prov[a.RelativePath]; ok {
		if rec.SHA256 != r.SHA256 || rec.NAR != r.NAR || rec.Size != st.Size() || (rec.MD5 != "" && rec.MD5 != r.MD5) {
			bad("provenance records size %d sha256 %s md5 %s nar %s, archive has %d %s %s %s", rec.Size, rec.SHA256, rec.MD5, rec.NAR, st.Size(), r.SHA256, r.MD5, r.NAR)
		}
	} else if len(prov) > 0 {
		bad("not recorded in the provenance sidecar")
	}
}

func topName(file string) string {
	for _, ext := range []string{".tar.xz", ".tar.zst", ".tar.gz"} {
		if strings.HasSuffix(file, ext) {
			return strings.TrimSuffix(file, ext)
		}
	}
	return file
}

// safeRel checks a manifest path stays below the manifest's directory.
func safeRel(p string) (string, bool) {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || strings.ContainsRune(p, 0) {
		return "", false
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return filepath.FromSlash(c), true
}
