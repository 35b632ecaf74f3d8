package fetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/debredist/debredist/internal/files"
	"github.com/gofrs/flock"
)

type entryState int

const (
	entryAbsent  entryState = iota
	entryOK                 // present, size (and hash if checked) right
	entryCorrupt            // present but wrong: remove under the lock and refetch
)

// checkEntry looks at a cache entry. size 0 means unknown (not checked); full
// re-hashes the file. It returns the entry size when it is OK.
func (f *Fetcher) checkEntry(path string, size int64, sha string, full bool) (entryState, int64, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return entryAbsent, 0, nil
	}
	if err != nil {
		return entryAbsent, 0, fmt.Errorf("cache entry %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() || (size > 0 && fi.Size() != size) {
		return entryCorrupt, 0, nil
	}
	if full {
		got, err := files.SHA256(context.Background(), path)
		if err != nil {
			return entryAbsent, 0, fmt.Errorf("cache entry %s: %w", path, err)
		}
		if got != sha {
			return entryCorrupt, 0, nil
		}
	}
	return entryOK, fi.Size(), nil
}

// keyLock serialises the goroutines of one Fetcher that want the same hash;
// the flock on <hex>.lock then serialises processes (and other Fetchers).
type keyLock struct {
	ch   chan struct{} // capacity 1: holding a token = holding the lock
	refs int
}

// lockPollInterval is how often a blocked flock is retried; flock(2) has no
// cancellable blocking form.
const lockPollInterval = 20 * time.Millisecond

// lock takes the in-process and the file lock for sha. The returned function
// releases both.
func (f *Fetcher) lock(ctx context.Context, dir, sha string) (func(), error) {
	f.mu.Lock()
	kl := f.locks[sha]
	if kl == nil {
		kl = &keyLock{ch: make(chan struct{}, 1)}
		f.locks[sha] = kl
	}
	kl.refs++
	f.mu.Unlock()
	deref := func() {
		f.mu.Lock()
		kl.refs--
		if kl.refs == 0 {
			delete(f.locks, sha)
		}
		f.mu.Unlock()
	}

	select {
	case kl.ch <- struct{}{}:
	case <-ctx.Done():
		deref()
		return nil, context.Cause(ctx)
	}
	release := func() { <-kl.ch; deref() }

	fl := flock.New(filepath.Join(dir, sha+".lock"), flock.SetPermissions(0o644))
	ok, err := fl.TryLockContext(ctx, lockPollInterval)
	if err != nil || !ok {
		_ = fl.Close()
		release()
		if err == nil {
			err = context.Cause(ctx)
		}
		return nil, fmt.Errorf("locking %s: %w", fl.Path(), err)
	}
	return func() {
		_ = fl.Unlock() // also closes the descriptor
		release()
	}, nil
}

// syncDir fsyncs a directory so that a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
