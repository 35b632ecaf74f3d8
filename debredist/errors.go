package debredist

import (
	"errors"
	"fmt"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/deb"
	"github.com/debredist/debredist/internal/fetch"
	"github.com/debredist/debredist/internal/layout"
)

// DebErrorKind classifies a DebError.
type DebErrorKind int

// DebError kinds.
const (
	DebFormat      DebErrorKind = iota + 1 // malformed ar, tar, control or member layout
	DebUnsafePath                          // absolute, escaping, NUL or over-long name; bad link target
	DebDevice                              // character/block device or FIFO entry
	DebLimit                               // a DebLimits bound was exceeded (a decompression bomb, too many entries, ...)
	DebCompression                         // unknown suffix, wrong magic, corrupt compressed stream
	DebTruncated                           // the input ended early
	DebExists                              // ExtractDeb: the destination exists and is not empty
	DebIO                                  // reading the deb or writing the output failed
)

// String names the kind ("malformed deb", "unsafe path", "limit exceeded", ...).
func (k DebErrorKind) String() string { return deb.Kind(k).String() }

// DebError reports a .deb that cannot be read or extracted safely.
type DebError struct {
	Deb    string // the deb's file name or path
	Member string // the ar member, e.g. "data.tar.xz"; "" if not applicable
	Entry  string // the tar entry as written in the archive; "" if not applicable
	Kind   DebErrorKind
	Err    error // the cause
}

func (e *DebError) Error() string {
	return (&deb.Error{Deb: e.Deb, Member: e.Member, Entry: e.Entry, Kind: deb.Kind(e.Kind), Err: e.Err}).Error()
}
func (e *DebError) Unwrap() error { return e.Err }

// HashMismatchError reports a download whose sha256 differs from the one
// the index promised (twice: NVIDIA re-uploads files under the same name).
type HashMismatchError struct {
	Package  string // package name, or the index path for an index file
	URL      string
	Expected string // sha256 from the index, Release or lock file
	Actual   string // sha256 of the bytes received
}

func (e *HashMismatchError) Error() string {
	return (&fetch.HashMismatchError{Package: e.Package, URL: e.URL, Expected: e.Expected, Actual: e.Actual}).Error()
}

// HTTPError reports an HTTP response with an unexpected status (after the
// retries 5xx, 408 and 429 get).
type HTTPError struct {
	Package string // package name, or "" for an index file
	URL     string
	Status  int
}

func (e *HTTPError) Error() string {
	return (&fetch.HTTPError{Package: e.Package, URL: e.URL, Status: e.Status}).Error()
}

// NotFound reports whether the status means the file is not there (404, 410).
func (e *HTTPError) NotFound() bool { return (&fetch.HTTPError{Status: e.Status}).NotFound() }

// MissingError lists every deb that is not in the cache (Options.Offline).
type MissingError struct {
	Packages []apt.Package
	msg      string
}

func (e *MissingError) Error() string { return e.msg }

// SignatureError reports an InRelease or Release file whose OpenPGP
// signature is missing, malformed or not made by a key of Options.Keyring.
type SignatureError struct {
	URL string
	Err error
}

func (e *SignatureError) Error() string {
	return fmt.Sprintf("%s: signature check failed: %v", e.URL, e.Err)
}
func (e *SignatureError) Unwrap() error { return e.Err }

// CorruptCacheError reports a cache entry whose bytes no longer hash to the
// sha256 it is stored under (Options.VerifyCache, or a deb read in full).
type CorruptCacheError struct {
	Package  string // the deb's package name
	Path     string // the cache entry
	Expected string // the sha256 the index or lock file promised
	Actual   string // the sha256 of the bytes read
}

func (e *CorruptCacheError) Error() string {
	return (&fetch.CorruptError{Package: e.Package, Path: e.Path, Expected: e.Expected, Actual: e.Actual}).Error()
}

// IndexError reports a repo's Packages index for a suite that could not be
// fetched, verified against its Release, or parsed. Err says why; an
// *HTTPError or *SignatureError inside it is found by errors.As too.
type IndexError struct {
	Repo  string // "common", "t234", ...
	Suite string // "r36.5", ...
	Err   error
}

func (e *IndexError) Error() string {
	return (&fetch.IndexError{Repo: e.Repo, Suite: e.Suite, Err: e.Err}).Error()
}
func (e *IndexError) Unwrap() error { return e.Err }

// DebPath is one path inside one deb.
type DebPath struct {
	Deb  string // the deb's file name
	Path string // the path inside its data.tar
}

// UnplacedError lists every deb path no layout rule of the profile places.
type UnplacedError struct {
	PName string    // the redist package
	Paths []DebPath // the paths without a place
	msg   string
}

func (e *UnplacedError) Error() string { return e.msg }

// ConflictError reports two debs putting different things at one path of
// a redist package.
type ConflictError struct {
	PName  string  // the redist package
	Path   string  // the path in the redist layout
	A, B   DebPath // the two sources
	Reason string
}

func (e *ConflictError) Error() string {
	return (&layout.ConflictError{PName: e.PName, Path: e.Path, A: layout.Origin{Deb: e.A.Deb, Path: e.A.Path}, B: layout.Origin{Deb: e.B.Deb, Path: e.B.Path}, Reason: e.Reason}).Error()
}

// LinkError reports a symlink or hardlink whose target is not in the
// redist package's tree.
type LinkError struct {
	PName  string  // the redist package
	Link   DebPath // the link
	Target string
	Reason string
}

func (e *LinkError) Error() string {
	return (&layout.LinkError{PName: e.PName, Origin: layout.Origin{Deb: e.Link.Deb, Path: e.Link.Path}, Target: e.Target, Reason: e.Reason}).Error()
}

// VersionError reports a redist package whose debs disagree on the version.
type VersionError struct {
	PName    string              // the redist package
	Versions map[string][]string // normalized version -> the debs carrying it
}

func (e *VersionError) Error() string {
	return (&plan.VersionError{PName: e.PName, Versions: e.Versions}).Error()
}

// ProfileError reports a profile file that cannot be used.
type ProfileError struct {
	File  string // the profile file
	Field string // JSON path of the bad field, e.g. rules.components[0].pname; "" for decoding errors
	Value string // the field's value
	Want  string // the field's grammar, in words
	Err   error  // the decoding error, when Field is ""
}

func (e *ProfileError) Error() string {
	return (&profile.InvalidError{File: e.File, Field: e.Field, Value: e.Value, Want: e.Want, Err: e.Err}).Error()
}
func (e *ProfileError) Unwrap() error { return e.Err }

// LockFileError reports an invalid entry of a lock file (Options.LockFile).
type LockFileError struct {
	Repo, Package string // the entry
	Reason        string
}

func (e *LockFileError) Error() string {
	return (&apt.LockError{Repo: e.Repo, Package: e.Package, Reason: e.Reason}).Error()
}

// boundaryError is how every error leaves this package: the message is the
// internal error's, and errors.As finds the public type for each internal
// one in the chain (the internal types stay unreachable).
type boundaryError struct{ err error }

func (e *boundaryError) Error() string { return e.err.Error() }
func (e *boundaryError) Unwrap() error { return e.err }

// As converts the first internal error of the chain that corresponds to
// target's type.
func (e *boundaryError) As(target any) bool {
	switch t := target.(type) {
	case **DebError:
		var x *deb.Error
		if errors.As(e.err, &x) {
			*t = &DebError{Deb: x.Deb, Member: x.Member, Entry: x.Entry, Kind: DebErrorKind(x.Kind), Err: export(x.Err)}
			return true
		}
	case **HashMismatchError:
		var x *fetch.HashMismatchError
		if errors.As(e.err, &x) {
			*t = &HashMismatchError{Package: x.Package, URL: x.URL, Expected: x.Expected, Actual: x.Actual}
			return true
		}
	case **HTTPError:
		var x *fetch.HTTPError
		if errors.As(e.err, &x) {
			*t = &HTTPError{Package: x.Package, URL: x.URL, Status: x.Status}
			return true
		}
	case **IndexError:
		var x *fetch.IndexError
		if errors.As(e.err, &x) {
			*t = &IndexError{Repo: x.Repo, Suite: x.Suite, Err: export(x.Err)}
			return true
		}
	case **MissingError:
		var x *fetch.MissingError
		if errors.As(e.err, &x) {
			*t = &MissingError{Packages: x.Packages, msg: x.Error()}
			return true
		}
	case **SignatureError:
		var x *fetch.SignatureError
		if errors.As(e.err, &x) {
			*t = &SignatureError{URL: x.URL, Err: export(x.Err)}
			return true
		}
	case **CorruptCacheError:
		var x *fetch.CorruptError
		if errors.As(e.err, &x) {
			*t = &CorruptCacheError{Package: x.Package, Path: x.Path, Expected: x.Expected, Actual: x.Actual}
			return true
		}
	case **UnplacedError:
		var x *layout.UnplacedError
		if errors.As(e.err, &x) {
			u := &UnplacedError{PName: x.PName, msg: x.Error()}
			for _, o := range x.Paths {
				u.Paths = append(u.Paths, DebPath{Deb: o.Deb, Path: o.Path})
			}
			*t = u
			return true
		}
	case **ConflictError:
		var x *layout.ConflictError
		if errors.As(e.err, &x) {
			*t = &ConflictError{PName: x.PName, Path: x.Path, A: DebPath{x.A.Deb, x.A.Path}, B: DebPath{x.B.Deb, x.B.Path}, Reason: x.Reason}
			return true
		}
	case **LinkError:
		var x *layout.LinkError
		if errors.As(e.err, &x) {
			*t = &LinkError{PName: x.PName, Link: DebPath{x.Origin.Deb, x.Origin.Path}, Target: x.Target, Reason: x.Reason}
			return true
		}
	case **VersionError:
		var x *plan.VersionError
		if errors.As(e.err, &x) {
			*t = &VersionError{PName: x.PName, Versions: x.Versions}
			return true
		}
	case **ProfileError:
		var x *profile.InvalidError
		if errors.As(e.err, &x) {
			*t = &ProfileError{File: x.File, Field: x.Field, Value: x.Value, Want: x.Want, Err: export(x.Err)}
			return true
		}
	case **LockFileError:
		var x *apt.LockError
		if errors.As(e.err, &x) {
			*t = &LockFileError{Repo: x.Repo, Package: x.Package, Reason: x.Reason}
			return true
		}
	}
	return false
}

// export makes err leave the package: see boundaryError. It is applied by
// every exported function that returns an error.
func export(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*boundaryError); ok {
		return err
	}
	return &boundaryError{err: err}
}

// exportErr is export for a deferred call on a named result.
func exportErr(err *error) { *err = export(*err) }
