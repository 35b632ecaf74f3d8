package main

import (
	"os"
	"path/filepath"
)

// writeFile writes data to the file a -o flag names whole or not at all:
// a temporary file beside it, synced, then renamed over it (mode 0644), so
// a reader, or a run killed half-way, sees the old file or the new one.
func writeFile(name string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}
