// Package files holds the file operations every stage needs: writing
// a file whole or not at all (Write: a temporary file, synced, renamed
// over the destination, so that a reader or a run killed half-way sees the
// old file or the new one, never a part), hashing one (SHA256, HashFile),
// and opening one for reading as untrusted input: a regular file only,
// never blocking on a named pipe (OpenRegular), and below a directory
// without following any symbolic link (OpenBeneath).
package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to a temporary file in tmpDir (on dst's file system)
// and renames it to dst (mode 0644), creating dst's directory if needed.
// The error names dst.
func Write(dst string, data []byte, tmpDir string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	f, err := os.CreateTemp(tmpDir, ".write-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // the random temporary name means nothing to the user
			err = fmt.Errorf("cannot create a file in %s: %w", tmpDir, pe.Err)
		}
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	return nil
}
