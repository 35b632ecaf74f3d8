package mirrorgen

import (
	"fmt"
	"strings"
)

// UnknownSuiteError is returned for a suite mirrorgen has no inventory for.
type UnknownSuiteError struct {
	Suite string
	Known []string
}

func (e *UnknownSuiteError) Error() string {
	return fmt.Sprintf("mirrorgen: unknown suite %q (known: %s)", e.Suite, strings.Join(e.Known, ", "))
}

// UnknownPackageError is returned by Files for a package that is not in the
// suite's inventory.
type UnknownPackageError struct {
	Suite, Repo, Package string
}

func (e *UnknownPackageError) Error() string {
	return fmt.Sprintf("mirrorgen: suite %s repo %s has no package %q", e.Suite, e.Repo, e.Package)
}

// ConflictError is returned when two suites of one Generate call would write
// different bytes to the same pool file (same repo and Filename). Real
// repositories share pool files between suites; so does mirrorgen, and the
// contents must then agree.
type ConflictError struct {
	Path   string // output path relative to the mirror root
	Suites [2]string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf(
		"mirrorgen: %s: suites %s and %s generate different bytes for the same pool file",
		e.Path,
		e.Suites[0],
		e.Suites[1],
	)
}
