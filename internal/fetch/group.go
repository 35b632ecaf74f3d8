package fetch

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
)

// groupByCause folds errors of the same kind (causeOf) into one
// *SameCauseError, keeping the order of first appearance.
func groupByCause(errs []error) []error {
	groups := map[string]*fault.SameCauseError{}
	var out []error
	for _, err := range errs {
		k := causeOf(err)
		if g := groups[k]; g != nil {
			g.Errs = append(g.Errs, err)
			g.Debs = append(g.Debs, debOf(err))
			continue
		}
		g := &fault.SameCauseError{Cause: k, Errs: []error{err}, Debs: []string{debOf(err)}}
		groups[k] = g
		out = append(out, g)
	}
	for i, e := range out {
		if g := e.(*fault.SameCauseError); len(g.Errs) == 1 {
			out[i] = g.Errs[0]
		}
	}
	return out
}

// causeOf says what kind of failure err is, without the deb or URL it
// names: the HTTP status, a hash or size mismatch, or else the message of
// the innermost error it wraps (e.g. "connection refused").
func causeOf(err error) string {
	var he *fault.HTTPError
	var hm *fault.HashMismatchError
	var sm *fault.SizeMismatchError
	var ce *fault.CorruptCacheError
	switch {
	case errors.As(err, &he):
		return fmt.Sprintf("HTTP %d %s", he.Status, http.StatusText(he.Status))
	case errors.As(err, &hm):
		return "sha256 mismatch: the upstream files may have been replaced under the same names; refresh the index"
	case errors.As(err, &sm):
		return "size mismatch"
	case errors.As(err, &ce):
		return "corrupt cache entry"
	}
	return rootCause(err)
}

// debOf names the deb an error of Fetch is about (its message starts with
// the package name).
func debOf(err error) string {
	var he *fault.HTTPError
	if errors.As(err, &he) && he.Package != "" {
		return he.Package
	}
	name, _, _ := strings.Cut(err.Error(), " ")
	return strings.TrimSuffix(name, ":")
}

// rootCause is the message of the innermost error err wraps (through
// single-error joins), e.g. "connection refused".
func rootCause(err error) string {
	for {
		var next error
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		case interface{ Unwrap() []error }:
			if es := u.Unwrap(); len(es) == 1 {
				next = es[0]
			}
		}
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
