package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/debredist/debredist/debredist/redist"
)

// MakeTmp (re)creates OUT/.debredist-tmp, where everything is built before
// it is renamed into place. On an OUT that cannot be written it returns ""
// and no error: a run that needs no write (everything up to date) still
// works, and one that does fails (the caller says what needed a write).
func MakeTmp(out string) (string, error) {
	tmp := filepath.Join(out, TmpDir)
	// Look before removing: on a read-only file system unlink fails with
	// EROFS even for a name that does not exist.
	if _, err := os.Lstat(tmp); err == nil {
		if err := os.RemoveAll(tmp); IsReadOnly(err) { // leftovers of a killed run
			return "", nil
		} else if err != nil {
			return "", fmt.Errorf("removing stale %s: %w", tmp, err)
		}
	}
	err := os.Mkdir(tmp, 0o755)
	if IsReadOnly(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return tmp, nil
}

// IsReadOnly reports whether err means this process may not write there:
// a read-only file system, or another user's directory.
func IsReadOnly(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

func FileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}

// Files is what Find finds under an output directory,
// each list in walk order.
type Files struct {
	Manifests []string // redistrib_<label>.json
	Sidecars  []string // provenance sidecars, under the current or the legacy name
	Strays    []string // other files named redistrib_* (legacy sidecars included)
	Foreign   []string // symlinks in OUT that debredist did not write (not followed)
	Dangling  []string // product links of debredist's whose product the current output lacks
	Unlinked  []string // products of the current output without their link in OUT
}

// Find is the one discovery of manifests and provenance sidecars
// (verify.Dir, verify.Nixpkgs, the Nix overlay, readPrevious for Convert and Diff):
// every file under dir, following OUT's product symlinks into the current
// generation, not in the generations or the temporary directory.
func Find(dir string) (Files, error) {
	var o Files
	err := Walk(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == TmpDir:
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		name := d.Name()
		if d.Type()&fs.ModeSymlink != 0 && filepath.Dir(p) == filepath.Clean(dir) {
			if !IsOwnLink(dir, name) { // debredist's own that do not resolve: below
				o.Foreign = append(o.Foreign, p)
			}
			return nil
		}
		if redist.IsSidecarName(name) {
			o.Sidecars = append(o.Sidecars, p)
		}
		switch {
		case redist.IsManifestName(name):
			o.Manifests = append(o.Manifests, p)
		case strings.HasPrefix(name, redist.ManifestPrefix):
			o.Strays = append(o.Strays, p)
		}
		return nil
	})
	if err != nil {
		return o, err
	}
	// What a killed run can leave in OUT's own links.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.Type()&fs.ModeSymlink != 0 && IsOwnLink(dir, e.Name()) {
			if _, err := os.Stat(p); err != nil {
				o.Dangling = append(o.Dangling, p)
			}
		}
	}
	if cur := filepath.Join(dir, GenDir, Current); isGenLink(cur) {
		products, _ := Products(cur)
		for _, p := range products {
			if _, err := os.Lstat(filepath.Join(dir, p)); errors.Is(err, fs.ErrNotExist) {
				o.Unlinked = append(o.Unlinked, p)
			}
		}
	}
	return o, nil
}

// isGenLink reports whether OUT/.debredist/current is a link to
// a generation (so its products can be listed).
func isGenLink(cur string) bool {
	l, err := os.Readlink(cur)
	return err == nil && isGenName(l)
}

// Names of debredist's own entries in OUT.
const (
	// MutexFile is the OUT mutex (Lock); the file keeps its old name so
	// that older processes exclude newer ones too.
	MutexFile = ".debredist.lock"
	// TmpDir is where a conversion builds everything before it is moved
	// into the next generation.
	TmpDir = ".debredist-tmp"
)
