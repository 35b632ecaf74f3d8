package outdir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/jsonpos"
	"github.com/debredist/debredist/internal/publish"
)

// Snapshot is one consistent read of OUT: the generation that
// OUT/.debredist/current named when Open resolved it, once, and every file
// opened through it comes from that generation (or, in an OUT written
// before generations, from OUT's own product directories). Files are
// opened below the generation without following any symbolic link, and
// only regular files are read: OUT is untrusted.
//
// A conversion that switches OUT while a Snapshot is read removes the old
// generation; files already open stay readable, later opens fail. Replaced
// reports that, and the reader reads again from a new Snapshot.
type Snapshot struct {
	Files        // what is in the generation, paths relative to Out as reached through OUT's product links
	Out   string // OUT, cleaned
	// Gen is the generation read ("gen-3"), "" for an OUT without
	// generations.
	Gen      string
	top, gen *os.File
	products map[string]bool // products read from gen (the rest from top)
}

// Open resolves OUT's current generation once and lists its manifests,
// provenance sidecars, stray redistrib_* files, the links debredist did not
// write, and the state of its own product links (see Files). The caller
// closes the Snapshot.
func Open(out string) (*Snapshot, error) {
	out = filepath.Clean(out)
	top, err := os.OpenFile(out, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if ok, err := isOut(top); err != nil || !ok {
		top.Close()
		if err == nil {
			err = &NotOutError{Dir: out}
		}
		return nil, err
	}
	for try := 0; ; try++ {
		s := &Snapshot{Out: out, top: top, products: map[string]bool{}}
		err := s.resolve()
		if err == nil {
			err = s.list()
		}
		if err == nil {
			return s, nil
		}
		replaced := s.Replaced()
		if s.gen != nil {
			s.gen.Close()
		}
		if !replaced || try == maxTries {
			top.Close()
			return nil, err
		}
		// a conversion switched and removed the generation while it was
		// listed: list the new one
		if _, err := top.Seek(0, io.SeekStart); err != nil {
			top.Close()
			return nil, err
		}
	}
}

// maxTries bounds how often Open lists OUT again after a conversion
// removed the generation it was listing.
const maxTries = 10

// resolve opens the generation current names (retrying when a switch
// removed it between the readlink and the open).
func (s *Snapshot) resolve() error {
	for try := 0; ; try++ {
		cur, err := os.Readlink(filepath.Join(s.Out, publish.GenDir, publish.Current))
		if err != nil {
			return nil // no generations: products are OUT's own directories
		}
		if !publish.IsGenName(cur) {
			return &CurrentError{Path: filepath.Join(s.Out, publish.GenDir, publish.Current), Target: cur}
		}
		if st, err := os.Lstat(filepath.Join(s.Out, publish.GenDir)); err != nil || !st.IsDir() {
			return nil // .debredist is not debredist's: its links are not followed (Foreign)
		}
		g, err := files.OpenBeneath(s.top, publish.GenDir+"/"+cur, true)
		if errors.Is(err, fs.ErrNotExist) && try < maxTries {
			continue
		}
		if err != nil {
			return fmt.Errorf("opening the current generation of %s: %w", s.Out, err)
		}
		s.gen, s.Gen = g, cur
		return nil
	}
}

// list fills Files: OUT's entries, and each product's tree in the
// generation.
func (s *Snapshot) list() error {
	ents, err := s.top.ReadDir(-1)
	if err != nil {
		return err
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	genProducts, err := s.genProducts()
	if err != nil {
		return err
	}
	for _, e := range ents {
		name, p := e.Name(), e.Name()
		switch {
		case name == publish.GenDir || name == publish.TmpDir:
			continue
		case e.Type()&fs.ModeSymlink != 0:
			if !publish.IsOwnLink(s.Out, name) {
				s.Foreign = append(s.Foreign, p)
			} else if s.gen == nil || !slices.Contains(genProducts, name) {
				s.Dangling = append(s.Dangling, p)
			} else {
				s.products[name] = true
				if err := s.walk(s.gen, name); err != nil {
					return err
				}
			}
		case e.IsDir() && s.gen != nil && !slices.Contains(genProducts, name):
			// a directory of OUT's that the generation has no product
			// of: not output, never read as such
			s.Outside = append(s.Outside, p)
		case !e.IsDir() && name == publish.MutexFile:
		case !e.IsDir() && !redist.IsSidecarName(name) && !strings.HasPrefix(name, redist.ManifestPrefix):
			// a file, pipe or device in OUT itself: not debredist's
			s.Other = append(s.Other, p)
		case e.IsDir():
			root := s.top // a product directory of an OUT without generations
			if s.gen != nil && slices.Contains(genProducts, name) {
				// half-way through the migration to generations: the
				// generation holds the same files
				root = s.gen
				s.products[name] = true
			}
			if err := s.walk(root, name); err != nil {
				return err
			}
		default:
			s.file(name, e)
		}
	}
	for _, p := range genProducts {
		if _, err := os.Lstat(filepath.Join(s.Out, p)); errors.Is(err, fs.ErrNotExist) {
			s.Unlinked = append(s.Unlinked, p)
		}
	}
	return nil
}

// genProducts lists the product directories of the generation: real
// directories holding a real redist/ directory (a link there is Foreign).
func (s *Snapshot) genProducts() ([]string, error) {
	if s.gen == nil {
		return nil, nil
	}
	ents, err := s.gen.ReadDir(-1)
	if _, serr := s.gen.Seek(0, io.SeekStart); err == nil {
		err = serr
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.gen.Name(), err)
	}
	var ps []string
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if d, err := files.OpenBeneath(s.gen, e.Name()+"/redist", true); err == nil {
			d.Close()
			ps = append(ps, e.Name())
		}
	}
	slices.Sort(ps)
	return ps, nil
}

// walk lists the tree rel below root, never following a link.
func (s *Snapshot) walk(root *os.File, rel string) error {
	d, err := files.OpenBeneath(root, rel, true)
	if err != nil {
		return fmt.Errorf("reading %s: %w", s.Path(rel), err)
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return fmt.Errorf("reading %s: %w", s.Path(rel), err)
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range ents {
		q := rel + "/" + e.Name()
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			s.Foreign = append(s.Foreign, q)
		case e.IsDir():
			if err := s.walk(root, q); err != nil {
				return err
			}
		default:
			s.file(q, e)
		}
	}
	return nil
}

// file sorts a file (not a link, not a directory) by its name.
func (s *Snapshot) file(rel string, e fs.DirEntry) {
	p, name := rel, e.Name()
	if redist.IsSidecarName(name) {
		s.Sidecars = append(s.Sidecars, p)
	}
	switch {
	case redist.IsManifestName(name):
		s.Manifests = append(s.Manifests, p)
	case strings.HasPrefix(name, redist.ManifestPrefix):
		s.Strays = append(s.Strays, p)
	}
}

// Path is the path of p (relative to Out, as Files names them) as OUT
// shows it: Out joined with p. Errors name files by it.
func (s *Snapshot) Path(p string) string { return filepath.Join(s.Out, filepath.FromSlash(p)) }

// Paths is Path of each of ps.
func (s *Snapshot) Paths(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = s.Path(p)
	}
	return out
}

// Open opens the regular file at p, a path relative to Out as Files names
// them (<product>/redist/…), from the Snapshot's generation: no symbolic
// link is followed (the error names the link), nothing but a regular file
// is opened (the error names the file and its type), and once the
// generation was removed the error wraps ErrReplaced.
func (s *Snapshot) Open(p string) (*os.File, error) {
	rel := filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, fmt.Errorf("%s is not a path relative to %s", p, s.Out)
	}
	root := s.top
	if first, _, _ := strings.Cut(rel, "/"); s.products[first] {
		root = s.gen
	}
	f, err := files.OpenBeneath(root, rel, false)
	if err != nil && root == s.gen && s.Replaced() {
		return nil, fmt.Errorf("%s: %w", s.Path(rel), ErrReplaced)
	}
	if err != nil {
		// name the file as OUT shows it, not by the generation's path
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, &fs.PathError{Op: "open", Path: s.Path(rel), Err: pe.Err}
		}
	}
	return f, err
}

// IsFile reports whether p (see Open) is a regular file of the Snapshot.
func (s *Snapshot) IsFile(p string) bool {
	f, err := s.Open(p)
	if err == nil {
		f.Close()
	}
	return err == nil
}

// ReadFile reads the whole regular file at p (see Open), at most max
// bytes (more is an error naming the file).
func (s *Snapshot) ReadFile(p string, max int64) ([]byte, error) {
	f, err := s.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.Path(p), err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes: not read", s.Path(p), max)
	}
	return b, nil
}

// ReadSidecar reads the provenance sidecar of the manifest at p
// ([redist.ReadSidecar]) from the Snapshot.
func (s *Snapshot) ReadSidecar(manifest string) (*redist.Provenance, string, error) {
	return redist.ReadSidecarWith(manifest, func(name string) (io.ReadCloser, error) { return s.Open(name) })
}

// ErrReplaced means the generation a Snapshot reads was removed: a
// conversion switched OUT to a newer one. Read again from a new Snapshot.
var ErrReplaced = errors.New("OUT switched to a newer generation while it was read (read it again)")

// Replaced reports whether the Snapshot's generation is no longer OUT's
// current one (a conversion switched OUT since Open, and removes or
// removed it).
func (s *Snapshot) Replaced() bool {
	if s.gen == nil {
		return false
	}
	if cur, err := os.Readlink(filepath.Join(s.Out, publish.GenDir, publish.Current)); err != nil || cur != s.Gen {
		return true
	}
	st, err := s.gen.Stat()
	if err != nil {
		return true
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && sys.Nlink == 0
}

// Close releases the Snapshot's directories.
func (s *Snapshot) Close() error {
	if s.gen != nil {
		s.gen.Close()
	}
	return s.top.Close()
}

// Files is what a Snapshot holds, each list sorted; paths are relative to
// OUT, slash-separated, as reached through its product links
// (cuda/redist/…), as verify reports them: [Snapshot.Path] joins OUT.
type Files struct {
	Manifests []string // redistrib_<label>.json
	Sidecars  []string // provenance sidecars, under the current or the legacy name
	Strays    []string // other files named redistrib_* (legacy sidecars included)
	// Foreign are the symbolic links debredist did not write: in OUT, or
	// anywhere below the generation (debredist writes none there). None is
	// followed.
	Foreign  []string
	Dangling []string // product links of debredist's whose product the current output lacks
	Unlinked []string // products of the current output without their link in OUT
	// Outside are the directories in an OUT with generations that are not
	// products of the current one (a copy of a product directory, user
	// files): not output, not read.
	Outside []string
	// Other are the files in OUT itself that debredist did not write
	// (anything but its lock file, manifests aside): not output, not read.
	Other []string
}

// Find returns the Files of a Snapshot of dir, closed again: for a
// caller that holds OUT's lock (Convert), or lists without reading.
// Readers use the Snapshot itself, so that all they read is of one
// generation.
func Find(dir string) (Files, error) {
	s, err := Open(dir)
	if err != nil {
		return Files{}, err
	}
	defer func() { _ = s.Close() }()
	return s.Files, nil
}

// NotOutError is a directory that holds no output of debredist's: neither
// OUT's own state (.debredist, its lock file) nor a product directory with
// a redistrib_*.json manifest. Open refuses it before reading any of it.
type NotOutError struct{ Dir string }

func (e *NotOutError) Error() string {
	return e.Dir + " is not a debredist output directory (no redistrib_*.json, no .debredist)"
}

// IsOut reports whether dir holds debredist's output or state (see
// NotOutError); a directory that does not exist does not.
func IsOut(dir string) (bool, error) {
	top, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer top.Close()
	return isOut(top)
}

// isOut is IsOut of the open directory top (left at its start): OUT's own
// entries, or a <product>/redist/redistrib_*.json of an OUT written before
// generations, looked for one level down without following links.
func isOut(top *os.File) (bool, error) {
	ents, err := top.ReadDir(-1)
	if _, serr := top.Seek(0, io.SeekStart); err == nil {
		err = serr
	}
	if err != nil {
		return false, err
	}
	for _, e := range ents {
		switch e.Name() {
		case publish.GenDir, publish.MutexFile, publish.TmpDir:
			return true, nil
		}
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		d, err := files.OpenBeneath(top, e.Name()+"/redist", true)
		if err != nil {
			continue
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		if slices.ContainsFunc(names, redist.IsManifestName) {
			return true, nil
		}
	}
	return false, nil
}

// CurrentError is OUT/.debredist/current pointing anywhere but at a
// generation of OUT (gen-N beside it): it is not followed.
type CurrentError struct{ Path, Target string }

func (e *CurrentError) Error() string {
	return fmt.Sprintf(
		"%s points to %s, not to a generation of OUT (%s/gen-N): not followed (OUT was changed by hand: convert into a new "+
			"directory)",
		e.Path,
		jsonpos.Quote(e.Target),
		publish.GenDir,
	)
}
