package apt

import (
	"strings"

	"github.com/debredist/debredist/internal/deb822"
)

// Package is one stanza of a Packages index: a binary deb that can be
// downloaded from a repository.
type Package struct {
	// Repo is the repository the stanza came from ("common", "t234", …).
	// The index parser leaves it empty; callers that know the repo set it.
	Repo string `json:"repo,omitempty"`

	Name         string `json:"package"`
	Version      string `json:"version"`
	Architecture string `json:"architecture,omitempty"`
	// Filename is the pool path relative to the repository root.
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
	MD5sum   string `json:"md5sum,omitempty"`
	SHA1     string `json:"sha1,omitempty"`

	// Source is the Debian source name (Package when the stanza has no
	// Source field); SourceVersion is the version in parentheses, if any.
	Source        string `json:"source"`
	SourceVersion string `json:"source_version,omitempty"`

	// Description is the first line of the Description field.
	Description string `json:"description,omitempty"`
	Depends     string `json:"depends,omitempty"`
	Provides    string `json:"provides,omitempty"`

	// Fields holds every field of the stanza, keyed by the name as written,
	// including the ones above, so that unknown fields stay reachable (use
	// Field for a case-insensitive lookup). Values are trimmed; continuation
	// lines are trimmed and joined with "\n", a " ." line becoming "".
	Fields map[string]string `json:"-"`
	// Line is the 1-based line number where the stanza starts in its index.
	Line int `json:"-"`
}

// Field returns the value of the named stanza field, matching the name
// case-insensitively as deb822 does, or "" when absent.
func (p *Package) Field(name string) string { return deb822.Field(p.Fields, name) }

// IsMeta reports a meta-package: any line of the full Description field (or
// of Description when Fields is not set) mentions "meta-package",
// "metapackage" or "meta package", in any case.
func (p *Package) IsMeta() bool {
	d := p.Field("Description")
	if d == "" {
		d = p.Description
	}
	d = strings.ToLower(strings.Join(strings.Fields(d), " "))
	return strings.Contains(d, "meta-package") || strings.Contains(d, "metapackage") ||
		strings.Contains(d, "meta package")
}
