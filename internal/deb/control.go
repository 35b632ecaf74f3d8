package deb

import (
	"fmt"
	"strings"
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
func (c Control) Field(name string) string {
	if v, ok := c.Fields[name]; ok {
		return v
	}
	for k, v := range c.Fields {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// parseControl parses a single deb822 stanza (the control file of a binary
// package). It is strict: one stanza, "Name: value" lines, continuation lines
// starting with space or tab, no duplicate fields.
func parseControl(text string) (Control, error) {
	c := Control{Fields: map[string]string{}}
	var last string
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	stanzaDone := false
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case strings.TrimSpace(line) == "":
			if len(c.Fields) > 0 {
				stanzaDone = true
			}
			continue
		case strings.HasPrefix(line, "#"):
			continue
		case stanzaDone:
			return Control{}, fmt.Errorf("control line %d: more than one stanza", i+1)
		case line[0] == ' ' || line[0] == '\t':
			if last == "" {
				return Control{}, fmt.Errorf("control line %d: continuation line before any field", i+1)
			}
			cont := strings.TrimSpace(line)
			if cont == "." {
				cont = ""
			}
			c.Fields[last] += "\n" + cont
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return Control{}, fmt.Errorf("control line %d: %q has no ':'", i+1, line)
		}
		if name == "" || strings.ContainsAny(name, " \t") {
			return Control{}, fmt.Errorf("control line %d: invalid field name %q", i+1, name)
		}
		for k := range c.Fields {
			if strings.EqualFold(k, name) {
				return Control{}, fmt.Errorf("control line %d: duplicate field %q", i+1, name)
			}
		}
		c.Fields[name] = strings.TrimSpace(value)
		last = name
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
		name, ver, hasVer := strings.Cut(src, "(")
		c.Source = strings.TrimSpace(name)
		if hasVer {
			ver, ok := strings.CutSuffix(strings.TrimSpace(ver), ")")
			if !ok || strings.TrimSpace(ver) == "" || c.Source == "" {
				return Control{}, fmt.Errorf("control of %s: malformed Source field %q", c.Package, src)
			}
			c.SourceVersion = strings.TrimSpace(ver)
		}
	}
	return c, nil
}
