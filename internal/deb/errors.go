package deb

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind classifies an Error.
type Kind int

// Error kinds.
const (
	KindFormat      Kind = iota + 1 // malformed ar, tar, control or member layout
	KindUnsafePath                  // absolute, escaping, NUL or over-long name; bad link target
	KindDevice                      // character/block device or FIFO entry
	KindLimit                       // a Limits bound was exceeded
	KindCompression                 // unknown suffix, wrong magic, corrupt compressed stream
	KindTruncated                   // the input ended early
	KindExists                      // Extract: destination exists and is not empty
	KindIO                          // reading the input or writing the output failed
)

// Sentinel errors matching each Kind with errors.Is.
var (
	ErrFormat      = errors.New("malformed deb")
	ErrUnsafePath  = errors.New("unsafe path")
	ErrDevice      = errors.New("device or fifo entry")
	ErrLimit       = errors.New("limit exceeded")
	ErrCompression = errors.New("compression error")
	ErrTruncated   = errors.New("truncated")
	ErrExists      = errors.New("destination exists")
	ErrIO          = errors.New("i/o error")
)

func (k Kind) sentinel() error {
	switch k {
	case KindFormat:
		return ErrFormat
	case KindUnsafePath:
		return ErrUnsafePath
	case KindDevice:
		return ErrDevice
	case KindLimit:
		return ErrLimit
	case KindCompression:
		return ErrCompression
	case KindTruncated:
		return ErrTruncated
	case KindExists:
		return ErrExists
	case KindIO:
		return ErrIO
	}
	return nil
}

// String returns the kind's sentinel text.
func (k Kind) String() string {
	if s := k.sentinel(); s != nil {
		return s.Error()
	}
	return "unknown error"
}

// Error is the error type returned by this package. Use errors.As to get at
// the deb, member and entry it concerns, or errors.Is with the Err*
// sentinels to test its Kind.
type Error struct {
	Deb    string // deb name (Options.Name or file path)
	Member string // ar member, e.g. "data.tar.xz"; empty if not applicable
	Entry  string // tar entry name as written in the archive; empty if not applicable
	Kind   Kind
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("deb ")
	b.WriteString(e.Deb)
	if e.Member != "" {
		b.WriteString(": member ")
		b.WriteString(e.Member)
	}
	if e.Entry != "" {
		b.WriteString(": entry ")
		b.WriteString(quoteName(e.Entry))
	}
	b.WriteString(": ")
	b.WriteString(e.Kind.String())
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// with returns a copy of e with the given kind and cause.
func (e *Error) with(kind Kind, err error) *Error {
	x := *e
	x.Kind, x.Err = kind, err
	return &x
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of e's Kind.
func (e *Error) Is(target error) bool {
	s := e.Kind.sentinel()
	return s != nil && target == s
}

// quoteName makes hostile names (NUL, control characters, invalid UTF-8)
// printable.
func quoteName(s string) string {
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
