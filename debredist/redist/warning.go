package redist

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
)

// Warning is something a consumer of an archive will trip over: recorded
// per archive in the provenance sidecar ([Archive.Warnings]), returned by
// debredist.Convert (debredist.Result.Warnings, for every archive of the
// manifests the run wrote or kept) and printed on stderr with its code.
// Code is one of the Warn* constants, stable across versions: a CI job
// allows codes by name (convert --fail-on-warnings --allow-warning CODE).
type Warning struct {
	Code    string `json:"code"`
	Package string `json:"package"` // the redist package (pname); "" for the profile as a whole
	Message string `json:"message"`
}

// The warning codes.
const (
	// WarnEmptyOutput: an output nixpkgs declares for the package would
	// be empty (nixpkgs' checkCudaNonEmptyOutputs fails on it).
	WarnEmptyOutput = "nixpkgs-empty-output"
	// WarnInsecure: nixpkgs marks the package's version insecure
	// (meta.knownVulnerabilities).
	WarnInsecure = "nixpkgs-insecure"
	// WarnEntryDropped: a deb entry was dropped (a link into
	// /etc/alternatives that no link rule resolves).
	WarnEntryDropped = "entry-dropped"
	// WarnRuleUnused: a layout rule of the profile placed and dropped
	// nothing in the packages it applies to.
	WarnRuleUnused = "profile-rule-unused"
)

// WarningCodes are every code a Warning may carry, sorted.
var WarningCodes = []string{WarnEntryDropped, WarnEmptyOutput, WarnInsecure, WarnRuleUnused}

// String is the warning as printed on stderr: the message and the code.
func (w Warning) String() string { return w.Message + " [" + w.Code + "]" }

// SortWarnings sorts ws by package, code and message and drops duplicates.
func SortWarnings(ws []Warning) []Warning {
	slices.SortFunc(ws, func(a, b Warning) int {
		return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.Code, b.Code), cmp.Compare(a.Message, b.Message))
	})
	return slices.Compact(ws)
}

// WarningsError is a conversion that wrote and verified its output but
// fails because of warnings (debredist.Build.FailOnWarnings): Warnings are
// those whose codes Allowed does not name.
type WarningsError struct {
	Warnings []Warning
	Allowed  []string
}

func (e *WarningsError) Error() string { return e.Render(nil) }

// Render is Error with the options it names worded by w.
func (e *WarningsError) Render(w fault.Words) string {
	codes := map[string]int{}
	var order []string
	for _, w := range e.Warnings {
		if codes[w.Code] == 0 {
			order = append(order, w.Code)
		}
		codes[w.Code]++
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = fmt.Sprintf("%s (%d)", c, codes[c])
	}
	first := e.Warnings[0]
	return fmt.Sprintf("%d warning(s) not allowed: %s; the first: %s (the output is written; to accept a code: %s CODE)",
		len(e.Warnings), strings.Join(parts, ", "), first.String(), w.Say(fault.RefAllowWarnings))
}
