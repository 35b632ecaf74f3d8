package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/jsonpos"
	"github.com/debredist/debredist/internal/publish"
)

// Report is the outcome of Dir.
type Report struct {
	Dir       string   `json:"dir"`
	Manifests []string `json:"manifests"` // slash-separated, relative to Dir
	// Artifacts has one entry per manifest entry: an archive listed under
	// several platform keys (JetPack 7.2) is checked once per key.
	Artifacts []Archive `json:"artifacts"`
	Problems  []Problem `json:"problems"` // not tied to one artifact
}

// Archives counts the distinct archive files the manifests name.
func (r *Report) Archives() int {
	seen := map[string]bool{}
	for _, a := range r.Artifacts {
		seen[path.Join(path.Dir(a.Manifest), a.Path)] = true
	}
	return len(seen)
}

// Archive is the check of one archive named by a manifest.
type Archive struct {
	Manifest    string `json:"manifest"`
	Component   string `json:"component"`
	Platform    string `json:"platform"`
	CUDAVariant string `json:"cuda_variant,omitempty"`
	// Path is the manifest's relative_path: relative to the manifest's
	// directory (path.Join(path.Dir(Manifest), Path) is relative to Dir).
	Path     string    `json:"path"`
	Size     int64     `json:"size"`
	NAR      string    `json:"nar_hash,omitempty"`
	Problems []Problem `json:"problems"` // what is wrong with this archive; Path is "" (it is [Archive.Path])
}

// OK reports whether nothing is wrong.
func (r *Report) OK() bool { return r.Err() == nil }

// Problem is one thing wrong with an output directory, like x/mod/zip's
// FileError: the file it concerns and what is wrong. Err may wrap a public
// error of this package; a *Error unwraps to its problems.
// In JSON a Problem is its message (a string).
type Problem struct {
	Path string // slash-separated, relative to the checked directory; "" when no one file is concerned
	Err  error
	// Aside marks a problem with something that is not output (a link or
	// file debredist did not write, a stray or unlinked entry, a bill of
	// materials): [Report.OutputErr] leaves it out.
	Aside bool
}

func (p Problem) Error() string {
	if _, ok := p.Err.(*strayError); p.Path == "" || ok { // a stray's message names its file
		return p.Err.Error()
	}
	return p.Path + ": " + p.Err.Error()
}

// Unwrap returns Err.
func (p Problem) Unwrap() error { return p.Err }

// MarshalJSON writes the problem's message.
func (p Problem) MarshalJSON() ([]byte, error) { return json.Marshal(p.Error()) }

// UnmarshalJSON reads a message written by MarshalJSON (as Err; Path stays "").
func (p *Problem) UnmarshalJSON(b []byte) error {
	var s string
	if err := jsonpos.Unmarshal(b, &s); err != nil {
		return err
	}
	*p = Problem{Err: errors.New(s)}
	return nil
}

// Problemf is a Problem of the file at path (relative to the checked
// directory, "" for none) with a formatted message.
func Problemf(path, format string, a ...any) Problem {
	return Problem{Path: path, Err: fault.Errorf(format, a...)}
}

// Error lists everything Dir (or Convert's check of its own output, or
// Nixpkgs) found wrong.
type Error struct{ Problems []Problem }

func (e *Error) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	return fmt.Sprintf("%d problem(s):\n  %s", len(e.Problems), strings.Join(msgs, "\n  "))
}

// Unwrap returns every problem, so that [errors.Is] and [errors.As] reach the
// errors the problems wrap.
func (e *Error) Unwrap() []error {
	errs := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		errs[i] = p
	}
	return errs
}

// OutputErr is Err of the problems with what readers of OUT read (its
// manifests, provenance sidecars, license files and archives), leaving
// aside what is not output (links and files debredist did not write,
// stray or unlinked entries, the bills of materials beside the
// manifests): sbom and nix refuse an OUT for which it is not nil.
func (r *Report) OutputErr() error {
	var keep []Problem
	for _, p := range r.Problems {
		if !p.Aside {
			keep = append(keep, p)
		}
	}
	return (&Report{Problems: keep, Artifacts: r.Artifacts}).Err()
}

func markAside(ps []Problem) {
	for i := range ps {
		ps[i].Aside = true
	}
}

// Err returns a *Error listing every problem, or nil.
func (r *Report) Err() error {
	var all []Problem
	all = append(all, r.Problems...)
	for _, a := range r.Artifacts {
		for _, p := range a.Problems {
			all = append(all, Problem{Path: path.Join(path.Dir(a.Manifest), a.Path), Err: p.Err})
		}
	}
	if len(all) == 0 {
		return nil
	}
	return &Error{Problems: all}
}

// Dir re-reads every redistrib_*.json under dir and checks each archive
// it names: size, sha256 and md5, the one-top-directory rule (named like the
// file), entry safety (no absolute paths, escapes or devices), the license
// file, and the provenance sidecar's record of the archive. The returned
// error is for failures to run at all; what is wrong with the output is in
// the Report (see [Report.Err]).
//
// Dir reads one generation of dir ([outdir.Open]): when a conversion
// switches OUT while it reads and the old generation's removal makes a
// read fail, it reads the new one again from the start, up to
// maxRereads times.
func Dir(ctx context.Context, dir string) (*Report, error) {
	return reread(ctx, dir, "verify", DirSnapshot)
}

// maxRereads bounds how often Dir and Nixpkgs read OUT again after a
// conversion replaced the generation they read.
const maxRereads = 5

// reread runs check on a Snapshot of dir, and on a new one when a
// conversion replaced the generation meanwhile and the report found
// problems (the removal of the old generation failing a read), up to
// maxRereads times. what names the check in an error.
func reread[R interface{ Err() error }](
	ctx context.Context,
	dir, what string,
	check func(context.Context, *outdir.Snapshot) (R, error),
) (R, error) {
	dir = filepath.Clean(dir)
	for try := 0; ; try++ {
		s, err := outdir.Open(dir)
		if err != nil {
			var none R
			if noe := (*outdir.NotOutError)(nil); errors.As(err, &noe) {
				return none, err // it names dir, and says it all
			}
			return none, fmt.Errorf("%s %s: %w", what, dir, err)
		}
		rep, err := check(ctx, s)
		replaced := s.Replaced()
		_ = s.Close()
		if err == nil && replaced && rep.Err() != nil && try < maxRereads {
			continue
		}
		return rep, err
	}
}

// DirSnapshot is Dir on one Snapshot of OUT: every file it reads is of
// that generation.
func DirSnapshot(ctx context.Context, s *outdir.Snapshot) (*Report, error) {
	dir := s.Out
	rep := &Report{Dir: dir}
	found := s.Files
	manifests := found.Manifests
	// What is not output (links and files debredist did not write, stray
	// or unlinked entries) is reported aside: readers never take it.
	defer func(n int) { markAside(rep.Problems[n:]) }(len(rep.Problems))
	for _, p := range found.Foreign {
		l, _ := os.Readlink(s.Path(p))
		l = strconv.Quote(l) // the target is OUT's text: quoted, never raw on a terminal
		rep.Problems = append(rep.Problems, Problemf(p,
			"a symbolic link (to %s) that debredist did not write: not followed, its target is not verified", l))
	}
	for _, p := range found.Other {
		rep.Problems = append(rep.Problems, Problemf(p,
			"a file debredist did not write: not output, not verified (an output directory holds only what convert writes)"))
	}
	for _, p := range found.Outside {
		rep.Problems = append(rep.Problems, Problemf(p,
			"a directory that is no product of the current output (not debredist's, or a copy of one): not read, not verified"))
	}
	for _, p := range found.Dangling {
		rep.Problems = append(rep.Problems, Problemf(
			p,
			"a product link of debredist's (to %s) whose product the current output lacks: left by a run killed before it "+
				"switched (rerun convert to remove it)",
			publish.ProductLink(filepath.Base(p)),
		))
	}
	for _, p := range found.Unlinked {
		rep.Problems = append(rep.Problems, Problemf(
			p,
			"product %s is in the current output (%s) but has no link in OUT: a run was killed after it switched (rerun "+
				"convert to link it)",
			p,
			publish.ProductLink(p),
		))
	}
	for _, p := range found.Strays {
		// NVIDIA's shell-parse.sh takes every redistrib_* file for a release.
		what := "is not a redistrib_<label>.json manifest"
		if strings.HasSuffix(p, redist.LegacySidecarSuffix) {
			what = "is a provenance sidecar under its old name (rerun convert to rename it)"
		}
		rep.Problems = append(rep.Problems, Problem{Path: p, Err: &strayError{p, what}})
	}
	if len(manifests) == 0 {
		rep.Problems = append(rep.Problems, Problemf("", "no redistrib_*.json manifest under %s", dir))
	}
	for _, mf := range manifests {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rep.Manifests = append(rep.Manifests, mf)
		verifyManifest(ctx, s, rep, mf)
		n := len(rep.Problems)
		verifySBOM(s, rep, mf)      // sbom.go
		markAside(rep.Problems[n:]) // the documents are not what readers read
	}
	return rep, ctx.Err()
}

func verifyManifest(ctx context.Context, s *outdir.Snapshot, rep *Report, rel string) {
	mf := rel
	f, err := s.Open(mf)
	if err != nil {
		rep.Problems = append(rep.Problems, Problem{Path: rel, Err: err})
		return
	}
	m, err := redist.ReadManifest(f)
	f.Close()
	if err != nil {
		rep.Problems = append(rep.Problems, Problem{Path: rel, Err: err})
		return
	}
	base := filepath.Dir(mf)
	// The sidecar's records by relative path; nil when there is no
	// sidecar to read (a problem of its own). Once read, every archive the
	// manifest names must have a record: an emptied record list turns no
	// check off.
	var prov map[string]redist.Archive
	// A legacy-named sidecar is reported by Dir's walk, and still checked
	// against here.
	switch p, _, err := s.ReadSidecar(mf); {
	case errors.Is(err, fs.ErrNotExist):
		rep.Problems = append(rep.Problems, Problemf(rel, "provenance sidecar missing: %w", err))
	case err != nil:
		rep.Problems = append(rep.Problems, Problemf(rel, "provenance sidecar unreadable: %w", err))
	default:
		prov = map[string]redist.Archive{}
		for _, a := range p.Archives {
			prov[a.RelativePath] = a
		}
	}
	named := map[string]bool{}
	// An archive listed under several platform keys (JetPack 7.2) is
	// decoded once: a key naming the same file with the same hashes and
	// size gets the first key's findings.
	type seen struct{ rel, sha, size, md5 string }
	checked := map[seen]Archive{}
	platforms := map[string][]string{} // relative_path -> the platform keys naming it
	for _, c := range m.Components {
		for _, pa := range c.Artifacts() {
			platforms[pa.Artifact.RelativePath] = append(platforms[pa.Artifact.RelativePath], pa.Platform)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.Components)) {
		c := m.Components[name]
		if c.LicensePath != "" {
			if p, ok := redist.CleanRelativePath(c.LicensePath); !ok {
				rep.Problems = append(rep.Problems, Problemf(rel, "%s: license_path %s is unsafe", name, c.LicensePath))
			} else if f, err := s.Open(filepath.Join(base, p)); err != nil {
				rep.Problems = append(rep.Problems, Problemf(rel, "%s: license_path %s: %w", name, c.LicensePath, err))
			} else {
				f.Close()
			}
		}
		for _, pa := range c.Artifacts() {
			ar := Archive{
				Manifest:    rel,
				Component:   name,
				Platform:    pa.Platform,
				CUDAVariant: pa.CUDAVariant,
				Path:        pa.Artifact.RelativePath,
			}
			k := seen{pa.Artifact.RelativePath, pa.Artifact.SHA256, pa.Artifact.Size, pa.Artifact.MD5}
			if first, ok := checked[k]; ok {
				ar.Size, ar.NAR, ar.Problems = first.Size, first.NAR, slices.Clone(first.Problems)
			} else {
				verifyArtifact(ctx, s, &ar, base, pa.Artifact, prov)
				checked[k] = ar
			}
			if rec, ok := prov[pa.Artifact.RelativePath]; ok {
				for _, d := range redist.Compare(name, c, pa, rec, platforms[pa.Artifact.RelativePath]) {
					ar.Problems = append(ar.Problems, Problemf("", "%s", d))
				}
			}
			rep.Artifacts = append(rep.Artifacts, ar)
			named[pa.Artifact.RelativePath] = true
		}
	}
	for _, p := range slices.Sorted(maps.Keys(prov)) {
		if !named[p] {
			rep.Problems = append(
				rep.Problems,
				Problemf(rel, "the provenance sidecar records %s, which the manifest does not name", p),
			)
		}
	}
}

func verifyArtifact(
	ctx context.Context,
	s *outdir.Snapshot,
	ar *Archive,
	base string,
	a *redist.Artifact,
	prov map[string]redist.Archive,
) {
	bad := func(format string, v ...any) { ar.Problems = append(ar.Problems, Problemf("", format, v...)) }
	p, ok := redist.CleanRelativePath(a.RelativePath)
	if !ok {
		bad("relative_path is absolute or escapes the manifest's directory")
		return
	}
	f, err := s.Open(filepath.Join(base, p))
	if err != nil {
		bad("%w", err)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		bad("%w", err)
		return
	}
	ar.Size = st.Size()
	if n, links := s.LinksOutside(f, filepath.Join(base, p)); n > 0 {
		bad(
			"hard-linked to %d file(s) outside OUT (%d links): whoever writes one of them changes the archive (copy it "+
				"instead of linking it)",
			n,
			links,
		)
	}
	// The sizes first, by stat: a file of another size is not the archive,
	// and is not read (it could be terabytes).
	if want, err := a.Bytes(); err != nil || want != st.Size() {
		bad("size is %d bytes, manifest says %s: not read further", st.Size(), a.Size)
		return
	}
	if rec, ok := prov[a.RelativePath]; ok && rec.Size != st.Size() {
		bad("size is %d bytes, the provenance sidecar records %d: not read further", st.Size(), rec.Size)
		return
	}
	r, err := archive.Inspect(ctx, f)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		// An archive that does not decode is first of all not the bytes
		// its manifest names: say so, and why it does not decode after.
		if sum, herr := files.HashFile(ctx, f, st.Size()); herr == nil && sum != a.SHA256 {
			bad(
				"sha256 is %s, manifest says %s: the archive is damaged or was replaced (it does not decode: %v)",
				sum,
				a.SHA256,
				strings.TrimPrefix(err.Error(), "archive: "),
			)
			return
		}
		bad("%w", err) // internal/archive's errors name it ("archive: …")
		return
	}
	ar.NAR = r.NAR
	if r.SHA256 != a.SHA256 {
		bad("sha256 is %s, manifest says %s", r.SHA256, a.SHA256)
	}
	if a.MD5 != "" && r.MD5 != a.MD5 {
		bad("md5 is %s, manifest says %s", r.MD5, a.MD5)
	}
	if want := archive.TopName(path.Base(a.RelativePath)); r.Top != want {
		bad(
			"top-level directory is %s, want %s (the file name without its extension)",
			jsonpos.Quote(r.Top),
			jsonpos.Quote(want),
		)
	}
	if rec, ok := prov[a.RelativePath]; ok {
		if rec.SHA256 != r.SHA256 || rec.NAR != r.NAR || rec.Size != st.Size() || (rec.MD5 != "" && rec.MD5 != r.MD5) {
			bad(
				"provenance records size %d sha256 %s md5 %s nar %s, archive has %d %s %s %s",
				rec.Size,
				rec.SHA256,
				rec.MD5,
				rec.NAR,
				st.Size(),
				r.SHA256,
				r.MD5,
				r.NAR,
			)
		}
	} else if prov != nil {
		bad("not recorded in the provenance sidecar")
	}
}

// strayError is a redistrib_* file that is not a manifest; its message
// names the file itself.
type strayError struct{ path, what string }

func (e *strayError) Error() string {
	return e.path + " " + e.what + ", but NVIDIA's shell-parse.sh takes every redistrib_* file for a release"
}

// Readable refuses an OUT (the Snapshot a reader reads) that Dir finds
// anything wrong with in what readers read ([Report.OutputErr]): what verify
// refuses, no other reader (sbom, nix) turns into output. The error is
// one line.
func Readable(ctx context.Context, snap *outdir.Snapshot) error {
	rep, err := DirSnapshot(ctx, snap)
	if err != nil {
		return err
	}
	var ve *Error
	if !errors.As(rep.OutputErr(), &ve) {
		return nil
	}
	var msgs []string
	for _, p := range ve.Problems[:min(len(ve.Problems), 3)] {
		msgs = append(msgs, p.Error())
	}
	more := ""
	if n := len(ve.Problems) - len(msgs); n > 0 {
		more = fmt.Sprintf("; and %d more", n)
	}
	return fault.Errorf(
		"%s is not a valid output, %d problem(s): %s%s (%s tells more)",
		snap.Out,
		len(ve.Problems),
		strings.Join(msgs, "; "),
		more,
		fault.RefVerify,
	)
}
