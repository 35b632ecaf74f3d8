package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/jsonpos"
)

// The index cache lets Index work offline against an http(s) mirror after
// one online run. Every file an online Index read (InRelease, Release,
// Release.gpg, the Packages file) is stored by its sha256 under
// <cache>/index/sha256/, and one record per mirror, repo and suite names
// them by URL (and the URLs that were absent). An offline Index replays
// exactly those responses through the same checks: the Packages file is
// still verified against the Release's hash, and the Release's signature
// against the keyring. Nothing is trusted because it is in the cache.

// maxIndexRecordBytes bounds a record (a few URLs and hashes).
const maxIndexRecordBytes = 64 << 10

// indexRecord is what one online Index call read, by URL.
type indexRecord struct {
	Base  string `json:"base"`
	Repo  string `json:"repo"`
	Suite string `json:"suite"`
	// Files maps each URL read to the sha256 of its bytes, or to "" when
	// the mirror said it does not exist.
	Files map[string]string `json:"files"`
}

// indexReader fetches the files of one Index call: from the mirror (and
// then records them), or offline from the index cache.
type indexReader struct {
	f      *Fetcher
	rec    *indexRecord
	blobs  map[string][]byte // sha256 -> bytes read online, stored by save
	replay bool
}

func (f *Fetcher) newIndexReader(repo apt.Repo) (*indexReader, error) {
	r := &indexReader{
		f:     f,
		rec:   &indexRecord{Base: f.base, Repo: repo.Name, Suite: repo.Suite, Files: map[string]string{}},
		blobs: map[string][]byte{},
	}
	if !f.opts.Offline || !isHTTP(f.base) {
		return r, nil
	}
	r.replay = true
	b, err := readCapped(f.indexRecordPath(repo), maxIndexRecordBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fault.Errorf(
			"offline: the index of %s %s from %s is not in the cache (%s); run once without %s to cache it",
			repo.Name,
			repo.Suite,
			f.base,
			f.cache,
			fault.RefOffline,
		)
	}
	if err == nil {
		err = jsonpos.Decode(f.indexRecordPath(repo), b, r.rec)
	}
	if err == nil && (r.rec.Base != f.base || r.rec.Repo != repo.Name || r.rec.Suite != repo.Suite) {
		err = errors.New("it records another mirror, repo or suite")
	}
	if err != nil {
		return nil, fault.Errorf(
			"offline: cached index record %s is unusable (%v); run once without %s to replace it",
			f.indexRecordPath(repo),
			err,
			fault.RefOffline,
		)
	}
	return r, nil
}

// get is Fetcher.getChecked, recorded (online) or replayed (offline).
func (r *indexReader) get(ctx context.Context, u string, limit int64, check func([]byte) error) ([]byte, error) {
	if !r.replay {
		b, err := r.f.getChecked(ctx, u, limit, check)
		switch {
		case err == nil:
			sum := sha256.Sum256(b)
			h := hex.EncodeToString(sum[:])
			r.rec.Files[u], r.blobs[h] = h, b
		case isNotFound(err):
			r.rec.Files[u] = ""
		}
		return b, err
	}
	sum, ok := r.rec.Files[u]
	if !ok {
		return nil, fault.Errorf("offline: %s is not in the index cache; run once without %s", u, fault.RefOffline)
	}
	if sum == "" {
		return nil, fmt.Errorf("%s: %w (as recorded by the last online run)", u, fs.ErrNotExist)
	}
	p, err := r.f.indexBlobPath(sum)
	if err != nil {
		return nil, fmt.Errorf("offline: cached %s: %w", u, err)
	}
	b, err := readCapped(p, limit)
	if err != nil {
		return nil, fault.Errorf("offline: cached %s: %w; run once without %s", u, err, fault.RefOffline)
	}
	if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
		return nil, fault.Errorf(
			"offline: cached %s (%s) does not have the sha256 recorded for it; run once without %s",
			u,
			p,
			fault.RefOffline,
		)
	}
	if check != nil {
		if err := check(b); err != nil {
			return nil, fmt.Errorf("offline: cached %s: %w", u, err)
		}
	}
	return b, nil
}

// save stores what an online Index read, for later offline runs. It is
// best effort: a cache that cannot be written costs only the offline use.
func (r *indexReader) save(repo apt.Repo) {
	if r.replay || !isHTTP(r.f.base) {
		return
	}
	for sum, b := range r.blobs {
		p, err := r.f.indexBlobPath(sum)
		if err != nil {
			return
		}
		if err := files.Write(p, b, filepath.Dir(p)); err != nil {
			return
		}
	}
	b, err := json.MarshalIndent(r.rec, "", "  ")
	if err != nil {
		return
	}
	_ = files.Write(r.f.indexRecordPath(repo), b, filepath.Dir(r.f.indexRecordPath(repo)))
}

// indexRecordPath is where the record of one mirror, repo and suite lives.
func (f *Fetcher) indexRecordPath(repo apt.Repo) string {
	key := sha256.Sum256([]byte(f.base + "\x00" + repo.Name + "\x00" + repo.Suite))
	return filepath.Join(f.cache, "index", "records", hex.EncodeToString(key[:])+".json")
}

// indexBlobPath is where the index file of this sha256 lives.
func (f *Fetcher) indexBlobPath(sum string) (string, error) {
	sum, err := normalizeSHA(sum)
	if err != nil {
		return "", err
	}
	return filepath.Join(f.cache, "index", "sha256", sum[:2], sum), nil
}

// readCapped reads a whole file of at most limit bytes.
func readCapped(p string, limit int64) ([]byte, error) {
	return files.ReadRegular(p, limit) // the cache is not trusted: a named pipe is refused, never waited on
}
