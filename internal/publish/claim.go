package publish

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gofrs/flock"
)

// Claim is a conversion's hold on OUT: its mutex, and whether OUT was
// fresh when the mutex was taken (see Take).
type Claim struct {
	dir     string
	fresh   bool // OUT held nothing but the mutex: no earlier output
	created bool // this call created OUT
	unlock  func()
}

// Take claims OUT for writing. It creates OUT when missing (its parents
// too), takes OUT's mutex, waiting while another debredist process holds
// it (busy says so once), and only then judges whether OUT is fresh:
// created by this call, or empty but for the mutex. Judged under the
// mutex, another process's output, even one being written while this call
// waited, is never taken for fresh; a mutex file that the holder removed
// (a failed first conversion removes its OUT) is noticed and OUT claimed
// anew.
//
// A read-only OUT (a read-only mount, another user's directory) where the
// mutex cannot be created is claimed without one: no process can write OUT
// from here, and a conversion writes nothing there either (MakeTmp finds
// OUT read-only).
func Take(ctx context.Context, out string, busy func(msg string)) (*Claim, error) {
	said := false
	for {
		created, err := makeOut(out)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(out, MutexFile)
		if err := ownEntry(path, false); err != nil {
			return nil, err
		}
		// Readable by all, so that another user's no-op run can take it too.
		l := flock.New(path, flock.SetPermissions(0o644))
		ok, err := l.TryLock()
		for !ok && err == nil { // another process holds it
			if !said {
				busy("another debredist process is writing " + out + "; waiting for it to finish")
				said = true
			}
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("waiting for the lock on %s held by another debredist process: %w", out, ctx.Err())
			case <-time.After(200 * time.Millisecond):
			}
			ok, err = l.TryLock()
		}
		switch {
		case errors.Is(err, fs.ErrNotExist): // the holder removed OUT: start again
			continue
		case IsReadOnly(err) && syscall.Access(out, 2 /* W_OK */) == nil:
			// OUT is writable but its mutex is not this user's to open (0600
			// from an older debredist, or another user's): converting
			// without it could interleave with that user's runs.
			return nil, fmt.Errorf(
				"%s cannot be opened (%w), though %s is writable: another user's debredist (or an older version, which created "+
					"it 0600) holds OUT; make the file readable (chmod 644) or remove it when no conversion runs",
				path,
				err,
				out,
			)
		case IsReadOnly(err):
			return &Claim{dir: out, unlock: func() {}}, nil
		case err != nil:
			return nil, fmt.Errorf("locking %s: %w", out, err)
		}
		if !stillLocked(l, path) { // the holder removed OUT (or its mutex): start again
			_ = l.Unlock()
			continue
		}
		fresh, err := holdsOnlyMutex(out)
		if err != nil {
			_ = l.Unlock()
			return nil, err
		}
		return &Claim{dir: out, fresh: fresh || created, created: created, unlock: func() { _ = l.Unlock() }}, nil
	}
}

// makeOut creates OUT if it is missing and says whether this call did.
func makeOut(out string) (created bool, err error) {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return false, fmt.Errorf("output directory: %w", err)
	}
	err = os.Mkdir(out, 0o755)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrExist):
		st, serr := os.Stat(out)
		if serr == nil && !st.IsDir() {
			return false, fmt.Errorf("output directory %s exists and is not a directory", out)
		}
		return false, nil
	}
	return false, fmt.Errorf("output directory: %w", err)
}

// stillLocked reports whether the locked file is still the one at path.
func stillLocked(l *flock.Flock, path string) bool {
	held, err := l.Stat() // the locked descriptor's
	if err != nil {
		return false
	}
	now, err := os.Lstat(path)
	return err == nil && os.SameFile(held, now)
}

// holdsOnlyMutex reports whether OUT holds no entry but its mutex. An
// unreadable OUT is not fresh (a read-only one: nothing will be written).
func holdsOnlyMutex(out string) (bool, error) {
	ents, err := os.ReadDir(out)
	switch {
	case err != nil && IsReadOnly(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("output directory: %w", err)
	}
	for _, e := range ents {
		if e.Name() != MutexFile {
			return false, nil
		}
	}
	return true, nil
}

// Undo removes what a failed conversion made in a fresh OUT: OUT itself
// when this claim created it, else its content, the mutex included (a
// process waiting for it notices and claims OUT anew). An OUT that was
// not fresh is left alone. Call it before Release.
func (c *Claim) Undo() {
	switch {
	case !c.fresh:
	case c.created:
		_ = os.RemoveAll(c.dir)
	default:
		ents, _ := os.ReadDir(c.dir)
		for _, e := range ents {
			_ = os.RemoveAll(filepath.Join(c.dir, e.Name()))
		}
	}
}

// Release lets OUT's mutex go.
func (c *Claim) Release() { c.unlock() }
