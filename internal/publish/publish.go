package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// Atomic publication of OUT.
//
// OUT/<product> (cuda, cudnn, ...) is a symlink to
// .debredist/current/<product>, and OUT/.debredist/current is a symlink to
// a generation directory .debredist/gen-<n> holding the complete output:
// every product's manifests, provenance sidecars, LICENSE.txt files and
// archives. A conversion builds generation n+1 beside the current one: it
// hardlinks every file of the current generation into it (unchanged
// archives are shared, never copied), moves the new archives and LICENSE
// files in, writes the manifests and checks them. Only then does OUT
// change, in one step: a new `current` symlink is renamed over the old one.
// A process killed at any point therefore leaves OUT as the old or the new
// output, never a mix, and a reader following OUT/<product> at any instant
// sees manifests whose archives are all there with the bytes they name.
// Older generations are removed after the switch (or by the next run).
//
// An OUT written by an earlier debredist holds real product directories:
// before anything new is built into OUT, they are cloned (hardlinks) into a
// first generation holding the old output, current is set to it, and each
// is swapped for its symlink with renameat2(RENAME_EXCHANGE), one atomic
// step per product, each step still showing the old output (migrateLegacy).
// The rebuild then switches in its one rename like any other.

const (
	GenDir    = ".debredist"
	Current   = "current"
	genPrefix = "gen-"
)

// commitHook, when set, is called at every step of the commit stage: the
// crash tests' binaries (built with the tag debredist_killpoints, see
// killpoints.go) kill themselves there.
var commitHook func(step string)

// Step marks one step of the commit stage (a point where a test may kill
// the process).
func Step(step string) {
	if commitHook != nil {
		commitHook(step)
	}
}

// Generation is the next output being built beside the current one.
type Generation struct {
	out  string // OUT
	name string // gen-<n>
	Dir  string // OUT/.debredist/gen-<n>
}

// NewGeneration removes generations a killed run left, creates the next
// one and fills it with hardlinks to every file of the current output
// (the current generation, or the product directories of an OUT written
// before generations existed).
func NewGeneration(out string) (*Generation, error) {
	out = filepath.Clean(out)
	root := filepath.Join(out, GenDir)
	if err := ownEntry(root, true); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	n, err := Prune(out)
	if err != nil {
		return nil, err
	}
	if n, err = migrateLegacy(out, n); err != nil {
		return nil, fmt.Errorf("moving the output written before generations into %s: %w", root, err)
	}

	g := &Generation{out: out, name: genPrefix + strconv.Itoa(n+1)}
	g.Dir = filepath.Join(root, g.name)
	if err := os.Mkdir(g.Dir, 0o755); err != nil {
		return nil, err
	}
	Step("generation created")
	products, err := Products(out)
	if err != nil {
		return nil, err
	}
	for _, p := range products {
		if err := cloneTree(filepath.Join(out, p), filepath.Join(g.Dir, p)); err != nil {
			g.Discard()
			return nil, fmt.Errorf("sharing the current output with the next one: %w", err)
		}
		Step("cloned " + p)
	}
	return g, nil
}

// migrateLegacy moves the product directories of an OUT written before
// generations (or left half-moved by a killed migration) into the current
// generation, old content unchanged: their files are hardlinked into it,
// current is set, and each directory is exchanged for its product link in
// one atomic step. Every state in between shows the old output, so the
// rebuild that follows switches from old to new in its one rename. It
// returns the highest generation number, n or the one it created.
func migrateLegacy(out string, n int) (int, error) {
	products, err := Products(out)
	if err != nil {
		return n, err
	}
	var legacy []string
	for _, p := range products {
		if st, err := os.Lstat(filepath.Join(out, p)); err == nil && st.IsDir() {
			legacy = append(legacy, p)
		}
	}
	if len(legacy) == 0 {
		return n, nil
	}
	root := filepath.Join(out, GenDir)
	cur, _ := os.Readlink(filepath.Join(root, Current))
	if cur == "" {
		n++
		cur = genPrefix + strconv.Itoa(n)
		if err := os.Mkdir(filepath.Join(root, cur), 0o755); err != nil {
			return n, err
		}
	}
	for _, p := range legacy {
		dst := filepath.Join(root, cur, p)
		if _, err := os.Lstat(dst); err == nil {
			continue // cloned by a migration that was killed later
		}
		if err := cloneTree(filepath.Join(out, p), dst); err != nil {
			return n, err
		}
		Step("migration: cloned " + p)
	}
	if err := syncDir(filepath.Join(root, cur)); err != nil {
		return n, err
	}
	if _, err := os.Lstat(filepath.Join(root, Current)); err != nil {
		if err := setCurrent(root, cur); err != nil {
			return n, err
		}
		Step("migration: current set")
	}
	for _, p := range legacy {
		if err := exchangeForLink(out, p); err != nil {
			return n, err
		}
		Step("migration: linked " + p)
	}
	return n, syncDir(out)
}

// Prune removes what killed runs left in OUT/.debredist (every
// entry but the current generation and its link) and returns the highest
// generation number seen. An OUT without generations is left alone.
func Prune(out string) (n int, err error) {
	root := filepath.Join(out, GenDir)
	if err := ownEntry(root, true); err != nil {
		return 0, err
	}
	cur, _ := os.Readlink(filepath.Join(root, Current))
	if cur != "" && !IsGenName(cur) {
		return 0, fmt.Errorf(
			"%s points to %q, not a generation of debredist's (remove it)",
			filepath.Join(root, Current),
			cur,
		)
	}
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	for _, e := range ents {
		name := e.Name()
		if k, ok := genNumber(name); ok {
			n = max(n, k)
		}
		if name != cur && name != Current {
			if err := os.RemoveAll(filepath.Join(root, name)); err != nil { // leftovers of a killed run
				return 0, fmt.Errorf("removing stale %s: %w", filepath.Join(root, name), err)
			}
		}
	}
	return n, nil
}

// Products lists the product entries of OUT: directories (or links
// to directories) holding a redist/ directory; names starting with "." are
// debredist's own.
func Products(out string) ([]string, error) {
	ents, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	var ps []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") || e.Type()&fs.ModeSymlink != 0 && !IsProductLink(out, e.Name()) {
			continue // debredist's own, or a link it did not write
		}
		if st, err := os.Stat(filepath.Join(out, e.Name(), "redist")); err == nil && st.IsDir() {
			ps = append(ps, e.Name())
		}
	}
	return ps, nil
}

// IsOwnLink reports whether OUT/name is a link as debredist writes them,
// .debredist/current/<name> with .debredist a real directory, whether or
// not it resolves. Any other symlink in OUT is not followed: it could lead
// anywhere.
func IsOwnLink(out, name string) bool {
	if l, err := os.Readlink(filepath.Join(out, name)); err != nil || l != ProductLink(name) {
		return false
	}
	st, err := os.Lstat(filepath.Join(out, GenDir))
	return err == nil && st.IsDir()
}

// IsProductLink reports whether OUT/name is a product link debredist
// wrote that can be followed: IsOwnLink, with current a link to a
// generation inside .debredist.
func IsProductLink(out, name string) bool {
	if !IsOwnLink(out, name) {
		return false
	}
	cur, err := os.Readlink(filepath.Join(out, GenDir, Current))
	return err == nil && IsGenName(cur)
}

// IsGenName reports whether s is a generation directory name (gen-<n>),
// what OUT/.debredist/current names.
func IsGenName(s string) bool {
	_, ok := genNumber(s)
	return ok
}

// genNumber returns n of a generation directory name gen-<n>.
func genNumber(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(s, genPrefix))
	return n, err == nil && n > 0 && s == genPrefix+strconv.Itoa(n)
}

// setCurrent points root/current at generation gen in one step: a new
// link beside it, renamed over it.
func setCurrent(root, gen string) error {
	next := filepath.Join(root, Current+".next")
	_ = os.Remove(next) // a killed run's; one left makes Symlink fail, naming it
	if err := os.Symlink(gen, next); err != nil {
		return err
	}
	Step("current.next created")
	return os.Rename(next, filepath.Join(root, Current))
}

// ownEntry checks that OUT's own entry at path (.debredist, the OUT mutex
// file) is what debredist writes there, a real directory (dir) or regular
// file, or absent: never a symlink, which would make debredist create,
// prune or write files wherever it points.
func ownEntry(path string, dir bool) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf(
			"%s is a symbolic link: debredist keeps its own state in OUT itself and never writes through a link (remove it)",
			path,
		)
	case dir && !st.IsDir(), !dir && !st.Mode().IsRegular():
		return fmt.Errorf("%s is a %s, not debredist's own (remove it)", path, st.Mode().Type())
	}
	return nil
}

// cloneTree recreates src (followed if it is a symlink) at dst with
// hardlinks to its files.
func cloneTree(src, dst string) error {
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	return filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(real, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			return os.Link(p, target)
		}
		// Links, sockets, fifos: not debredist's (it writes none in a
		// generation). A link is not carried over, so nothing later
		// written into the new generation can go through it; what it
		// stood for is rebuilt (the readers never took it as a file).
		return nil
	})
}

// Discard removes the generation after a failure, unless it is already
// the current one (a failure after the switch).
func (g *Generation) Discard() {
	if cur, _ := os.Readlink(filepath.Join(g.out, GenDir, Current)); cur != g.name {
		_ = os.RemoveAll(g.Dir)
	}
}

// Publish makes the generation OUT's content: the one rename of current
// that switches, then a product link for each product the old output
// lacked, then the removal of older generations. A new product's link
// appears only after the switch, pointing into the new output: no kill
// point leaves a link that does not resolve (a kill between the switch and
// a link leaves that product unlinked until the next run, which repairs it,
// and verify says so).
func (g *Generation) Publish() error {
	root := filepath.Join(g.out, GenDir)
	if err := syncDir(g.Dir); err != nil {
		return err
	}
	products, err := Products(g.Dir)
	if err != nil {
		return err
	}
	for _, p := range products { // refuse before switching
		if err := checkLinkSlot(g.out, p); err != nil {
			return err
		}
	}
	if err := setCurrent(root, g.name); err != nil {
		return fmt.Errorf("switching to the new output: %w", err)
	}
	Step("switched")
	if err := syncDir(root); err != nil {
		return err
	}
	if err := linkProducts(g.out, products); err != nil {
		return err
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		if e.Name() != g.name && e.Name() != Current {
			if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
				return err
			}
			Step("removed " + e.Name())
		}
	}
	return nil
}

// ProductLink is what OUT/<product> points to.
func ProductLink(p string) string { return filepath.Join(GenDir, Current, p) }

// checkLinkSlot reports whether OUT/p can be (or is) p's product link.
func checkLinkSlot(out, p string) error {
	at := filepath.Join(out, p)
	st, err := os.Lstat(at)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		if l, _ := os.Readlink(at); l != ProductLink(p) {
			return fmt.Errorf("%s is a symlink to %s, not to %s: not debredist's", at, l, ProductLink(p))
		}
		return nil
	case st.IsDir():
		return fmt.Errorf("%s is a directory: the output written before generations was not moved (rerun)", at)
	}
	return fmt.Errorf("%s is not a directory", at)
}

// linkProducts creates the product links of products that have none yet
// (the current generation holds them: each link resolves when made).
func linkProducts(out string, products []string) error {
	made := false
	for _, p := range products {
		at := filepath.Join(out, p)
		if _, err := os.Lstat(at); err == nil {
			continue
		}
		if err := os.Symlink(ProductLink(p), at); err != nil {
			return err
		}
		made = true
		Step("linked " + p)
	}
	if made {
		return syncDir(out)
	}
	return nil
}

// RepairLinks finishes what a killed run left in OUT's links: a product of
// the current generation without its link gets it, and a link of
// debredist's whose product the current generation lacks (left by a run
// killed before it switched, by debredist versions that linked first) is
// removed. It returns what it did, for a warning.
func RepairLinks(out string) ([]string, error) {
	var did []string
	cur := filepath.Join(out, GenDir, Current)
	if _, err := os.Stat(cur); err != nil {
		return nil, nil // no generations yet
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if e.Type()&fs.ModeSymlink == 0 || !IsOwnLink(out, e.Name()) {
			continue
		}
		if _, err := os.Stat(filepath.Join(out, e.Name())); errors.Is(err, fs.ErrNotExist) {
			if err := os.Remove(filepath.Join(out, e.Name())); err != nil {
				return did, err
			}
			did = append(did, "removed the dangling link "+e.Name())
		}
	}
	products, err := Products(cur)
	if err != nil {
		return did, err
	}
	for _, p := range products {
		if _, err := os.Lstat(filepath.Join(out, p)); err == nil {
			continue
		}
		if err := linkProducts(out, []string{p}); err != nil {
			return did, err
		}
		did = append(did, "linked "+p)
	}
	return did, nil
}

// exchangeForLink replaces the directory OUT/p of an OUT written before
// generations with the symlink to .debredist/current/p in one atomic step,
// then removes the directory.
func exchangeForLink(out, p string) error {
	tmp := filepath.Join(out, GenDir, "old-"+p)
	_ = os.RemoveAll(tmp) // a killed run's; one left makes Symlink fail, naming it
	if err := os.Symlink(filepath.Join(GenDir, Current, p), tmp); err != nil {
		return err
	}
	if err := exchange(tmp, filepath.Join(out, p)); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("replacing %s with a link to the new output: %w", filepath.Join(out, p), err)
	}
	return os.RemoveAll(tmp) // now the old directory
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
