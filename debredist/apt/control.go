package apt

import "github.com/debredist/debredist/internal/deb822"

// SyntaxError reports input that is not deb822 control syntax: a line
// without a colon, a continuation line before any field, an invalid field
// name, a control character (binary junk), a second stanza or a field
// given twice where one stanza is read (a Release file), or a stanza or
// line above the size limit. Line is 1-based; Msg says what is wrong.
//
// It is the error of package deb822 (the parser, internal) under this
// package's name, so errors.As to *SyntaxError matches every deb822
// syntax error, a deb control file's included.
type SyntaxError = deb822.SyntaxError
