package debredist

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/files"
)

// Inventory formats.
const (
	// InventoryJetPackNixos is jetpack-nixos' sourceinfo/<suite>-debs.json:
	// {repo: {package: {filename, sha256, [source,] version}}}, the newest
	// version of every package of every repo, meta-packages (first
	// Description line says "meta-package") left out, "source" only where
	// the stanza has a Source field (verbatim, "(version)" included); keys
	// sorted, two-space indent, non-ASCII escaped, a trailing newline, as
	// Python's json.dumps(sort_keys=True, indent=2) writes it. Read from a
	// lock file (which keeps no descriptions) every package is written,
	// and "source" where it differs from the name or carries a version.
	InventoryJetPackNixos = "jetpack-nixos"
	// InventoryLock is debredist's lock format (every package, metas
	// included), for --lock.
	InventoryLock = "lock"
)

// WriteFile writes data to the file name whole or not at all (a temporary
// file beside it, synced, renamed over it, mode 0644), as every file in OUT
// is written: a reader, or a run killed half-way, sees the old file or the
// new one. For an inventory saved to a file (debredist inventory -o).
func WriteFile(name string, data []byte) error {
	return files.Write(name, data, filepath.Dir(name))
}

// OpenFile opens a file the user names for reading (debredist index
// PATH): a regular file, links followed; a named pipe, device, socket or
// directory is refused (the error names it and what it is), never waited
// on or read.
func OpenFile(name string) (*os.File, error) { return files.OpenRegular(name) }

// Inventory writes the package inventory of the release o selects (from
// the mirror's indexes, or a lock file) to w in format (InventoryJetPackNixos
// or InventoryLock). Either output read back with Options.LockFile gives
// the same plan (a jetpack-nixos file needs the suite: Release.L4T).
func Inventory(ctx context.Context, o Options, w io.Writer, format string) error {
	if format != InventoryJetPackNixos && format != InventoryLock {
		return fault.Usagef("inventory format %q: want %s or %s", format, InventoryJetPackNixos, InventoryLock)
	}
	o.Build.Only = nil
	pl, err := makePlan(ctx, newRun(o), true)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if format == InventoryLock {
		if err := apt.WriteLock(&b, &apt.Lock{Suite: pl.Profile.L4T, Packages: pl.Inputs}); err != nil {
			return err
		}
	} else {
		writeSourceInfo(&b, pl.Inputs)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// writeSourceInfo renders pkgs (newest per repo and package) in
// jetpack-nixos' format.
func writeSourceInfo(b *bytes.Buffer, pkgs []apt.Package) {
	repos := map[string]map[string]apt.Package{}
	for _, p := range pkgs {
		if strings.Contains(p.Description, "meta-package") {
			continue
		}
		if repos[p.Repo] == nil {
			repos[p.Repo] = map[string]apt.Package{}
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
func sourceField(p apt.Package) (string, bool) {
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
