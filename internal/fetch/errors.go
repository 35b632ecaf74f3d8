package fetch

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
)

// HashMismatchError reports a file whose sha256 differs from the one the index
// promised, after a second full download gave the same kind of result. NVIDIA
// re-uploads files under the same name, so this is an expected event.
type HashMismatchError struct {
	Package  string // package name, or the index path for an index file
	URL      string
	Expected string // sha256 from the index or Release
	Actual   string // sha256 of the bytes received
}

func (e *HashMismatchError) Error() string {
	return fmt.Sprintf("%s: %s: sha256 mismatch: expected %s, got %s "+
		"(the upstream file may have been replaced under the same name; refresh the index)",
		e.Package, e.URL, e.Expected, e.Actual)
}

// HTTPError reports an HTTP response with an unexpected status. 404, 403 and
// 410 are not retried; 5xx, 408 and 429 are retried until the budget is spent.
type HTTPError struct {
	Package string // package name, or "" for an index file
	URL     string
	Status  int
}

func (e *HTTPError) Error() string {
	what := e.URL
	if e.Package != "" {
		what = e.Package + ": " + e.URL
	}
	return fmt.Sprintf("%s: HTTP %d %s", what, e.Status, http.StatusText(e.Status))
}

// NotFound reports whether the status means the file is not there (404, 410).
func (e *HTTPError) NotFound() bool {
	return e.Status == http.StatusNotFound || e.Status == http.StatusGone
}

// MissingError lists every deb that is not in the cache when fetching offline.
type MissingError struct {
	Packages []apt.Package
}

func (e *MissingError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "offline: %d deb(s) not in the cache:", len(e.Packages))
	for _, p := range e.Packages {
		fmt.Fprintf(&b, "\n  %s %s (%s, sha256 %s)", p.Name, p.Version, p.Filename, p.SHA256)
	}
	return b.String()
}

// SignatureError reports an InRelease or Release file whose OpenPGP signature
// is missing, malformed or not made by a key of the configured keyring.
type SignatureError struct {
	URL string
	Err error
}

func (e *SignatureError) Error() string {
	return fmt.Sprintf("%s: signature check failed: %v", e.URL, e.Err)
}

func (e *SignatureError) Unwrap() error { return e.Err }

// errStalled is the cancellation cause when no body bytes arrived for
// StallTimeout; errHeaderTimeout when the response headers took longer than
// Timeout.
var (
	errStalled       = errors.New("download stalled: no data received within the stall timeout")
	errHeaderTimeout = errors.New("no response headers within the timeout")
)

// retryableError marks an attempt failure that a later attempt may fix. A
// free retry does not use up the retry budget.
type retryableError struct {
	err  error
	free bool
}

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

func retryable(err error) error { return &retryableError{err: err} }

// IndexError is a failure to fetch, verify or parse one repo's Packages
// index for a suite; Err says why (an *HTTPError, an *apt.MismatchError
// against the Release, an *apt.SyntaxError, a *SignatureError, ...).
type IndexError struct {
	Repo, Suite string
	Err         error
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("index %s %s: %v", e.Repo, e.Suite, e.Err)
}

func (e *IndexError) Unwrap() error { return e.Err }
