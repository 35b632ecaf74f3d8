package apt

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf16"
)

// WriteSourceInfo writes pkgs (the newest version per repo and package)
// in jetpack-nixos' sourceinfo/<suite>-debs.json format: {repo: {package:
// {filename, sha256, [source,] version}}}, meta-packages (first Description
// line says "meta-package") left out, "source" only where the stanza has a
// Source field (verbatim, "(version)" included); keys sorted, two-space
// indent, non-ASCII escaped, a trailing newline, as Python's
// json.dumps(sort_keys=True, indent=2) writes it. Packages read from a lock
// (which keeps no descriptions nor stanzas) are all written, with "source"
// where it differs from the name or carries a version. ParseLock reads it
// back.
func WriteSourceInfo(w io.Writer, pkgs []Package) error {
	var b bytes.Buffer
	writeSourceInfo(&b, pkgs)
	_, err := w.Write(b.Bytes())
	return err
}

func writeSourceInfo(b *bytes.Buffer, pkgs []Package) {
	repos := map[string]map[string]Package{}
	for _, p := range pkgs {
		if strings.Contains(p.Description, "meta-package") {
			continue
		}
		if repos[p.Repo] == nil {
			repos[p.Repo] = map[string]Package{}
		}
		repos[p.Repo][p.Name] = p
	}
	if len(repos) == 0 {
		b.WriteString("{}\n")
		return
	}
	b.WriteString("{\n")
	for i, repo := range slices.Sorted(maps.Keys(repos)) {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(b, "  %s: {", pyString(repo))
		for j, name := range slices.Sorted(maps.Keys(repos[repo])) {
			p := repos[repo][name]
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(b, "\n    %s: {\n", pyString(name))
			fields := [][2]string{{"filename", p.Filename}, {"sha256", p.SHA256}}
			if src, ok := sourceField(p); ok {
				fields = append(fields, [2]string{"source", src})
			}
			fields = append(fields, [2]string{"version", p.Version})
			for k, f := range fields {
				sep := ","
				if k == len(fields)-1 {
					sep = ""
				}
				fmt.Fprintf(b, "      %s: %s%s\n", pyString(f[0]), pyString(f[1]), sep)
			}
			b.WriteString("    }")
		}
		if len(repos[repo]) > 0 {
			b.WriteString("\n  ")
		}
		b.WriteString("}")
	}
	b.WriteString("\n}\n")
}

// sourceField is the stanza's Source field as written. Packages read from
// a lock have no stanza: their Source is given when it differs from the
// package name or carries a version.
func sourceField(p Package) (string, bool) {
	if p.Fields != nil {
		v, ok := p.Fields["Source"]
		if !ok {
			for k, fv := range p.Fields {
				if strings.EqualFold(k, "Source") {
					v, ok = fv, true
				}
			}
		}
		return v, ok
	}
	if p.SourceVersion != "" {
		return p.Source + " (" + p.SourceVersion + ")", true
	}
	if p.Source != "" && p.Source != p.Name {
		return p.Source, true
	}
	return "", false
}

// pyString quotes s as Python's json module does by default: ASCII only,
// non-ASCII as \uXXXX (surrogate pairs beyond the BMP).
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (r >= 0x7f && r < 0x10000):
			fmt.Fprintf(&b, `\u%04x`, r)
		case r >= 0x10000:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
