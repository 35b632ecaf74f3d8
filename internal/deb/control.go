package deb

import (
	"fmt"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/internal/deb822"
)

// Control is the parsed control stanza of a deb.
type Control struct {
	Package       string
	Version       string
	Architecture  string
	Source        string // source package name; the Package name when the Source field is absent
	SourceVersion string // version in "Source: name (version)"; Version when absent
	// Fields holds every field by its name as written (e.g. "Depends");
	// multi-line values keep their continuation lines joined by "\n".
	Fields map[string]string
}

// Field returns a field by case-insensitive name.
func (c Control) Field(name string) string { return deb822.Field(c.Fields, name) }

// parseControl parses the control file of a binary package: one strict
// deb822 stanza (deb822.ParseStanza) with Package and Version.
func parseControl(text string) (Control, error) {
	st, err := deb822.ParseStanza(strings.NewReader(text), len(text)+1)
	if err != nil {
		return Control{}, err
	}
	c := Control{Fields: map[string]string{}}
	for i, n := range st.Names {
		c.Fields[n] = st.Values[i]
	}
	c.Package = c.Field("Package")
	c.Version = c.Field("Version")
	c.Architecture = c.Field("Architecture")
	if c.Package == "" {
		return Control{}, fmt.Errorf("control has no Package field")
	}
	if c.Version == "" {
		return Control{}, fmt.Errorf("control of %s has no Version field", c.Package)
	}
	c.Source, c.SourceVersion = c.Package, c.Version
	if src := c.Field("Source"); src != "" {
		// The Source field's syntax and its name and version rules are
		// apt's (Debian policy), not deb822's.
		name, ver, err := apt.SplitSource(src)
		if err != nil {
			return Control{}, fmt.Errorf("control of %s: malformed Source field: %w", c.Package, err)
		}
		c.Source = name
		if ver != "" {
			c.SourceVersion = ver
		}
	}
	return c, nil
}
