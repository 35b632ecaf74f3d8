// Package fault is debredist's catalogue of errors: one type per kind of
// failure, returned as is by the stage that fails (the deb reader, the
// fetcher, the layout engine) and by package debredist, so that callers
// branch on it with [errors.As] and [errors.Is]. Each message names what failed
// (package, deb, member, entry, path, URL) and why.
//
// Errors of the public stage packages are defined there: apt.StanzaError,
// apt.MismatchError, apt.LockError, plan.VersionError,
// profile.InvalidError. fault is a leaf: it imports the standard library
// and the public leaf packages only (redist), so that every layer may
// return its errors.
package fault

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/debredist/debredist/debredist/entry"
)

// DebKind classifies a DebError.
type DebKind int

// DebError kinds.
const (
	DebFormat      DebKind = iota + 1 // malformed ar, tar, control or member layout
	DebUnsafePath                     // absolute, escaping, NUL or over-long name; bad link target
	DebDevice                         // character/block device or FIFO entry
	DebLimit                          // a limit was exceeded (a decompression bomb, too many entries, ...)
	DebCompression                    // unknown suffix, wrong magic, corrupt compressed stream
	DebTruncated                      // the input ended early
	DebExists                         // extraction: the destination exists and is not empty
	DebIO                             // reading the deb or writing the output failed
)

// Sentinel errors matching each DebKind with [errors.Is] (DebDevice matches
// [entry.ErrDevice], which package entry reports such an entry with).
var (
	ErrDebFormat      = errors.New("malformed deb")
	ErrDebUnsafePath  = errors.New("unsafe path")
	ErrDebLimit       = errors.New("limit exceeded")
	ErrDebCompression = errors.New("compression error")
	ErrDebTruncated   = errors.New("truncated")
	ErrDebExists      = errors.New("destination exists")
	ErrDebIO          = errors.New("i/o error")
)

// Sentinel returns the error [errors.Is] matches a DebError of kind k with.
func (k DebKind) Sentinel() error {
	switch k {
	case DebFormat:
		return ErrDebFormat
	case DebUnsafePath:
		return ErrDebUnsafePath
	case DebDevice:
		return entry.ErrDevice
	case DebLimit:
		return ErrDebLimit
	case DebCompression:
		return ErrDebCompression
	case DebTruncated:
		return ErrDebTruncated
	case DebExists:
		return ErrDebExists
	case DebIO:
		return ErrDebIO
	}
	return nil
}

// String names the kind ("malformed deb", "unsafe path", "limit exceeded", ...).
func (k DebKind) String() string {
	if s := k.Sentinel(); s != nil {
		return s.Error()
	}
	return "unknown error"
}

// DebError reports a .deb that cannot be read or extracted safely.
// [errors.Is] matches it with the ErrDeb* sentinel of its Kind.
type DebError struct {
	Deb    string // the deb's file name or path
	Member string // the ar member, e.g. "data.tar.xz"; "" if not applicable
	Entry  string // the tar entry as written in the archive; "" if not applicable
	Kind   DebKind
	Err    error // the cause
}

func (e *DebError) Error() string {
	var b strings.Builder
	b.WriteString("deb ")
	b.WriteString(e.Deb)
	if e.Member != "" {
		b.WriteString(": member ")
		b.WriteString(e.Member)
	}
	if e.Entry != "" {
		b.WriteString(": entry ")
		b.WriteString(QuoteName(e.Entry))
	}
	b.WriteString(": ")
	b.WriteString(e.Kind.String())
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// With returns a copy of e with the given kind and cause.
func (e *DebError) With(kind DebKind, err error) *DebError {
	x := *e
	x.Kind, x.Err = kind, err
	return &x
}

// Unwrap returns the cause.
func (e *DebError) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of e's Kind.
func (e *DebError) Is(target error) bool {
	s := e.Kind.Sentinel()
	return s != nil && target == s
}

// QuoteName makes a hostile name (NUL, control characters, invalid UTF-8)
// printable.
func QuoteName(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '"' {
			return strconv.Quote(s)
		}
	}
	return s
}

// HashMismatchError reports a download whose sha256 differs from the one
// the index promised, on two full downloads: NVIDIA re-uploads files under
// the same name, so this is an expected event.
type HashMismatchError struct {
	Package  string // package name, or the index path for an index file
	URL      string
	Expected string // sha256 from the index, Release or lock file
	Actual   string // sha256 of the bytes received
}

func (e *HashMismatchError) Error() string {
	return fmt.Sprintf("%s: %s: sha256 mismatch: expected %s, got %s "+
		"(the upstream file may have been replaced under the same name; refresh the index)",
		e.Package, e.URL, e.Expected, e.Actual)
}

// SizeMismatchError reports a file that is longer or shorter than the index
// said, on two full downloads in a row.
type SizeMismatchError struct {
	Package  string
	URL      string
	Expected int64
	Actual   int64 // bytes received; for a too long file, where reading stopped
}

func (e *SizeMismatchError) Error() string {
	return fmt.Sprintf("%s: %s: size mismatch: expected %d bytes, got at least %d "+
		"(the upstream file may have been replaced under the same name; refresh the index)",
		e.Package, e.URL, e.Expected, e.Actual)
}

// HTTPError reports an HTTP response with an unexpected status: 404, 403
// and 410 are not retried, 5xx, 408 and 429 until the retries are spent.
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

// MissingError lists every deb that is not in the cache when working
// offline.
type MissingError struct {
	Packages []MissingDeb
	Cache    string // the cache directory looked in
	Mirror   string // the mirror the debs would come from
	Local    bool   // Mirror is a directory (or file://) mirror
}

// MissingDeb names one deb a MissingError lists, as its index does.
type MissingDeb struct {
	Name, Version string
	Filename      string // its path on the mirror (the index's Filename)
	SHA256        string // the digest the cache would hold it under
}

// missingShown is how many debs a MissingError names (Packages has all).
const missingShown = 3

func (e *MissingError) Error() string { return e.Render(nil) }

// Render is Error with the options it names worded by w.
func (e *MissingError) Render(w Words) string {
	var b strings.Builder
	cache := "the cache"
	if e.Cache != "" {
		cache += " " + e.Cache
	}
	fmt.Fprintf(&b, "offline: %d deb(s) are not in %s: ", len(e.Packages), cache)
	for i, p := range e.Packages[:min(len(e.Packages), missingShown)] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", p.Name, p.Version)
	}
	if n := len(e.Packages) - missingShown; n > 0 {
		fmt.Fprintf(&b, " and %d more", n)
	}
	switch {
	case e.Local:
		fmt.Fprintf(
			&b,
			"; the mirror %s is a directory, which needs no network: drop %s to read the debs from it (they are verified and "+
				"kept in the cache)",
			e.Mirror,
			w.Say(RefOffline),
		)
	default:
		fmt.Fprintf(
			&b,
			"; run once without %s (%s with the same release or lock) to download them into the cache, or give %s DIR where "+
				"they are",
			w.Say(RefOffline),
			w.Say(RefFetch),
			w.Say(RefCacheDir),
		)
	}
	return b.String()
}

// CorruptCacheError reports a cache entry whose bytes do not hash to the
// sha256 it is stored under (the disk, a tool or a person changed it after
// it was verified).
type CorruptCacheError struct {
	Package  string // the deb's package name
	Path     string // the cache entry
	Expected string // its name: the sha256 the index or lock promised
	Actual   string // the sha256 of the bytes read
}

func (e *CorruptCacheError) Error() string {
	return fmt.Sprintf(
		"%s: cache entry %s is corrupt: its bytes hash to sha256 %s, expected %s",
		e.Package,
		e.Path,
		e.Actual,
		e.Expected,
	)
}

// SignatureError reports an InRelease or Release file whose OpenPGP
// signature is missing, malformed or not made by a key of the keyring.
type SignatureError struct {
	URL string
	Err error
}

func (e *SignatureError) Error() string {
	return fmt.Sprintf("%s: signature check failed: %v", e.URL, e.Err)
}

func (e *SignatureError) Unwrap() error { return e.Err }

// KeyringError is a keyring file that cannot be read or holds no OpenPGP
// public key.
type KeyringError struct {
	Path string
	Err  error
}

func (e *KeyringError) Error() string {
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		return fmt.Sprintf("keyring %s: %v", e.Path, pe.Err)
	}
	return fmt.Sprintf("keyring %s: %v", e.Path, e.Err)
}

func (e *KeyringError) Unwrap() error { return e.Err }

// IndexError is a repo's Packages index for a suite that could not be
// fetched, verified against its Release or parsed; Err says why (an
// *HTTPError, an *apt.MismatchError, a *SyntaxError, an *apt.StanzaError, a
// *SignatureError, ...).
type IndexError struct {
	Repo, Suite string
	Err         error
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("index %s %s: %v", e.Repo, e.Suite, e.Err)
}

func (e *IndexError) Unwrap() error { return e.Err }

// SameCauseError stands for several downloads that failed the same way (a
// mirror that is down, HTTP 500 from every URL, a full disk, files
// replaced upstream): one line, not one per deb, whatever the fault.
// Unwrap returns every error, so [errors.As] still finds each.
type SameCauseError struct {
	Cause string   // what they have in common, e.g. "HTTP 500 Internal Server Error"
	Debs  []string // the packages, in the order of Errs
	Errs  []error  // sorted; Errs[0] is the one shown in full
}

func (e *SameCauseError) Error() string {
	names := e.Debs
	more := ""
	if len(names) > 5 {
		names, more = names[:5], fmt.Sprintf(" and %d more", len(e.Debs)-5)
	}
	return fmt.Sprintf(
		"%d debs failed the same way (%s): %s%s; the first: %v",
		len(e.Errs),
		e.Cause,
		strings.Join(names, ", "),
		more,
		e.Errs[0],
	)
}

func (e *SameCauseError) Unwrap() []error { return e.Errs }

// DebPath is one path inside one deb.
type DebPath struct {
	Deb  string `json:"deb"`  // the deb's file name
	Path string `json:"path"` // the path inside its data.tar
}

// UnplacedError lists every deb path no layout rule of the profile places.
type UnplacedError struct {
	PName string    // the redist package
	Paths []DebPath // the paths without a place
}

func (e *UnplacedError) Error() string { return e.Render(nil) }

// Render is Error with the options it names worded by w.
func (e *UnplacedError) Render(w Words) string {
	var b strings.Builder
	fmt.Fprintf(
		&b,
		"redist package %s: %d deb path(s) have no place in the redist layout (add a rule to a %s file to place or drop "+
			"them):",
		e.PName,
		len(e.Paths),
		w.Say(RefProfileFile),
	)
	for _, o := range e.Paths {
		fmt.Fprintf(&b, "\n  %s: %s", o.Deb, o.Path)
	}
	return b.String()
}

// ConflictError reports two debs putting different things at one path of
// a redist package.
type ConflictError struct {
	PName  string  // the redist package
	Path   string  // the path in the redist layout
	A, B   DebPath // the two sources
	Reason string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf(
		"redist package %s: %s: %s:%s conflicts with %s:%s (%s)",
		e.PName,
		e.Path,
		e.A.Deb,
		e.A.Path,
		e.B.Deb,
		e.B.Path,
		e.Reason,
	)
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
	return fmt.Sprintf("redist package %s: %s: %s -> %s: %s", e.PName, e.Link.Deb, e.Link.Path, e.Target, e.Reason)
}

// IncompleteError is a plan that lacks redist packages its profile
// expects (profile.Profile.Expect): no deb of theirs is in the index or
// lock.
type IncompleteError struct {
	Suite, Profile string
	Source         string // "the index" or "the lock file <path>"
	Missing        []string
}

func (e *IncompleteError) Error() string { return e.Render(nil) }

// Render is Error with the options it names worded by w.
func (e *IncompleteError) Render(w Words) string {
	names := e.Missing
	more := ""
	if len(names) > 8 {
		names, more = names[:8], fmt.Sprintf(" and %d more", len(names)-8)
	}
	return fmt.Sprintf(
		"L4T %s: %s lacks %d redist package(s) profile %s expects: %s%s (a damaged or partial mirror? if the release "+
			"really lacks them, use a %s file whose \"expect\" leaves them out, or narrow the run with %s)",
		e.Suite,
		e.Source,
		len(e.Missing),
		e.Profile,
		strings.Join(names, ", "),
		more,
		w.Say(RefProfileFile),
		w.Say(RefOnly),
	)
}

// UsageError reports options that do not make sense together, or an input
// the user named that is unusable; Err is the cause, if any.
type UsageError struct {
	// Msg is what is wrong, in the library's words (Usagef also keeps the
	// Refs it names, for Render).
	Msg string
	Err error
	// File is the input the user named (a profile, lock file, keyring or
	// index) when it is that file that is missing or malformed.
	File string
	// Option is the option whose value the caller gave and cannot be
	// used, when the error is about one: Msg then starts with that value
	// and Error puts the option first, so that a caller that took the value
	// from elsewhere (a flag, an environment variable) can name where it
	// came from instead.
	Option Ref
	msg    *Message // Msg with its Refs, when Usagef made it
}

func (e *UsageError) Error() string { return e.Render(nil) }

// Render is Error with the Refs it names (Option, and those of a Usagef
// message) worded by w.
func (e *UsageError) Render(w Words) string {
	if e.Option != "" {
		return w.Say(e.Option) + " " + e.Text(w)
	}
	return e.Text(w)
}

// Text is the message without the Option it is about, its Refs worded by
// w.
func (e *UsageError) Text(w Words) string {
	switch {
	case e.msg != nil:
		return e.msg.Render(w)
	case e.Err != nil && w != nil:
		// Msg quotes its cause: the cause's Refs are worded too.
		return strings.Replace(e.Msg, e.Err.Error(), Render(e.Err, w), 1)
	}
	return e.Msg
}

func (e *UsageError) Unwrap() error { return e.Err }

// ErrUnverifiedIndex is (wrapped in the error of) a Packages index that no
// InRelease/Release file lists: it is refused unless the caller accepts it
// (like apt's [trusted=yes]), since without the Release's size and hash
// nothing tells a complete index from one cut short at a stanza boundary.
var ErrUnverifiedIndex = errors.New(
	"no Release file lists a Packages index, so the index cannot be checked for completeness",
)

// Usagef returns a *UsageError with a formatted message; its arguments may
// be Refs (see Errorf).
func Usagef(format string, a ...any) error {
	m := Errorf(format, a...)
	return &UsageError{Msg: m.Error(), msg: m}
}

// OptionErrorf returns a *UsageError about the value of option (see
// [UsageError.Option]); the message starts with the value.
func OptionErrorf(option Ref, err error, format string, a ...any) error {
	m := Errorf(format, a...)
	return &UsageError{Option: option, Msg: m.Error(), msg: m, Err: err}
}

// NotFoundError is a mirror, or a suite of one, that does not exist: a
// mirror directory that is missing, or a suite for which the mirror has no
// InRelease, Release and no Packages index. It is not an unverified index
// (ErrUnverifiedIndex): there is nothing to accept.
type NotFoundError struct {
	// What is missing: MirrorDirectory or "suite r36.9".
	What string
	// Path is the path or URL that does not exist.
	Path string
	// Repo is the repo whose suites Suites lists ("common").
	Repo string
	// Suites are the suites the mirror has for Repo, sorted, when they can
	// be listed (a directory mirror's dists/); Listed is false when they
	// cannot (an HTTP mirror does not list directories).
	Suites []string
	Listed bool
}

// MirrorDirectory is [NotFoundError.What] for a mirror directory that is
// not there.
const MirrorDirectory = "mirror directory"

func (e *NotFoundError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: no such %s", e.Path, e.What)
	if strings.HasPrefix(e.What, "suite") {
		sb.WriteString(" on the mirror (no InRelease, Release or Packages index there)")
	}
	switch {
	case e.Listed && len(e.Suites) > 0:
		fmt.Fprintf(&sb, "; the mirror's %s suites: %s", e.Repo, strings.Join(e.Suites, ", "))
	case e.Listed:
		fmt.Fprintf(&sb, "; the mirror has no %s suites at all", e.Repo)
	case e.Repo != "":
		sb.WriteString("; an HTTP mirror does not list its suites")
	}
	return sb.String()
}

// SyntaxError reports input that is not deb822 control syntax (apt indexes,
// Release files, a deb's control file): a line without a colon, a
// continuation line before any field, an invalid field name, a control
// character (binary junk), a second stanza or a field given twice where one
// stanza is read (a Release file), or a stanza or line above the size
// limit. Line is 1-based; Msg says what is wrong. apt.SyntaxError is this
// type.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("control syntax: line %d: %s", e.Line, e.Msg)
}
