package apt

import "github.com/debredist/debredist/internal/deb822"

// SyntaxError reports input that is not deb822 control syntax: a line
// without a colon, a continuation line before any field, an invalid field
// name, a control character (binary junk), or a stanza or line above the
// size limit. Line is 1-based. It is the error of package deb822 (the
// parser, internal) under this package's name, for errors.As.
type SyntaxError deb822.SyntaxError

func (e *SyntaxError) Error() string { return (*deb822.SyntaxError)(e).Error() }

// syntaxError returns the deb822 reader's *deb822.SyntaxError as this
// package's *SyntaxError; other errors (reading failed) are returned as
// they are.
func syntaxError(err error) error {
	if se, ok := err.(*deb822.SyntaxError); ok {
		return (*SyntaxError)(se)
	}
	return err
}
