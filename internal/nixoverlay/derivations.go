package nixoverlay

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/files"
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
}

const derivationsUsage = `# A Nix file that builds every archive of this directory, each a fixed-output
# derivation whose hash is its manifest's sha256: Nix fetches the debs the
# provenance pins (fetchurl), runs 'debredist build-archive' on exactly the
# debs of one archive, and checks the bytes. Any Nix machine, remote builder
# or binary cache can build or substitute them; only this file needs keeping.
#
#   nix-build redist.nix -A archives \
#     --arg debredist '(import <nixpkgs> { }).callPackage ./nix/package.nix { }'
#
# Arguments: debredist (a package with bin/debredist of the version that wrote
# the provenance), fetchurl (default Nix's builtin <nix/fetchurl.nix>; nixpkgs'
# fetchurl works too), system (where the builder runs; the archives are the
# same bytes on every system).
`

// nixNameRE is what a Nix store path name may hold.
var nixNameRE = regexp.MustCompile(`[^A-Za-z0-9+._?=-]`)

// derivation is one archive's derivation.
type derivation struct {
	product, rel, sha256 string
	attr                 string   // its name under archives.<product>
	debs                 []string // sha256s
}

// writeDerivations writes the file Options.Derivations describes.
func writeDerivations(b *strings.Builder, snap *outdir.Snapshot, mirror string, products []string, byProduct map[string]nixFound, ov nixOverlay) error {
	debs := map[string]string{}     // sha256 -> fetchurl expression
	provs := map[string][2]string{} // product -> sidecar name, content
	var drvs []derivation
	provsByRel := map[string]redist.Archive{}
	for _, prod := range products {
		fd := byProduct[prod]
		prov, sidecar, err := snap.ReadSidecar(fd.file)
		if err != nil {
			return fmt.Errorf("manifest %s: its provenance sidecar: %w", fd.file, err)
		}
		raw, err := snap.ReadFile(sidecar, redist.MaxJSON) // embedded as it is
		if err != nil {
			return err
		}
		provs[prod] = [2]string{filepath.Base(sidecar), string(raw)}
		base, err := mirrorBase(mirror, prov)
		if err != nil {
			return fmt.Errorf("%s: %w", sidecar, err)
		}
		named := map[string]bool{}
		for _, c := range fd.m.Components {
			for _, pa := range c.Artifacts() {
				named[pa.Artifact.RelativePath] = true
			}
		}
		for _, a := range prov.Archives {
			if !named[a.RelativePath] {
				continue // recorded by an earlier conversion, no longer in the manifest
			}
			if a.MTime == nil {
				return fmt.Errorf("%s does not record the entries' mtime of %s (%s wrote it): convert again with this debredist", sidecar, a.RelativePath, prov.Tool)
			}
			d := derivation{product: prod, rel: a.RelativePath, sha256: a.SHA256, attr: a.PName}
			for _, deb := range a.Debs {
				d.debs = append(d.debs, deb.SHA256)
				if _, ok := debs[deb.SHA256]; ok {
					continue
				}
				u, err := apt.NewRepo(base, deb.Repo, prov.Profile.Suite).PoolURL(deb.Filename)
				if err != nil {
					return fmt.Errorf("%s: deb %s: %w", sidecar, deb.Package, err)
				}
				debs[deb.SHA256] = fmt.Sprintf("fetchurl { name = %s; url = %s; sha256 = %s; }",
					nixString(nixNameRE.ReplaceAllString(path.Base(deb.Filename), "_")), nixString(fileURL(u)), nixString(deb.SHA256))
			}
			slices.Sort(d.debs)
			drvs = append(drvs, d)
			provsByRel[prod+"/"+a.RelativePath] = a
		}
		for rel := range named {
			if !slices.ContainsFunc(drvs, func(d derivation) bool { return d.product == prod && d.rel == rel }) {
				return fmt.Errorf("manifest %s names %s, which its provenance does not record", fd.file, rel)
			}
		}
	}
	nameArchives(drvs, provsByRel)
	b.WriteString("{ fetchurl ? import <nix/fetchurl.nix>\n, debredist\n, system ? builtins.currentSystem\n}:\n")
	b.WriteString("let\n")
	b.WriteString("  # The debs, by sha256, as the provenance pins them.\n")
	b.WriteString("  debs = {\n")
	for _, sha := range slices.Sorted(maps.Keys(debs)) {
		fmt.Fprintf(b, "    %s = %s;\n", nixString(sha), debs[sha])
	}
	b.WriteString("  };\n")
	b.WriteString("  # How each product's archives were made (its provenance sidecar).\n")
	b.WriteString("  provenance = {\n")
	for _, prod := range products {
		fmt.Fprintf(b, "    %s = builtins.toFile %s %s;\n", prod, nixString(provs[prod][0]), nixString(provs[prod][1]))
	}
	b.WriteString("  };\n")
	b.WriteString("  archive = product: rel: sha256: debShas: derivation {\n")
	b.WriteString("    name = baseNameOf rel;\n")
	b.WriteString("    inherit system;\n")
	b.WriteString("    builder = \"${debredist}/bin/debredist\";\n")
	b.WriteString("    args = [ \"--quiet\" \"build-archive\" \"--provenance\" provenance.${product} \"--archive\" rel \"--out\" (builtins.placeholder \"out\") ]\n")
	b.WriteString("      ++ builtins.concatMap (s: [ \"--deb\" debs.${s} ]) debShas;\n")
	b.WriteString("    outputHashMode = \"flat\";\n")
	b.WriteString("    outputHashAlgo = \"sha256\";\n")
	b.WriteString("    outputHash = sha256;\n")
	b.WriteString("  };\n")
	b.WriteString("  # byPath.<product>.\"<relative_path>\": each archive, a file named as in OUT.\n")
	b.WriteString("  byPath = {\n")
	for _, prod := range products {
		fmt.Fprintf(b, "    %s = {\n", prod)
		for _, d := range drvs {
			if d.product != prod {
				continue
			}
			var shas []string
			for _, s := range d.debs {
				shas = append(shas, nixString(s))
			}
			fmt.Fprintf(b, "      %s = archive %s %s %s [ %s ];\n", nixString(d.rel), nixString(prod), nixString(d.rel), nixString(d.sha256), strings.Join(shas, " "))
		}
		b.WriteString("    };\n")
	}
	b.WriteString("  };\n")
	b.WriteString("in\n")
	b.WriteString("{\n")
	b.WriteString("  inherit byPath;\n")
	b.WriteString("  # archives.<product>.<pname>[_<platform>[_<variant>]]: the same, under names\n")
	b.WriteString("  # nix-build lists (nix-build -A archives builds them all).\n")
	b.WriteString("  archives = {\n")
	b.WriteString("    recurseForDerivations = true;\n")
	for _, prod := range products {
		fmt.Fprintf(b, "    %s = {\n", prod)
		b.WriteString("      recurseForDerivations = true;\n")
		for _, d := range drvs {
			if d.product == prod {
				fmt.Fprintf(b, "      %s = byPath.%s.%s;\n", d.attr, prod, nixString(d.rel))
			}
		}
		b.WriteString("    };\n")
	}
	b.WriteString("  };\n")
	b.WriteString("  # The overlay for nixpkgs (see the comment at the top).\n")
	b.WriteString("  overlay =\n")
	var o strings.Builder
	writeNixOverlay(&o, ov)
	b.WriteString(indent(strings.TrimSuffix(o.String(), "\n"), "    "))
	b.WriteString(";\n}\n")
	return nil
}

// mirrorBase is where the debs of prov are fetched from: the override,
// else the mirror its first index was read from (convert records a
// directory as an absolute path), else NVIDIA's repository (a lock records
// no mirror). A directory must hold the very indexes the conversion read
// (their sha256s as recorded): a same-named directory elsewhere, or a
// mirror updated since, is refused rather than pinned.
func mirrorBase(override string, prov *redist.Provenance) (string, error) {
	base := override
	if base == "" {
		for _, ix := range prov.Indexes {
			if i := strings.Index(ix.URL, "/"+ix.Repo+"/dists/"); ix.Repo != "lock" && i > 0 {
				base = ix.URL[:i]
				break
			}
		}
	}
	if base == "" || strings.Contains(base, "://") {
		return base, nil
	}
	abs, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fmt.Errorf("the mirror directory %s the debs were read from is not there: give --mirror", abs)
	}
	for _, ix := range prov.Indexes {
		i := strings.Index(ix.URL, "/"+ix.Repo+"/dists/")
		if ix.Repo == "lock" || i < 0 {
			continue
		}
		file := filepath.Join(abs, filepath.FromSlash(ix.URL[i+1:]))
		sum, err := files.SHA256(context.Background(), file)
		if err != nil {
			return "", fmt.Errorf("the mirror directory %s: index %s of repo %s (recorded as %s): %w", abs, file, ix.Repo, ix.URL, err)
		}
		if sum != ix.SHA256 {
			return "", fmt.Errorf("the mirror directory %s holds another index than the conversion read: %s has sha256 %s, the provenance records %s for %s (give --mirror the mirror the conversion read)", abs, file, sum, ix.SHA256, ix.URL)
		}
	}
	return abs, nil
}

// fileURL makes a pool path under a directory mirror a file:// URL.
func fileURL(u string) string {
	if strings.Contains(u, "://") {
		return u
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(u)}).String()
}

// nixString quotes s as a Nix string literal.
func nixString(s string) string { return `"` + nixStrEscaper.Replace(s) + `"` }

// nameArchives gives each derivation a name nix-build lists (it skips
// attributes that are not identifiers): the pname, or where a product has
// several archives of one pname, the pname with platform and CUDA variant.
func nameArchives(drvs []derivation, recs map[string]redist.Archive) {
	count := map[string]int{}
	for _, d := range drvs {
		count[d.product+"/"+d.attr]++
	}
	for i, d := range drvs {
		if count[d.product+"/"+d.attr] > 1 {
			a := recs[d.product+"/"+d.rel]
			name := a.PName + "_" + a.Platform
			if a.Variant != "" {
				name += "_" + a.Variant
			}
			drvs[i].attr = nixIdentRE.ReplaceAllString(name, "_")
		}
	}
}

// nixIdentRE is what an identifier nix-build lists may not hold.
var nixIdentRE = regexp.MustCompile(`[^A-Za-z0-9_+-]`)
