// Package nixoverlay writes the Nix that hands an output directory to
// nixpkgs' CUDA package sets (debredist nix): constant Nix code
// (overlay.nix, archives.nix) applied to one JSON string of data read from
// OUT. No string from OUT, a profile or an index is ever printed as Nix
// syntax or inside a comment: the data reaches Nix through
// builtins.fromJSON, and attribute names made from it are made at
// evaluation time. It reads one generation of OUT (debredist/outdir); what
// nixpkgs would still fail on is handed down by the caller (Options.Nixpkgs:
// the facade runs verify --nixpkgs), so nothing here calls up into verify.
package nixoverlay

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/internal/nixcheck"
)

// The constant code of every overlay and derivations file.
var (
	//go:embed overlay.nix
	overlayNix string
	//go:embed archives.nix
	archivesNix string
)

// Options say what Write prints.
type Options struct {
	// Derivations prints, instead of an overlay reading OUT, a Nix file that
	// builds every archive as a fixed-output derivation (outputHash: the
	// manifest's sha256) from the debs the provenance records, fetched by
	// fetchurl, with `debredist build-archive`; its overlay attribute is the
	// overlay, taking the archives from those derivations. Nothing of OUT is
	// read when the file is used: manifests and provenance are embedded.
	Derivations bool
	// Mirror is the base URL (or directory) the debs are fetched from;
	// default: the mirror the provenance records, else NVIDIA's.
	Mirror string
	// CopyArchivesTo, when set, is a directory Write copies every archive
	// to (read through the same one generation, the sha256 checked), and
	// Result.Archives lists the copies: what to hand nix-store, which would
	// otherwise open OUT's paths again itself.
	CopyArchivesTo string
	// Nixpkgs says what nixpkgs' builder would do with each archive of the
	// snapshot (verify --nixpkgs); required.
	Nixpkgs NixpkgsFunc
}

// NixpkgsFunc returns nixpkgs' verdicts on the archives of one snapshot of
// OUT.
type NixpkgsFunc func(ctx context.Context, snap *outdir.Snapshot) (*Verdicts, error)

// Verdicts are what verify --nixpkgs says of one snapshot of OUT, as far as
// the overlay needs it.
type Verdicts struct {
	Archives []Verdict
	Problems []string // not tied to one archive, each as its error text
}

// Verdict is what nixpkgs' builder would do with one archive: the fields
// of verify.NixpkgsArchive the overlay reads, which document them.
type Verdict struct {
	Component, Path, Version, Source, Broken            string
	Fills, EmptyOutputs, NixpkgsOwn, Insecure, Failures []string
	StubsDir                                            bool
}

// Result is what Write produces.
type Result struct {
	// Text is the Nix file.
	Text string
	// Archives are the absolute paths of every archive OUT's manifests
	// name, one each (for nix-store --add-fixed sha256): those the overlay
	// takes from OUT, and those of manifests it leaves out (l4t's, which a
	// user fetches with fetchurl and the manifest's sha256).
	Archives []string
	// Notes are what the user must know or decide (the insecure TensorRT,
	// problems no override fixes), one line each: for a terminal, never
	// printed into the Nix.
	Notes []string
	// Set is the package set the overlay changes (cudaPackages_12_6).
	Set string
	// Data is the JSON the Nix reads (schema debredist.nix/v1).
	Data json.RawMessage
}

// Write reads the current generation's manifests under dir and returns a
// Nix overlay that makes nixpkgs' CUDA package set of their CUDA release
// use them: the manifests, file:// URLs for exactly these archives, each
// package's archive stated explicitly, and what the debs cannot provide.
// With o.Derivations it returns instead the Nix file that builds the
// archives as fixed-output derivations, the overlay one of its attributes.
//
// The package set is named after the cuda manifest's release_label
// (12.6.68 -> cudaPackages_12_6); without a cuda manifest the CUDA version
// recorded in a provenance sidecar is used.
func Write(ctx context.Context, dir string, o Options) (*Result, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("nix for %s: %w", dir, err)
	}
	snap, err := outdir.Open(abs) // one generation for everything read below
	if err != nil {
		return nil, fmt.Errorf("nix for %s: %w", abs, err)
	}
	defer func() { _ = snap.Close() }()
	d, res, err := collect(ctx, snap, abs, o.Derivations, o.CopyArchivesTo, o.Nixpkgs)
	if err != nil {
		return nil, fmt.Errorf("nix for %s: %w", abs, err)
	}
	if o.Derivations {
		if err := d.addDerivations(snap, o.Mirror); err != nil {
			return nil, fmt.Errorf("nix derivations for %s: %w", abs, err)
		}
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("nix for %s: %w", abs, err)
	}
	var b strings.Builder
	if o.Derivations {
		b.WriteString(derivationsHeader)
	} else {
		b.WriteString(overlayHeader)
	}
	b.WriteString("let\n")
	b.WriteString("  # Your choice: true accepts the insecure TensorRT the JetPack release ships\n")
	b.WriteString("  # (nixpkgs marks TensorRT below 10.16.1 insecure: `debredist verify --nixpkgs`\n")
	b.WriteString("  # names it). Or permit it in your nixpkgs config (permittedInsecurePackages).\n")
	b.WriteString("  acceptInsecureTensorRT = false;\n")
	b.WriteString("  # Everything read from the output directory: one JSON string (data, never code).\n")
	b.WriteString("  data = builtins.fromJSON " + nixString(string(raw)) + ";\n")
	b.WriteString("  overlayOf =\n")
	b.WriteString(indent(strings.TrimSpace(stripComments(overlayNix)), "    ") + ";\n")
	if o.Derivations {
		b.WriteString("  archivesOf =\n")
		b.WriteString(indent(strings.TrimSpace(stripComments(archivesNix)), "    ") + ";\n")
		b.WriteString("  built = archivesOf { inherit data fetchurl debredist system; };\n")
		b.WriteString("in\n")
		b.WriteString("built // {\n")
		b.WriteString("  # The overlay for nixpkgs (see the comment at the top).\n")
		b.WriteString("  overlay = overlayOf {\n")
		b.WriteString("    inherit data acceptInsecureTensorRT;\n")
		b.WriteString("    archives = built.byPath;\n")
		b.WriteString("  };\n")
		b.WriteString("}\n")
	} else {
		b.WriteString("in\n")
		b.WriteString("overlayOf { inherit data acceptInsecureTensorRT; }\n")
	}
	res.Text, res.Data = b.String(), raw
	return res, nil
}

const overlayHeader = `# A Nix overlay for nixpkgs' CUDA package sets, generated by debredist nix.
#
# 1. Put the output directory's archives into the Nix store once (fetchurl then
#    finds each one by its name and sha256 without reading the directory):
#      debredist nix --add-to-store OUT
# 2. Use this overlay after jetpack-nixos' (its NixOS module adds its overlays
#    with mkBefore; in a flake, list it after jetpack-nixos.overlays.default).
#    It hands the directory's manifests to the package set of their CUDA release
#    (.override, nixpkgs' other manifests kept), points _cuda.lib.mkRedistUrl at
#    the directory for exactly its archives, states each package's archive, and
#    adds, for that CUDA release only, what the debs cannot provide.
#    debredist nix prints on its standard error what needs your decision.
#
# Everything read from the directory is the JSON string "data" below, read with
# builtins.fromJSON: no part of it is Nix code.
`

const derivationsHeader = `# A Nix file that builds every archive of an output directory, generated by
# debredist nix --derivations. Each archive is a fixed-output derivation whose
# hash is its manifest's sha256: Nix fetches the debs the provenance pins
# (fetchurl), runs 'debredist build-archive' on exactly the debs of one archive,
# and checks the bytes. Any Nix machine, remote builder or binary cache can
# build or substitute them; only this file needs keeping.
#
#   nix-build redist.nix -A archives \
#     --arg debredist '(import <nixpkgs> { }).callPackage ./nix/package.nix { }'
#
# Attribute "overlay" is the overlay of debredist nix, taking each archive from
# its derivation: use it after jetpack-nixos' overlay.
# Arguments: debredist (a package with bin/debredist of the version that wrote
# the provenance), fetchurl (default Nix's builtin <nix/fetchurl.nix>; nixpkgs'
# fetchurl works too), system (where the builder runs; the archives are the
# same bytes on every system).
#
# Everything read from the directory is the JSON string "data" below, read with
# builtins.fromJSON: no part of it is Nix code.
{
  fetchurl ? import <nix/fetchurl.nix>,
  debredist,
  system ? builtins.currentSystem,
}:
`

// stripComments drops the leading comment block of an embedded .nix file
// (its documentation is in the source, not in every printed file).
func stripComments(s string) string {
	lines := strings.SplitAfter(s, "\n")
	i := 0
	for i < len(lines) && strings.HasPrefix(lines[i], "#") {
		i++
	}
	return strings.Join(lines[i:], "")
}

// indent prefixes every non-empty line of s.
func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" && l != "\n" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

// nixString quotes s as a Nix string literal: every backslash, quote and
// dollar escaped (so no ${ starts an interpolation), line breaks and tabs
// as \n, \r, \t. Nix reads any other character as itself.
func nixString(s string) string { return `"` + nixStrEscaper.Replace(s) + `"` }

var nixStrEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "\n", `\n`, "\r", `\r`, "\t", `\t`)

// nixTable is nixpkgs' knowledge (internal/nixcheck/nixpkgs.json), read once.
var nixTable = nixcheck.Shared

var (
	majorMinorRE = regexp.MustCompile(`^([0-9]+)\.([0-9]+)(\.[0-9]+)*$`)
	// nameRE is what a product or pname must be: the profile's rule for
	// them, without a leading underscore (Nix reserves __ names such as
	// __functor, which would change what an attribute set does).
	nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_]*$`)
)

// cudaMajorMinor cuts "12.6.68" to "12.6".
func cudaMajorMinor(label string) (string, error) {
	m := majorMinorRE.FindStringSubmatch(label)
	if m == nil {
		return "", fmt.Errorf("CUDA version %q is not MAJOR.MINOR[.PATCH]", label)
	}
	return m[1] + "." + m[2], nil
}
