package profile

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/jsonpos"
)

// A profile is a shared file: untrusted input like an index or a deb.
// Every value of it that reaches a file name or a path in OUT or in an
// archive must match a strict grammar, checked before anything runs.

// MaxNameLen bounds every name of a profile (NVIDIA's longest is 23).
const MaxNameLen = 64

var (
	// NameRE is NVIDIA's grammar of products, redist package names and labels' components.
	NameRE = regexp.MustCompile(`^[a-z0-9_]+$`)
	// PlatformRE is a redist platform ("linux-aarch64", "linux-sbsa").
	PlatformRE = regexp.MustCompile(`^linux-[a-z0-9]+$`)
	// VersionRE is a redist version or release label: dotted numbers.
	VersionRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)

	profileNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	repoRE        = regexp.MustCompile(`^[a-z0-9]+$`)
	dashedRE      = regexp.MustCompile(`^[a-z0-9_]+(-[a-z0-9_]+)*$`) // target, triple
	globRE        = regexp.MustCompile(`^[a-z0-9.+*?-]+$`)           // Debian package or source glob
	segmentRE     = regexp.MustCompile(`^[A-Za-z0-9_+-][A-Za-z0-9._+-]*$`)
	placeholderRE = regexp.MustCompile(`\{(cuda|target|triple)\}|\$\{[0-9]\}|\$[0-9]`)
)

// InvalidError is a profile that cannot be used: its JSON does not decode,
// or Field holds a value outside its grammar.
type InvalidError struct {
	File  string // the profile file
	Field string // JSON path of the field, e.g. rules.components[0].pname; "" for decoding errors
	Value string
	Want  string // the grammar, in words
	Err   error  // decoding error, when Field is ""
}

func (e *InvalidError) Error() string { return e.Render(nil) }

// Render is Error with the Refs of its cause worded by w.
func (e *InvalidError) Render(w fault.Words) string {
	var je *jsonpos.Error
	var pe *fs.PathError
	switch {
	case e.Field == "" && errors.As(e.Err, &je): // names the file, line and column
		return "profile " + fault.Render(e.Err, w)
	case e.Field == "" && errors.As(e.Err, &pe):
		return fmt.Sprintf("profile %s: %v", e.File, pe.Err)
	case e.Field == "":
		return fmt.Sprintf("profile %s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("profile %s: field %s: %s is not %s", e.File, e.Field, jsonpos.Quote(e.Value), e.Want)
}

func (e *InvalidError) Unwrap() error { return e.Err }

// ValidName reports whether s is a product, redist package name or
// similar: [a-z0-9_]+, at most MaxNameLen bytes.
func ValidName(s string) bool { return len(s) <= MaxNameLen && NameRE.MatchString(s) }

// ReservedNames are the attribute names in [a-z0-9_]+ that nixpkgs' CUDA
// package set (cudaPackages_X_Y) defines for its own machinery rather than
// as packages, read from pkgs/development/cuda-modules/default.nix
// (NixOS/nixpkgs 04512dc6: lib, pkgs, flags, manifests, and makeScope's
// packages and override), pkgs/top-level/cuda-packages.nix (03652d51: the
// older generation's fixups, gpus, tests, cudatoolkit) and Nix itself
// (type: "derivation" marks a package). Every other attribute of the set's
// own (callPackage, buildRedist, backendStdenv, cudaMajorVersion, …) is
// camel-cased and so never a name, and so are the names beginning with
// "_" (_cuda, __splicedPackages), which ValidPName refuses as a class. A
// component of such a name would replace the set's machinery (the overlay
// hands every component to the set by name): no component is ever named so.
var ReservedNames = []string{
	"cudatoolkit",
	"fixups",
	"flags",
	"gpus",
	"lib",
	"manifests",
	"override",
	"packages",
	"pkgs",
	"tests",
	"type",
}

// ValidPName reports whether s can name a redist package: ValidName, not
// one of ReservedNames and not beginning with "_".
func ValidPName(s string) bool {
	return ValidName(s) && !strings.HasPrefix(s, "_") && !slices.Contains(ReservedNames, s)
}

// PNameWant says in words what ValidPName accepts.
const PNameWant = "a redist package name ([a-z0-9_]+, at most 64 characters, not beginning with '_', and none of the " +
	"names nixpkgs' CUDA package set uses for itself: " +
	"cudatoolkit, fixups, flags, gpus, lib, manifests, override, packages, pkgs, tests, type)"

// TextProblem says what is wrong with s as a text value of at most max
// bytes read from a file (a name, a license, a description), "" when
// nothing is: it must be UTF-8 without control characters (NUL, line
// breaks, escapes), format characters (a byte order mark, bidirectional
// overrides, zero-width characters) or line and paragraph separators
// (U+2028, U+2029), which other readers of the same file cut or show
// differently (Nix's builtins.fromJSON ends a string at NUL).
func TextProblem(s string, max int) string {
	if len(s) > max {
		return fmt.Sprintf("longer than %d bytes (%d)", max, len(s))
	}
	if !utf8.ValidString(s) {
		return "not UTF-8"
	}
	for _, r := range s {
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
			return fmt.Sprintf("holds the character %U", r)
		}
	}
	return ""
}

// ValidPlatform reports whether s is a redist platform, or "source".
func ValidPlatform(s string) bool {
	return s == "source" || len(s) <= MaxNameLen && PlatformRE.MatchString(s)
}

// ValidVersion reports whether s is dotted numbers (a redist version or label).
func ValidVersion(s string) bool { return len(s) <= MaxNameLen && VersionRE.MatchString(s) }

// checkNames checks every value of p that reaches a path (and the other
// names, for good measure) against its grammar.
func (p Profile) checkNames(file string) error {
	var err error
	check := func(field, value, want string, ok bool) {
		if err == nil && !ok {
			err = &InvalidError{File: file, Field: field, Value: value, Want: want}
		}
	}
	const (
		name     = "a name ([a-z0-9_]+, at most 64 characters)"
		platform = "a platform (linux-[a-z0-9]+)"
		dashed   = "a word list ([a-z0-9_]+ joined by '-', at most 64 characters)"
		glob     = "a Debian package glob ([a-z0-9.+*?-]+, at most 64 characters)"
		relPath  = "a relative path inside the archive (segments of [A-Za-z0-9._+-], no '.' or '..', no leading '/')"
	)
	check(
		"name",
		p.Name,
		"a profile name ([a-z0-9._-]+, at most 64 characters)",
		len(p.Name) <= MaxNameLen && profileNameRE.MatchString(p.Name),
	)
	for i, r := range p.Repos {
		check(fmt.Sprintf("repos[%d]", i), r, "a repository name ([a-z0-9]+)", len(r) <= MaxNameLen && repoRE.MatchString(r))
	}
	check("platform", p.Platform, platform, len(p.Platform) <= MaxNameLen && PlatformRE.MatchString(p.Platform))
	check("target", p.Target, dashed, len(p.Target) <= MaxNameLen && dashedRE.MatchString(p.Target))
	check("triple", p.Triple, dashed, len(p.Triple) <= MaxNameLen && dashedRE.MatchString(p.Triple))
	for i, e := range p.Expect {
		check(fmt.Sprintf("expect[%d]", i), e, PNameWant, ValidPName(e))
	}
	check("description", p.Description, "text (printable, at most 1024 bytes)", TextProblem(p.Description, 1024) == "")
	check("jetpack", p.JetPack, "a JetPack version (dotted numbers)", p.JetPack == "" || ValidVersion(p.JetPack))
	for i, a := range p.Aliases {
		check(
			fmt.Sprintf("aliases[%d]", i),
			a,
			"a profile name ([a-z0-9._-]+, at most 64 characters)",
			len(a) <= MaxNameLen && profileNameRE.MatchString(a),
		)
	}
	r := p.Rules
	for _, k := range slices.Sorted(maps.Keys(r.Products)) {
		check("rules.products key", k, name, ValidName(k))
		check(
			"rules.products."+k+".label_from",
			r.Products[k].LabelFrom,
			name,
			r.Products[k].LabelFrom == "" || ValidName(r.Products[k].LabelFrom),
		)
	}
	for i, m := range r.MetaPackages {
		check(fmt.Sprintf("rules.meta_packages[%d]", i), m, glob, validGlob(m))
	}
	for i, d := range r.DropBinaries {
		check(fmt.Sprintf("rules.drop_binaries[%d].match", i), d.Match, glob, validGlob(d.Match))
	}
	for i, c := range r.Components {
		f := fmt.Sprintf("rules.components[%d].", i)
		check(f+"source", c.Source, glob, validGlob(c.Source))
		for k, b := range c.Binaries {
			check(fmt.Sprintf("%sbinaries[%d]", f, k), b, glob, validGlob(b))
		}
		check(f+"product", c.Product, name, ValidName(c.Product))
		check(f+"name", c.Name, "text (printable, at most 256 bytes)", TextProblem(c.Name, 256) == "")
		check(f+"license", c.License, "text (printable, at most 256 bytes)", TextProblem(c.License, 256) == "")
		check(
			f+"cuda_variant_minor_from",
			c.CUDAVariantMinorFrom,
			"a CUDA release MAJOR.MINOR",
			c.CUDAVariantMinorFrom == "" || cudaRE.MatchString(c.CUDAVariantMinorFrom),
		)
		if c.PName != "" {
			check(f+"pname", c.PName, PNameWant, ValidPName(c.PName))
		} else if derived := strings.ReplaceAll(c.Source, "-", "_"); !strings.ContainsAny(derived, "*?[") {
			check(f+"pname (derived from source; set one)", derived, PNameWant, ValidPName(derived))
		}
		check(f+"platform", c.Platform, platform+" or \"source\"", c.Platform == "" || ValidPlatform(c.Platform))
	}
	for i, pr := range r.Paths {
		if pr.To != nil {
			check(fmt.Sprintf("rules.rules[%d].to", i), *pr.To, relPath, *pr.To == "" || validRelPath(*pr.To))
		}
	}
	for i, l := range r.Links {
		check(fmt.Sprintf("rules.links[%d].name", i), l.Name, relPath, validRelPath(l.Name))
	}
	return err
}

func validGlob(s string) bool { return len(s) <= MaxNameLen && globRE.MatchString(s) }

// validRelPath checks a path below an archive's top directory; {cuda}-style
// placeholders and $1 references count as one safe word.
func validRelPath(s string) bool {
	if s == "" || len(s) > 4*MaxNameLen {
		return false
	}
	for _, seg := range strings.Split(placeholderRE.ReplaceAllString(s, "x"), "/") {
		if seg == "." || seg == ".." || !segmentRE.MatchString(seg) {
			return false
		}
	}
	return true
}
