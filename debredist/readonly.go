package debredist

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/internal/fetch"
)

// makeTmp (re)creates OUT/.debredist-tmp, where everything is built before
// it is renamed into place. On an OUT that cannot be written it returns ""
// and no error: a run that needs no write (everything up to date) still
// works, and one that does fails with errReadOnly, saying what needed it.
func makeTmp(out string) (string, error) {
	tmp := filepath.Join(out, tmpName)
	// Look before removing: on a read-only file system unlink fails with
	// EROFS even for a name that does not exist.
	if _, err := os.Lstat(tmp); err == nil {
		if err := os.RemoveAll(tmp); isReadOnly(err) { // leftovers of a killed run
			return "", nil
		} else if err != nil {
			return "", fmt.Errorf("removing stale %s: %w", tmp, err)
		}
	}
	err := os.Mkdir(tmp, 0o755)
	if isReadOnly(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return tmp, nil
}

// isReadOnly reports whether err means this process may not write there:
// a read-only file system, or another user's directory.
func isReadOnly(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// errReadOnly is why a run on a read-only OUT stops.
func errReadOnly(out, what string) error {
	return fmt.Errorf("output directory %s is not writable, and %s (a run with everything up to date needs no write access)", out, what)
}

// warnUnread says when packages are kept as up to date by the inputs
// recorded in OUT alone: their debs are not in the cache (--offline, a
// lock naming debs never downloaded), so nothing was read to confirm it.
func warnUnread(o Options, jobs []*job) {
	var debs []apt.Package
	n := 0
	for _, j := range jobs {
		if j.upToDate {
			debs = append(debs, j.pkg.Debs...)
			n++
		}
	}
	if len(debs) == 0 {
		return
	}
	f, err := fetch.New(fetch.Options{Base: o.Mirror, CacheDir: o.CacheDir})
	if err != nil {
		return // the run needs no fetcher; Missing is only a report
	}
	if missing := f.Missing(debs); len(missing) > 0 {
		o.emit(Event{Kind: EventWarning, Package: missing[0].Name, Message: fmt.Sprintf(
			"%d redist package(s) are up to date by the inputs OUT's provenance records; %d of their debs are not in the cache and were not read (first: %s %s); provenance is left as the run that read them wrote it",
			n, len(missing), missing[0].Name, missing[0].Version)})
	}
}

// freshOutDir is an OUT that a conversion starts: it did not exist, or was
// an empty directory. A conversion that fails there removes what it made,
// so that a failed or interrupted first run leaves no OUT holding only
// debredist's lock file (a killed one may: a rerun cleans it up).
type freshOutDir struct {
	dir     string
	fresh   bool // nothing of an earlier output is in dir
	created bool // dir itself did not exist
}

func freshOut(dir string) (freshOutDir, error) {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return freshOutDir{dir: dir, fresh: true, created: true}, nil
	case err != nil && isReadOnly(err):
		return freshOutDir{dir: dir}, nil
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) && errors.Is(err, syscall.ENOTDIR) {
			return freshOutDir{}, fmt.Errorf("output directory %s exists and is not a directory", dir)
		}
		return freshOutDir{}, fmt.Errorf("output directory: %w", err)
	}
	return freshOutDir{dir: dir, fresh: len(ents) == 0}, nil
}

// undo removes what a failed conversion made in a fresh OUT (the caller
// holds OUT's mutex, or never got it).
func (f freshOutDir) undo() {
	switch {
	case !f.fresh:
	case f.created:
		os.RemoveAll(f.dir)
	default:
		ents, _ := os.ReadDir(f.dir)
		for _, e := range ents {
			os.RemoveAll(filepath.Join(f.dir, e.Name()))
		}
	}
}
