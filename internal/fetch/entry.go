package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/files"
)

// Entry is an open cache entry that hashes every byte read from it, so that
// a reader that reads the deb in full anyway checks it for free (Verify).
type Entry struct {
	pkg, path, sha string
	f              *os.File
	h              hash.Hash
	n              int64
}

// OpenEntry opens the cache entry at path (from Fetch or CachePath) of the
// deb of pkg whose sha256 is sha.
func OpenEntry(path, pkg, sha string) (*Entry, error) {
	want, err := normalizeSHA(sha)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pkg, err)
	}
	f, err := files.OpenRegular(path) // the cache is not trusted: a named pipe is refused, never waited on
	if err != nil {
		return nil, fmt.Errorf("%s: cache entry: %w", pkg, err)
	}
	return &Entry{pkg: pkg, path: path, sha: want, f: f, h: sha256.New()}, nil
}

func (e *Entry) Read(p []byte) (int, error) {
	n, err := e.f.Read(p)
	e.h.Write(p[:n])
	e.n += int64(n)
	return n, err
}

// Verify reads what the caller left unread and compares the sha256 of all
// bytes with the expected one. It returns the sha256 and size actually
// read, and a *CorruptError when they differ from what the entry promised.
func (e *Entry) Verify() (sum string, size int64, err error) {
	if _, err := io.Copy(io.Discard, e); err != nil {
		return "", 0, fmt.Errorf("%s: reading cache entry %s: %w", e.pkg, e.path, err)
	}
	sum = hex.EncodeToString(e.h.Sum(nil))
	if sum != e.sha {
		return sum, e.n, &fault.CorruptCacheError{Package: e.pkg, Path: e.path, Expected: e.sha, Actual: sum}
	}
	return sum, e.n, nil
}

// Close closes the file.
func (e *Entry) Close() error { return e.f.Close() }

// Evict removes the cache entry of sha after a reader found it corrupt,
// under the entry's lock, unless another process replaced it with a good
// copy meanwhile (it is re-hashed under the lock). A later Fetch downloads
// it again.
func (f *Fetcher) Evict(ctx context.Context, sha string) error {
	sha, err := normalizeSHA(sha)
	if err != nil {
		return err
	}
	dst := f.CachePath(sha)
	unlock, err := f.lock(ctx, filepath.Dir(dst), sha)
	if err != nil {
		return err
	}
	defer unlock()
	st, _, err := f.checkEntry(dst, 0, sha, true)
	if err != nil || st != entryCorrupt {
		return err
	}
	if err := os.Remove(dst); err != nil {
		return fmt.Errorf("removing corrupt cache entry: %w", err)
	}
	return nil
}
