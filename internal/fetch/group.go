package fetch

import "fmt"

// SameCauseError stands for several downloads that failed with the same
// underlying error (a mirror that is down, a full disk): one line, not one
// per deb. Unwrap returns every error, so errors.As still finds each.
type SameCauseError struct {
	Errs []error // sorted; Errs[0] is the one shown
}

func (e *SameCauseError) Error() string {
	return fmt.Sprintf("%d debs failed the same way; the first: %v", len(e.Errs), e.Errs[0])
}

func (e *SameCauseError) Unwrap() []error { return e.Errs }

// groupByCause folds errors whose innermost cause reads the same into one
// *SameCauseError, keeping the order of first appearance.
func groupByCause(errs []error) []error {
	groups := map[string]*SameCauseError{}
	var out []error
	for _, err := range errs {
		k := rootCause(err)
		if g := groups[k]; g != nil {
			g.Errs = append(g.Errs, err)
			continue
		}
		g := &SameCauseError{Errs: []error{err}}
		groups[k] = g
		out = append(out, g)
	}
	for i, e := range out {
		if g := e.(*SameCauseError); len(g.Errs) == 1 {
			out[i] = g.Errs[0]
		}
	}
	return out
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
