package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
)

const (
	// maxReleaseBytes bounds InRelease/Release; maxSigBytes Release.gpg.
	maxReleaseBytes = 16 << 20
	maxSigBytes     = 1 << 20
	// maxIndexBytes bounds a (compressed) Packages file as downloaded and
	// maxIndexPlainBytes its decompressed text.
	maxIndexBytes      = 128 << 20
	maxIndexPlainBytes = 1 << 30
)

// indexNames are the Packages variants in order of preference.
var indexNames = [...]string{"Packages.xz", "Packages.gz", "Packages"}

// IndexInfo describes the Packages file Index used.
type IndexInfo struct {
	Repo   string // repo name
	URL    string // URL (or path) of the Packages file
	SHA256 string // of the Packages file as downloaded (compressed)
	// Release is true when the Packages file was checked (size and sha256)
	// against an InRelease or Release file.
	Release bool
	// Signed is true when that Release's OpenPGP signature was verified with
	// the keyring. Without a keyring it is always false.
	Signed bool
}

// Index fetches one repo's Packages index for its suite. It tries InRelease,
// then Release (+ Release.gpg when a keyring is set), both optional (404, 410
// and 403 mean absent), then
// Packages.xz, Packages.gz and Packages in that order, taking the first that
// exists. When a Release lists any of them only the listed ones are tried and
// the one used must match the Release's size and sha256 (a response that
// does not is retried like a deb; an *apt.MismatchError once the retries are
// spent); when it lists none, all are tried and IndexInfo.Release stays
// false. Without a keyring signatures are not checked (Signed is false); with
// one a bad or missing signature, or a Packages file the signed Release does
// not cover, is an error (a *SignatureError for signatures). Index sets
// Package.Repo to repo.Name on every package. repo.Base is ignored: indexes,
// like debs, come from the Fetcher's mirror (Options.Base). Offline, only
// file and directory mirrors can be read.
// Every failure is an *IndexError naming the repo and suite.
func (f *Fetcher) Index(ctx context.Context, repo apt.Repo) ([]apt.Package, IndexInfo, error) {
	pkgs, info, err := f.index(ctx, repo)
	if err != nil {
		err = &fault.IndexError{Repo: repo.Name, Suite: repo.Suite, Err: err}
	}
	return pkgs, info, err
}

func (f *Fetcher) index(ctx context.Context, repo apt.Repo) ([]apt.Package, IndexInfo, error) {
	info := IndexInfo{Repo: repo.Name}
	repo.Base = f.base
	if repo.Component == "" {
		repo.Component = "main"
	}
	if repo.Arch == "" {
		repo.Arch = "arm64"
	}
	if err := repo.Validate(); err != nil {
		return nil, info, err
	}
	if err := CheckMirrorDir(f.base); err != nil {
		return nil, info, err
	}
	ir, err := f.newIndexReader(repo)
	if err != nil {
		return nil, info, err
	}
	rel, signed, err := f.release(ctx, ir, repo)
	if err != nil {
		return nil, info, err
	}
	if rel == nil && (f.keyring != nil || !f.opts.AllowUnverified) {
		// Neither InRelease nor Release: a suite the mirror lacks, or
		// a mirror made with dpkg-scanpackages alone. Only the latter
		// is worth --allow-unverified-index (or a signature).
		exists, err := f.anyIndex(ctx, ir, repo)
		switch {
		case err != nil:
			return nil, info, err
		case !exists:
			return nil, info, suiteNotFound(f.base, repo)
		case f.keyring != nil:
			return nil, info, &fault.SignatureError{
				URL: repo.DistURL("InRelease"),
				Err: errors.New("neither InRelease nor Release exists"),
			}
		default:
			return nil, info, fmt.Errorf("%s: no InRelease or Release: %w", repo.DistURL(""), fault.ErrUnverifiedIndex)
		}
	}

	var try []string
	if rel != nil {
		for _, n := range indexNames {
			if rel.Has(repo.IndexPath(n)) {
				try = append(try, n)
			}
		}
	}
	listed := len(try) > 0
	if !listed {
		if f.keyring != nil && rel != nil {
			return nil, info, fmt.Errorf("the signed Release lists no %s/Packages{.xz,.gz,}; cannot verify the index",
				strings.TrimSuffix(repo.IndexPath(""), "/"))
		}
		if !f.opts.AllowUnverified {
			return nil, info, fmt.Errorf("%s lists none of %s{.xz,.gz,}: %w", repo.DistURL("Release"),
				repo.IndexPath("Packages"), fault.ErrUnverifiedIndex)
		}
		try = indexNames[:]
	}
	var absent []string
	for _, n := range try {
		u := repo.IndexURL(n)
		// A response that does not match the Release, or (with no Release
		// to check it, from a remote mirror) does not decode, is retried
		// like a deb with wrong bytes: it may have been damaged in transit.
		var (
			pkgs     []apt.Package
			parseErr error
		)
		check := func(b []byte) error {
			if listed {
				if err := rel.Verify(repo.IndexPath(n), bytes.NewReader(b)); err != nil {
					return err
				}
			}
			pkgs, parseErr = parseIndex(b)
			if parseErr != nil && !listed && isHTTP(f.base) {
				return parseErr
			}
			return nil
		}
		data, err := ir.get(ctx, u, maxIndexBytes, check)
		if isNotFound(err) {
			absent = append(absent, u)
			continue
		}
		if err != nil {
			return nil, info, err
		}
		if err := apt.CheckCompressionName(u, data); err != nil {
			return nil, info, err
		}
		if parseErr != nil {
			return nil, info, fmt.Errorf("%s: %w", u, parseErr)
		}
		for i := range pkgs {
			pkgs[i].Repo = repo.Name
		}
		sum := sha256.Sum256(data)
		info.URL, info.SHA256 = u, hex.EncodeToString(sum[:])
		info.Release, info.Signed = listed, listed && signed
		ir.save(repo)
		return pkgs, info, nil
	}
	if !listed {
		return nil, info, suiteNotFound(f.base, repo)
	}
	return nil, info, fmt.Errorf("no Packages index found (tried %s)", strings.Join(absent, ", "))
}

// anyIndex reports whether the mirror has any Packages variant of the
// repo's suite (its bytes are not checked: this only tells a suite that
// exists from one that does not).
func (f *Fetcher) anyIndex(ctx context.Context, ir *indexReader, repo apt.Repo) (bool, error) {
	for _, n := range indexNames {
		_, err := ir.get(ctx, repo.IndexURL(n), maxIndexBytes, nil)
		if isNotFound(err) {
			continue
		}
		return err == nil, err
	}
	return false, nil
}

// CheckMirrorDir refuses a directory mirror that does not exist (a
// *fault.NotFoundError) or is no directory, naming it, before any of its
// files is looked for; the error starts with the directory. An http(s)
// base passes.
func CheckMirrorDir(base string) error {
	if isHTTP(base) {
		return nil
	}
	p, err := localPath(base)
	if err != nil {
		return fmt.Errorf("mirror %w", err)
	}
	fi, err := os.Stat(p)
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &fault.NotFoundError{What: fault.MirrorDirectory, Path: p}
	case errors.As(err, &pe):
		return fmt.Errorf("%s: mirror directory: %w", p, pe.Err)
	case err != nil:
		return fmt.Errorf("%s: mirror directory: %w", p, err)
	case !fi.IsDir():
		return fmt.Errorf("%s: not a directory (want an http(s) URL, a file:// URL or a directory as the mirror)", p)
	}
	return nil
}

// suiteNotFound is the error for a suite the mirror lacks, with the suites
// it has when they can be listed (a directory mirror's <repo>/dists/).
func suiteNotFound(base string, repo apt.Repo) error {
	e := &fault.NotFoundError{What: "suite " + repo.Suite, Path: strings.TrimRight(repo.DistURL(""), "/"), Repo: repo.Name}
	if isHTTP(base) {
		return e
	}
	suite, err := localPath(repo.DistURL(""))
	if err != nil {
		return e
	}
	ents, err := os.ReadDir(filepath.Dir(filepath.Clean(suite)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return e
	}
	e.Listed = true
	for _, de := range ents {
		if de.IsDir() {
			e.Suites = append(e.Suites, de.Name())
		}
	}
	sort.Strings(e.Suites)
	return e
}

// parseIndex decompresses (bounded) and parses a Packages file, refusing it
// whole at the first stanza that cannot be used (as apt does).
func parseIndex(data []byte) ([]apt.Package, error) {
	rc, err := apt.Decompress(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }()
	pkgs, _, err := apt.ParsePackages(&capReader{r: rc, left: maxIndexPlainBytes}, apt.ParseOptions{Strict: true})
	return pkgs, err
}

// capReader fails, instead of truncating, past its limit.
type capReader struct {
	r    io.Reader
	left int64
}

var errTooLarge = errors.New("decompressed index is too large")

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("%w (more than %d bytes)", errTooLarge, int64(maxIndexPlainBytes))
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// release fetches and checks InRelease, or Release (+ Release.gpg). It
// returns nil when the repo has neither.
func (f *Fetcher) release(ctx context.Context, ir *indexReader, repo apt.Repo) (*apt.ReleaseFile, bool, error) {
	inURL := repo.DistURL("InRelease")
	data, err := ir.get(ctx, inURL, maxReleaseBytes, nil)
	if err == nil {
		text, signed, err := f.inRelease(data)
		if err != nil {
			return nil, false, &fault.SignatureError{URL: inURL, Err: err}
		}
		rel, err := apt.ParseReleaseFile(bytes.NewReader(text))
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", inURL, err)
		}
		return rel, signed, nil
	}
	if !isNotFound(err) {
		return nil, false, err
	}

	relURL := repo.DistURL("Release")
	data, err = ir.get(ctx, relURL, maxReleaseBytes, nil)
	if isNotFound(err) {
		return nil, false, nil // index decides: a missing suite, or an unsigned one
	}
	if err != nil {
		return nil, false, err
	}
	signed := false
	if f.keyring != nil {
		sigURL := repo.DistURL("Release.gpg")
		sig, err := ir.get(ctx, sigURL, maxSigBytes, nil)
		if isNotFound(err) {
			return nil, false, &fault.SignatureError{URL: sigURL, Err: errors.New("no InRelease and no Release.gpg")}
		}
		if err != nil {
			return nil, false, err
		}
		if err := f.checkDetached(data, sig); err != nil {
			return nil, false, &fault.SignatureError{URL: sigURL, Err: err}
		}
		signed = true
	}
	rel, err := apt.ParseReleaseFile(bytes.NewReader(data))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", relURL, err)
	}
	return rel, signed, nil
}

// get downloads a small file into memory with the usual retries, timeouts
// and stall detection. A file larger than limit is an error.
func (f *Fetcher) get(ctx context.Context, u string, limit int64) ([]byte, error) {
	return f.getChecked(ctx, u, limit, nil)
}

// getChecked is get with a check of each response's bytes (nil: none); a
// response failing it is retried within the same attempt budget, and the
// error says on which attempt it failed.
func (f *Fetcher) getChecked(ctx context.Context, u string, limit int64, check func([]byte) error) ([]byte, error) {
	var buf bytes.Buffer
	err := f.retry(ctx, "", u, func() int64 { return 0 }, func(attempt int) error {
		buf.Reset()
		actx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		rc, _, err := f.open(actx, cancel, "", u, 0)
		if err != nil {
			return err
		}
		defer func() { _ = rc.Close() }()
		stall := time.AfterFunc(f.opts.StallTimeout, func() { cancel(errStalled) })
		defer stall.Stop()
		n, err := buf.ReadFrom(io.LimitReader(&stallReader{r: rc, t: stall, d: f.opts.StallTimeout}, limit+1))
		switch {
		case err != nil && ctx.Err() != nil:
			return context.Cause(ctx)
		case err != nil && errors.Is(context.Cause(actx), errStalled):
			return retryable(fmt.Errorf("%s: after %d bytes: %w", u, n, errStalled))
		case err != nil:
			return retryable(fmt.Errorf("%s: reading body after %d bytes: %w", u, n, err))
		case n > limit:
			return fmt.Errorf("%s: larger than %d bytes", u, limit)
		}
		if check != nil {
			if err := check(buf.Bytes()); err != nil {
				return retryable(fmt.Errorf("%s: %w (attempt %d)", u, err, attempt))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// stallReader pushes the stall deadline back on every read that got bytes.
type stallReader struct {
	r io.Reader
	t *time.Timer
	d time.Duration
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.t.Reset(s.d)
	}
	return n, err
}
