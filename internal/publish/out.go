package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
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

// FileSize is the size of the regular file at p, -1 for anything else: a
// missing file, a named pipe, a device, and a symbolic link (OUT's files
// are never links, so one is rebuilt rather than trusted).
func FileSize(p string) int64 {
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
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
