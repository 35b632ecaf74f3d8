package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/files"
)

// errRestart asks the caller to drop the partial download and start again
// from byte 0 (the server's range answer did not fit the partial).
var errRestart = errors.New("range answer does not match the partial download; restarting from zero")

// isHTTP reports whether loc is an http(s) URL.
func isHTTP(loc string) bool {
	l := strings.ToLower(loc)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// localPath turns a file:// URL or a plain path into a filesystem path.
func localPath(loc string) (string, error) {
	if !strings.Contains(loc, "://") {
		return loc, nil
	}
	u, err := url.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("%q: %w", loc, err)
	}
	if !strings.EqualFold(u.Scheme, "file") {
		return "", fmt.Errorf("%q: unsupported scheme %q (want an http, https or file URL, or a directory)", loc, u.Scheme)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("%q: file URL with remote host %q (want a file URL of this machine)", loc, u.Host)
	}
	return u.Path, nil
}

// CheckBase reports a mirror base that cannot be one: an http(s) URL that
// does not parse or names no host, a URL of another scheme, a file:// URL
// of another host; the error starts with base. It reads nothing (a directory that is not there is the
// first index read's *fault.NotFoundError). New calls it; callers that
// name the option the base came from call it first.
func CheckBase(base string) error {
	if isHTTP(base) {
		u, err := url.Parse(base)
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err // it would quote base again
		}
		if err != nil {
			return fmt.Errorf("%q: %w", base, err)
		}
		if u.Host == "" {
			return fmt.Errorf("%q: no host", base)
		}
		return nil
	}
	_, err := localPath(base)
	return err
}

// open opens loc for reading from byte offset (0: from the start). It
// returns the body and the offset of its first byte, which is 0 when the
// server ignored the range. cancel belongs to ctx; it is used to enforce the
// header timeout. Errors worth another attempt are marked retryable.
func (f *Fetcher) open(
	ctx context.Context,
	cancel context.CancelCauseFunc,
	pkg, loc string,
	offset int64,
) (io.ReadCloser, int64, error) {
	if !isHTTP(loc) {
		return openLocal(loc, offset)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", loc, err)
	}
	req.Header.Set("User-Agent", "debredist")
	// Exact bytes, meaningful Content-Length and Range offsets.
	req.Header.Set("Accept-Encoding", "identity")
	if offset > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(offset, 10)+"-")
	}
	t := time.AfterFunc(f.opts.Timeout, func() { cancel(errHeaderTimeout) })
	resp, err := f.client.Do(req)
	t.Stop()
	if err != nil {
		return nil, 0, classifyNetErr(ctx, loc, err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return resp.Body, 0, nil
	case http.StatusPartialContent:
		start, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != offset {
			_ = resp.Body.Close()
			return nil, 0, retryable(fmt.Errorf("%s: Content-Range %q for offset %d: %w",
				loc, resp.Header.Get("Content-Range"), offset, errRestart))
		}
		return resp.Body, start, nil
	case http.StatusRequestedRangeNotSatisfiable:
		_ = resp.Body.Close()
		return nil, 0, retryable(fmt.Errorf("%s: HTTP 416 for offset %d: %w", loc, offset, errRestart))
	}
	_ = resp.Body.Close()
	herr := &fault.HTTPError{Package: pkg, URL: loc, Status: resp.StatusCode}
	if retryableStatus(resp.StatusCode) {
		return nil, 0, retryable(herr)
	}
	return nil, 0, herr
}

func retryableStatus(code int) bool {
	return code >= 500 || code == http.StatusRequestTimeout || code == http.StatusTooManyRequests
}

// classifyNetErr turns a client error into the caller's cancellation, a
// permanent error (certificate problems) or a retryable one.
func classifyNetErr(ctx context.Context, loc string, err error) error {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errHeaderTimeout), errors.Is(cause, errStalled):
		return retryable(fmt.Errorf("%s: %w", loc, cause))
	case cause != nil:
		return cause
	}
	var (
		cve *tls.CertificateVerificationError
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
	)
	if errors.As(err, &cve) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci) {
		return err
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return err // a wrong host name does not heal by waiting
	}
	return retryable(err)
}

// parseContentRange returns the first byte offset of "bytes a-b/total".
func parseContentRange(s string) (int64, bool) {
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return 0, false
	}
	rng, _, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, false
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, false
	}
	start, err1 := strconv.ParseInt(a, 10, 64)
	end, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || start < 0 || end < start {
		return 0, false
	}
	return start, true
}

// openLocal opens a file of a file:// or directory mirror.
func openLocal(loc string, offset int64) (io.ReadCloser, int64, error) {
	path, err := localPath(loc)
	if err != nil {
		return nil, 0, err
	}
	fh, err := files.OpenRegular(path) // a named pipe or device is refused, never waited on
	if err != nil {
		return nil, 0, err // it names the path
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, 0, err
	}
	if offset <= 0 || offset > fi.Size() {
		return fh, 0, nil
	}
	if _, err := fh.Seek(offset, io.SeekStart); err != nil {
		fh.Close()
		return nil, 0, err
	}
	return fh, offset, nil
}

// isNotFound reports whether err means an optional index file does not
// exist on the mirror. 403 counts: S3-backed servers such as NVIDIA's answer
// 403 for missing objects.
func isNotFound(err error) bool {
	var he *fault.HTTPError
	if errors.As(err, &he) {
		return he.NotFound() || he.Status == http.StatusForbidden
	}
	return errors.Is(err, fs.ErrNotExist)
}
