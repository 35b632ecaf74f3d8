package debredist

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/debredist/debredist/debredist/plan"
	"github.com/gofrs/flock"
)

// commitGeneration builds the next generation of OUT (the current output
// shared by hardlinks, the new archives, LICENSE files and manifests),
// checks it, and publishes it. When every package is up to date and OUT's
// manifests and provenance already say what this run would write, no
// generation is made and nothing is written (a read-only OUT works).
func commitGeneration(o Options, pl *plan.Result, jobs []*job, tmp string, prev previous) (res *Result, err error) {
	if allUpToDate(jobs) {
		res, err := writeManifests(o, pl, jobs, "", prev) // writes nothing: fails if a write is needed
		if err == nil && tmp != "" {
			_, err = pruneGenerations(o.Out) // what a killed run left
		}

		if err == nil {
			return res, nil
		}
		if tmp == "" {
			return nil, err
		}
	}
	if tmp == "" {
		return nil, errReadOnly(o.Out, "its manifests must be rewritten")
	}
	g, err := newGeneration(o.Out)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			g.discard()
		}
	}()
	for _, j := range jobs {
		if j.productDir, err = outPath(g.dir, j.pkg.Product, "redist"); err != nil {
			return nil, err
		}
		if j.final, err = outPath(j.productDir, j.rel); err != nil {
			return nil, err
		}
		if j.licenseFile, err = outPath(j.productDir, j.pkg.PName, "LICENSE.txt"); err != nil {
			return nil, err
		}
	}
	gprev := readPrevious(g.dir) // the current output, as cloned
	if err = commit(pl, jobs, tmp); err != nil {
		return nil, err
	}
	og := o
	og.Out = g.dir
	if res, err = writeManifests(og, pl, jobs, tmp, gprev); err != nil {
		return nil, err
	}
	res.Out = o.Out
	if err = checkOutput(g.dir, res, jobs); err != nil {
		return nil, fmt.Errorf("verifying the output: %w", err)
	}
	if g.sameAsCurrent() { // a no-op run: OUT is left as it is
		g.discard()
		return res, nil
	}
	if err = g.publish(); err != nil {
		return nil, err
	}
	return res, nil
}

// commit moves the archives and LICENSE files built in tmp into OUT. The
// manifests of the products it touches are removed first and rewritten
// last (writeManifests), so that no manifest ever names an archive whose
// bytes it does not describe, even if this is interrupted half-way.
func commit(pl *plan.Result, jobs []*job, tmp string) error {
	for _, pr := range pl.Products {
		for _, j := range jobs {
			if j.pkg.Product == pr.Product && !j.upToDate {
				mf, err := outPath(j.productDir, "redistrib_"+pr.Label+".json")
				if err != nil {
					return err
				}
				if err := os.Remove(mf); err != nil && !os.IsNotExist(err) {
					return err
				}
				break
			}
		}
	}
	for _, j := range jobs {
		if j.upToDate {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(j.final), 0o755); err != nil {
			return err
		}
		if err := writeAtomic(j.licenseFile, j.license, tmp); err != nil {
			return err
		}
		if err := os.Rename(j.staged, j.final); err != nil {
			return err
		}
		commitStep("placed " + j.rel)
	}
	return nil
}

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}

// writeAtomic writes data to a temp file in tmpDir and renames it to dst.
func writeAtomic(dst string, data []byte, tmpDir string) error {
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
		err = os.MkdirAll(filepath.Dir(dst), 0o755)
	}
	if err == nil {
		err = os.Rename(f.Name(), dst)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	return nil
}

// acquireOut takes the OUT mutex (a flock on OUT's outMutexName file), so
// that one process at a time writes OUT; it waits, emitting EventOutBusy,
// while another holds it. ("Lock" in this package means the pin file of
// Options.LockFile and LockOut, never this mutex.)
func acquireOut(ctx context.Context, o Options) (func(), error) {
	if err := ownEntry(filepath.Join(o.Out, outMutexName), false); err != nil {
		return nil, err
	}
	// Readable by all, so that another user's no-op run can take it too.
	l := flock.New(filepath.Join(o.Out, outMutexName), flock.SetPermissions(0o644))
	ok, err := l.TryLock()
	if isReadOnly(err) {
		// A read-only OUT (a read-only mount, another user's directory)
		// where the mutex cannot be created or opened: no process can
		// write OUT here, and this one writes nothing either (makeTmp
		// finds OUT read-only), so it has nothing to exclude.
		return func() {}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", o.Out, err)
	}
	if !ok {
		o.emit(Event{Kind: EventOutBusy, Message: "another debredist process is writing " + o.Out + "; waiting for it to finish"})
		if _, err := l.TryLockContext(ctx, 200*time.Millisecond); err != nil {
			return nil, fmt.Errorf("waiting for the lock on %s held by another debredist process: %w", o.Out, err)
		}
	}
	return func() { l.Unlock() }, nil
}

// allUpToDate reports whether no package was built in this run.
func allUpToDate(jobs []*job) bool {
	for _, j := range jobs {
		if !j.upToDate {
			return false
		}
	}
	return true
}
