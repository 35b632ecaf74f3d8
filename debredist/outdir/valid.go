package outdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/publish"
)

// What every reader of OUT takes as output, defined once: verify reports
// what breaks it, and sbom, nix (all modes), diff and convert's look at
// its previous output read OUT through these and refuse (or, for convert,
// rebuild) what breaks it. A release is a manifest and its provenance
// sidecar, each valid (redist.ReadManifest, redist.ReadProvenance: names,
// versions, licenses, paths, hashes, bounded printable text) and agreeing
// on every archive (redist.CompareAll); an archive is a regular file of
// the generation of the size its manifest says, that no hard link outside
// OUT's generations can change (OpenArchive). Its content (one top
// directory named like the file, bounded decoding) is internal/archive's
// to check, as it decodes it.

// Product is one manifest of a Snapshot with its provenance sidecar.
type Product struct {
	Manifest string // its path relative to Out
	Sidecar  string // the sidecar's path relative to Out
	M        *redist.Manifest
	Prov     *redist.Provenance
}

// ReadProduct reads the manifest at p (a path of Manifests) and its
// provenance sidecar from the Snapshot, both valid, and checks that they
// describe the same archives alike: an error names the file and every
// disagreement.
func (s *Snapshot) ReadProduct(p string) (*Product, error) {
	f, err := s.Open(p)
	if err != nil {
		return nil, err
	}
	m, err := redist.ReadManifest(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", s.Path(p), err)
	}
	prov, side, err := s.ReadSidecar(p)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: its provenance sidecar: %w", s.Path(p), err)
	}
	if d := redist.CompareAll(m, prov); len(d) > 0 {
		return nil, fmt.Errorf(
			"manifest %s and its provenance sidecar %s disagree: %s",
			s.Path(p),
			s.Path(side),
			strings.Join(d, "; "),
		)
	}
	return &Product{Manifest: p, Sidecar: side, M: m, Prov: prov}, nil
}

// OpenArchive opens the archive at p (see Open) as its manifest names it:
// a regular file of the generation, size bytes long (compared by stat
// before a byte is read), not hard-linked to a file outside OUT's
// generations (LinksOutside). Anything else is an error naming it.
func (s *Snapshot) OpenArchive(p string, size int64) (*os.File, error) {
	f, err := s.Open(p)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.Size() != size {
		f.Close()
		return nil, fmt.Errorf("archive %s: size is %d bytes, the manifest says %d: not read", s.Path(p), st.Size(), size)
	}
	if n, nlink := s.LinksOutside(f, p); n > 0 {
		f.Close()
		return nil, &HardlinkError{Path: s.Path(p), Outside: n, Links: nlink}
	}
	return f, nil
}

// HardlinkError is an archive of OUT that shares its bytes with files
// outside OUT's generations (hard links): whoever can write one of them
// changes the archive.
type HardlinkError struct {
	Path           string
	Outside, Links int
}

func (e *HardlinkError) Error() string {
	return fmt.Sprintf(
		"%s is hard-linked to %d file(s) outside OUT (%d links): whoever writes one of them changes the archive; not read "+
			"(copy it instead of linking it)",
		e.Path,
		e.Outside,
		e.Links,
	)
}

// LinksOutside returns how many of the hard links of the open file f (at
// p, see Open) are outside OUT's generations, and its link count. A
// conversion links each unchanged file of the current generation into the
// next one at the same path (and a snapshot of a generation being built
// sees the current one's): those links count as OUT's own.
func (s *Snapshot) LinksOutside(f *os.File, p string) (outside, links int) {
	st, err := f.Stat()
	if err != nil {
		return 0, 0
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || sys.Nlink <= 1 {
		return 0, 1
	}
	links = int(sys.Nlink)
	rel := filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return links - 1, links
	}
	// OUT, and the generation read (its name under OUT/.debredist)
	out, own := s.Out, s.Gen
	if s.gen == nil && filepath.Base(filepath.Dir(s.Out)) == publish.GenDir && publish.IsGenName(filepath.Base(s.Out)) {
		out, own = filepath.Dir(filepath.Dir(s.Out)), filepath.Base(s.Out) // a generation being built
	}
	first, rest, _ := strings.Cut(rel, "/")
	// Where OUT itself links the file: the same path in its other
	// generations, and, half-way through the migration of an OUT written
	// before generations, its product directory and the old one set aside.
	var cands []string
	if own != "" {
		cands = append(cands, rel, publish.GenDir+"/old-"+first+"/"+rest)
	}
	d, err := os.OpenFile(out, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return links - 1, links
	}
	defer d.Close()
	if g, err := files.OpenBeneath(d, publish.GenDir, true); err == nil {
		names, _ := g.Readdirnames(-1)
		g.Close()
		for _, n := range names {
			if n != own && publish.IsGenName(n) {
				cands = append(cands, publish.GenDir+"/"+n+"/"+rel)
			}
		}
	}
	inside := 1
	for _, c := range cands {
		o, err := files.OpenBeneath(d, c, false)
		if err != nil {
			continue
		}
		if ost, err := o.Stat(); err == nil && os.SameFile(st, ost) {
			inside++
		}
		o.Close()
	}
	return max(links-inside, 0), links
}
