package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
)

const (
	// bufSize is the copy buffer per running download.
	bufSize = 256 << 10
	// progressStep is the minimum growth between two Progress events.
	progressStep = 256 << 10
	// progressQuantum is how far an attempt must push the download beyond
	// any earlier attempt for its failure not to use up a retry.
	progressQuantum = 1 << 20
	// maxUnknownSize bounds a deb whose size the index did not give.
	maxUnknownSize = 16 << 30
)

// fetchOne makes sure the deb with this sha256 is in the cache, trying each
// candidate package (same sha256, maybe different repos) in turn.
func (f *Fetcher) fetchOne(ctx context.Context, sha string, cands []apt.Package) (string, error) {
	first := cands[0]
	dst := f.CachePath(sha)
	st, n, err := f.checkEntry(dst, first.Size, sha, f.opts.VerifyCache)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", first.Name, first.Version, err)
	}
	if st == entryOK {
		f.hit(first, n)
		return dst, nil
	}
	if f.opts.Offline {
		return "", errOffline
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("%s %s: creating cache directory: %w", first.Name, first.Version, err)
	}
	unlock, err := f.lock(ctx, dir, sha)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", first.Name, first.Version, err)
	}
	defer unlock()
	// Someone may have filled (or repaired) the entry while we waited.
	st, n, err = f.checkEntry(dst, first.Size, sha, f.opts.VerifyCache || st == entryCorrupt)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", first.Name, first.Version, err)
	}
	switch st {
	case entryOK:
		f.hit(first, n)
		return dst, nil
	case entryCorrupt:
		if err := os.Remove(dst); err != nil {
			return "", fmt.Errorf("%s %s: removing corrupt cache entry: %w", first.Name, first.Version, err)
		}
	}

	var errs []error
	for _, p := range cands {
		u, err := f.poolURL(p)
		if err == nil {
			err = f.download(ctx, p, u, sha, dst)
			if err == nil {
				return dst, nil
			}
			err = describe(p, u, err)
		}
		f.emit(Event{Kind: Failed, Package: p.Name, URL: u, Err: err})
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return "", errors.Join(errs...)
}

// describe makes sure a download error names package, version and URL.
func describe(p apt.Package, u string, err error) error {
	var (
		he *fault.HTTPError
		hm *fault.HashMismatchError
		sm *fault.SizeMismatchError
	)
	if errors.As(err, &he) || errors.As(err, &hm) || errors.As(err, &sm) {
		return err // these name package and URL themselves
	}
	if strings.Contains(err.Error(), u) {
		return fmt.Errorf("%s %s: %w", p.Name, p.Version, err)
	}
	return fmt.Errorf("%s %s: %s: %w", p.Name, p.Version, u, err)
}

func (f *Fetcher) hit(p apt.Package, size int64) {
	if f.opts.OnEvent == nil {
		return
	}
	u, _ := f.poolURL(p)
	f.opts.OnEvent(Event{Kind: CacheHit, Package: p.Name, URL: u, Bytes: size, Total: size})
}

// partial is a download in progress, <hex>.partial, only touched under the
// lock. Bytes are hashed as they are written, so the finished file is never
// read again.
type partial struct {
	path string
	fh   *os.File
	h    hash.Hash
	n    int64
}

// openPartial opens (or creates) the partial file. Bytes left by an earlier,
// killed process are hashed so that the download can resume after them.
func openPartial(path string) (*partial, error) {
	fh, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	p := &partial{path: path, fh: fh, h: sha256.New()}
	n, err := io.Copy(p.h, fh) // leaves the offset at the end, ready to append
	if err != nil {
		p.discard()
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	p.n = n
	return p, nil
}

func (p *partial) write(b []byte) error {
	if _, err := p.fh.Write(b); err != nil {
		return fmt.Errorf("writing %s: %w", p.path, err)
	}
	p.h.Write(b)
	p.n += int64(len(b))
	return nil
}

func (p *partial) reset() error {
	p.h.Reset()
	p.n = 0
	if err := p.fh.Truncate(0); err != nil {
		return fmt.Errorf("truncating %s: %w", p.path, err)
	}
	if _, err := p.fh.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("seeking %s: %w", p.path, err)
	}
	return nil
}

func (p *partial) discard() {
	_ = p.fh.Close()
	_ = os.Remove(p.path)
}

// commit makes the verified partial the cache entry dst.
func (p *partial) commit(dst string) error {
	if err := p.fh.Sync(); err != nil {
		p.discard()
		return fmt.Errorf("syncing %s: %w", p.path, err)
	}
	if err := p.fh.Close(); err != nil {
		_ = os.Remove(p.path)
		return fmt.Errorf("closing %s: %w", p.path, err)
	}
	if err := os.Rename(p.path, dst); err != nil {
		_ = os.Remove(p.path)
		return fmt.Errorf("moving %s into the cache: %w", p.path, err)
	}
	if err := syncDir(filepath.Dir(dst)); err != nil {
		return fmt.Errorf("syncing cache directory: %w", err)
	}
	return nil
}

// download fetches pkg from u into dst (caller holds the lock), resuming a
// partial download, retrying, and verifying size and sha256.
func (f *Fetcher) download(ctx context.Context, pkg apt.Package, u, sha, dst string) error {
	part, err := openPartial(filepath.Join(filepath.Dir(dst), sha+".partial"))
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			part.discard()
		}
	}()
	if pkg.Size > 0 && part.n > pkg.Size {
		if err := part.reset(); err != nil {
			return err
		}
	}
	f.emit(Event{Kind: Started, Package: pkg.Name, URL: u, Bytes: part.n, Total: pkg.Size, Attempt: 1})
	buf := make([]byte, bufSize)
	mismatches := 0
	err = f.retry(ctx, pkg.Name, u, func() int64 { return part.n }, func(int) error {
		return f.attempt(ctx, pkg, u, sha, part, buf, &mismatches)
	})
	if err != nil {
		return err
	}
	if err := part.commit(dst); err != nil {
		committed = true // commit cleaned up
		return err
	}
	committed = true
	f.emit(Event{Kind: Done, Package: pkg.Name, URL: u, Bytes: part.n, Total: part.n})
	return nil
}

// attempt runs one request and appends its body to part. On success part
// holds exactly the expected bytes.
func (f *Fetcher) attempt(
	ctx context.Context,
	pkg apt.Package,
	u, sha string,
	part *partial,
	buf []byte,
	mismatches *int,
) error {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rc, start, err := f.open(actx, cancel, pkg.Name, u, part.n)
	if errors.Is(err, errRestart) {
		if rerr := part.reset(); rerr != nil {
			return rerr
		}
	}
	if err != nil {
		return err
	}
	defer func() { _ = rc.Close() }()
	if start != part.n { // the server ignored the range: start over
		if err := part.reset(); err != nil {
			return err
		}
	}

	limit := pkg.Size
	if limit == 0 {
		limit = maxUnknownSize
	}
	stall := time.AfterFunc(f.opts.StallTimeout, func() { cancel(errStalled) })
	defer stall.Stop()
	lastEvent := part.n
	for {
		n, rerr := rc.Read(buf)
		if n > 0 {
			stall.Reset(f.opts.StallTimeout)
			if part.n+int64(n) > limit {
				got := part.n + int64(n)
				_ = part.reset()
				if pkg.Size == 0 {
					return fmt.Errorf("%s: larger than %d bytes", u, int64(maxUnknownSize))
				}
				return f.mismatch(mismatches, &fault.SizeMismatchError{Package: pkg.Name, URL: u, Expected: pkg.Size, Actual: got})
			}
			if err := part.write(buf[:n]); err != nil {
				return err
			}
			if part.n-lastEvent >= progressStep || part.n == pkg.Size {
				lastEvent = part.n
				f.emit(Event{Kind: Progress, Package: pkg.Name, URL: u, Bytes: part.n, Total: pkg.Size})
			}
		}
		if rerr == nil && actx.Err() != nil {
			rerr = context.Cause(actx) // local files do not watch the context
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			if pkg.Size > 0 && part.n == pkg.Size {
				break // all bytes are here (e.g. Content-Length was too large); the hash decides
			}
			if errors.Is(context.Cause(actx), errStalled) {
				return retryable(fmt.Errorf("%s: after %d bytes: %w", u, part.n, errStalled))
			}
			return retryable(fmt.Errorf("%s: reading body after %d bytes: %w", u, part.n, rerr))
		}
	}
	if pkg.Size > 0 && part.n < pkg.Size {
		return retryable(fmt.Errorf("%s: body ended after %d of %d bytes", u, part.n, pkg.Size))
	}
	if got := hex.EncodeToString(part.h.Sum(nil)); got != sha {
		if err := part.reset(); err != nil {
			return err
		}
		return f.mismatch(mismatches, &fault.HashMismatchError{Package: pkg.Name, URL: u, Expected: sha, Actual: got})
	}
	return nil
}

// mismatch allows one free retry from scratch after wrong bytes (they may
// have been damaged in transit); the second time the error is final.
func (f *Fetcher) mismatch(count *int, err error) error {
	*count++
	if *count == 1 {
		return &retryableError{err: err, free: true}
	}
	return err
}

// retry runs op until it succeeds, fails permanently, ctx ends or the retry
// budget is spent. progress reports how many bytes are on disk: an attempt
// that pushed it progressQuantum beyond every earlier attempt is not counted.
func (f *Fetcher) retry(ctx context.Context, pkg, u string, progress func() int64, op func(attempt int) error) error {
	bo := &backoff.ExponentialBackOff{
		InitialInterval:     500 * time.Millisecond,
		RandomizationFactor: 0.5,
		Multiplier:          1.5,
		MaxInterval:         30 * time.Second,
	}
	bo.Reset()
	high := progress()
	used := 0
	for attempt := 1; ; attempt++ {
		err := op(attempt)
		if err == nil {
			return nil
		}
		var re *retryableError
		if !errors.As(err, &re) {
			return err
		}
		if !isHTTP(u) {
			// A local file gives the same bytes again: no retry helps.
			return re.err
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		switch now := progress(); {
		case re.free:
		case now >= high+progressQuantum:
			high = now
			bo.Reset()
		default:
			high = max(high, now)
			used++
		}
		if used > f.opts.Retries {
			return fmt.Errorf("%w (gave up after %d attempts)", re.err, attempt)
		}
		var d time.Duration
		if f.opts.Backoff != nil {
			d = f.opts.Backoff(attempt)
		} else {
			d = bo.NextBackOff()
		}
		f.emit(Event{Kind: Retried, Package: pkg, URL: u, Attempt: attempt + 1, Bytes: progress(), Err: re.err})
		if d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return context.Cause(ctx)
			}
		}
	}
}
