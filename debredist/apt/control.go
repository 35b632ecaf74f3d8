package apt

import "github.com/debredist/debredist/debredist/fault"

// SyntaxError is [fault.SyntaxError] under the name of the package that
// parses indexes, Release files and control files: [errors.As] to
// *SyntaxError matches every control-syntax error, a deb control file's
// included.
type SyntaxError = fault.SyntaxError
