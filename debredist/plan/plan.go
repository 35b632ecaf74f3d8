package plan

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
)

// CommonRepo is the repository whose debs are grouped into redist packages.
const CommonRepo = "common"

// Grouping is the outcome of grouping: what will be converted and what not.
type Grouping struct {
	Profile  profile.Profile `json:"profile"`
	Packages []Package       `json:"packages"`
	Skipped  []SkippedDeb    `json:"skipped"`
}

// Package is one redist package: the debs that become one archive.
type Package struct {
	PName   string `json:"pname"`
	Product string `json:"product"`
	Name    string `json:"name"`
	License string `json:"license"`
	// Version is the Debian version without epoch, revision and +cudaX.Y.
	Version  string `json:"version"`
	Platform string `json:"platform"`
	// CUDAVariant is the CUDA major the artifact is nested under in the
	// manifest ("12" -> "cuda12"), empty for packages without variants.
	CUDAVariant string        `json:"cuda_variant,omitempty"`
	Debs        []apt.Package `json:"debs"`
}

// SkippedDeb is a binary deb of the common repo that is not converted.
type SkippedDeb struct {
	Package string `json:"package"`
	Source  string `json:"source"`
	Version string `json:"version"`
	Reason  string `json:"reason"`
}

// VersionError reports a redist package whose debs disagree on the version.
type VersionError struct {
	PName    string
	Versions map[string][]string // normalized version -> debs
}

func (e *VersionError) Error() string {
	var parts []string
	for _, v := range slices.Sorted(maps.Keys(e.Versions)) {
		parts = append(parts, fmt.Sprintf("%s (%s)", v, strings.Join(e.Versions[v], ", ")))
	}
	return fmt.Sprintf(
		"redist package %s: its debs carry %d versions, want one: %s",
		e.PName,
		len(e.Versions),
		strings.Join(parts, "; "),
	)
}

// Group groups pkgs (the newest version per package of every repo of the
// profile) into redist packages. The profile must be resolved (CUDA set).
func Group(p profile.Profile, pkgs []apt.Package) (*Grouping, error) {
	if p.CUDA == "" {
		return nil, fmt.Errorf("plan: profile %s has no CUDA version (resolve it from the index first)", p.Name)
	}
	rules := p.Merged()
	out := &Grouping{Profile: p, Packages: []Package{}, Skipped: []SkippedDeb{}}
	groups := map[string]*Package{}
	versions := map[string]map[string][]string{}
	otherVersion := regexp.MustCompile(`-([0-9]+)-([0-9]+)$`)
	otherVariant := regexp.MustCompile(`-cuda-([0-9]+)$`)

	sorted := append([]apt.Package(nil), pkgs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, d := range sorted {
		if d.Repo != CommonRepo {
			continue
		}
		src := d.Source
		if src == "" {
			src = d.Name
		}
		skip := func(reason string) {
			out.Skipped = append(out.Skipped, SkippedDeb{Package: d.Name, Source: src, Version: d.Version, Reason: reason})
		}
		if d.IsMeta() || matchAny(rules.MetaPackages, d.Name) {
			skip("meta-package")
			continue
		}
		if r := dropReason(rules.DropBinaries, d.Name); r != "" {
			skip(r)
			continue
		}
		c, ok := component(rules.Components, src, d.Name)
		if !ok {
			skip("not a redist component")
			continue
		}
		if m := otherVersion.FindStringSubmatch(d.Name); m != nil && m[1]+"."+m[2] != p.CUDA &&
			(rules.CUDAMajors.Contains(m[1]) || m[1] == p.CUDAMajor()) {
			skip(fmt.Sprintf("built for CUDA %s.%s, the set is CUDA %s", m[1], m[2], p.CUDA))
			continue
		}
		if m := otherVariant.FindStringSubmatch(d.Name); m != nil && m[1] != p.CUDAMajor() {
			skip(fmt.Sprintf("CUDA %s variant, the set is CUDA %s", m[1], p.CUDA))
			continue
		}
		pname := c.PName
		if pname == "" {
			pname = strings.ReplaceAll(c.Source, "-", "_")
		}
		if strings.ContainsAny(pname, "*?[") {
			return nil, fmt.Errorf("plan: component rule for source %q needs an explicit pname", c.Source)
		}
		g := groups[pname]
		if g == nil {
			platform := p.Platform
			if c.Platform != "" {
				platform = c.Platform
			}
			g = &Package{PName: pname, Product: c.Product, Name: c.Name, License: c.License, Platform: platform}
			if c.CUDAVariant {
				g.CUDAVariant = p.CUDAMajor()
			}
			if from := c.CUDAVariantMinorFrom; from != "" && p.CUDA != "" && profile.CompareDotted(p.CUDA, from) >= 0 {
				g.CUDAVariant = p.CUDA // major.minor
			}
			groups[pname] = g
			versions[pname] = map[string][]string{}
		}
		g.Debs = append(g.Debs, d)
		v := NormalizeVersion(d.Version)
		versions[pname][v] = append(versions[pname][v], d.Name)
	}
	var errs []error
	for _, pname := range slices.Sorted(maps.Keys(groups)) {
		g := groups[pname]
		vs := versions[pname]
		if len(vs) != 1 {
			errs = append(errs, &VersionError{PName: pname, Versions: vs})
			continue
		}
		g.Version = slices.Sorted(maps.Keys(vs))[0]
		if !profile.ValidVersion(g.Version) {
			// The version becomes part of file names in OUT.
			errs = append(
				errs,
				fmt.Errorf(
					"redist package %s: version %q (of %s) is not dotted numbers",
					pname,
					g.Version,
					strings.Join(vs[g.Version], ", "),
				),
			)
			continue
		}
		out.Packages = append(out.Packages, *g)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.SliceStable(out.Packages, func(i, j int) bool {
		a, b := out.Packages[i], out.Packages[j]
		if a.Product != b.Product {
			return productLess(rules.Products, a.Product, b.Product)
		}
		return a.PName < b.PName
	})
	return out, nil
}

// productLess orders products by their Order in the rules, products
// without one after them by name.
func productLess(products map[string]profile.Product, a, b string) bool {
	oa, ob := products[a].Order, products[b].Order
	switch {
	case oa > 0 && ob > 0 && oa != ob:
		return oa < ob
	case (oa > 0) != (ob > 0):
		return oa > 0
	}
	return a < b
}

var cudaTagRE = regexp.MustCompile(`\+cuda[0-9.]+`)

// NormalizeVersion turns a Debian version into a redist version: no epoch,
// no +cudaX.Y tag, no Debian revision ("8.5.2-1+cuda11.4" -> "8.5.2",
// "1:12.6.68-1" -> "12.6.68").
func NormalizeVersion(v string) string {
	if i := strings.Index(v, ":"); i >= 0 {
		v = v[i+1:]
	}
	v = cudaTagRE.ReplaceAllString(v, "")
	if i := strings.LastIndex(v, "-"); i >= 0 {
		v = v[:i]
	}
	return v
}

// Label cuts a version to its first three dotted parts ("9.3.0.75" -> "9.3.0").
func Label(v string) string {
	parts := strings.Split(v, ".")
	if len(parts) > 3 {
		parts = parts[:3]
	}
	return strings.Join(parts, ".")
}

// Products lists the products of the plan with their release labels.
func (p *Grouping) Products() []ProductLabel {
	rules := p.Profile.Merged()
	seen := map[string]bool{}
	var out []ProductLabel
	for _, pkg := range p.Packages {
		if seen[pkg.Product] {
			continue
		}
		seen[pkg.Product] = true
		label := ""
		if from := rules.Products[pkg.Product].LabelFrom; from != "" {
			for _, q := range p.Packages {
				if q.PName == from {
					label = Label(q.Version)
				}
			}
		}
		if label == "" { // no designated component: the first one of the product
			label = Label(pkg.Version)
		}
		out = append(out, ProductLabel{Product: pkg.Product, Label: label})
	}
	return out
}

// ProductLabel is a manifest family and its release_label.
type ProductLabel struct {
	Product string `json:"product"`
	Label   string `json:"label"`
}

func component(cs []profile.ComponentRule, source, binary string) (profile.ComponentRule, bool) {
	for _, c := range cs {
		if ok, _ := path.Match(c.Source, source); !ok {
			continue
		}
		if len(c.Binaries) > 0 && !matchAny(c.Binaries, binary) {
			continue
		}
		return c, true
	}
	return profile.ComponentRule{}, false
}

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

func dropReason(ds []profile.DropBinary, name string) string {
	for _, d := range ds {
		if ok, _ := path.Match(d.Match, name); ok {
			return d.Reason
		}
	}
	return ""
}

// Plan is a release's plan as debredist.Plan returns it: what a
// conversion would build, from which debs, and what it leaves out.
type Plan struct {
	// Profile is the release, with its CUDA version and release date
	// resolved from the index.
	Profile  profile.Profile `json:"profile"`
	Products []ProductLabel  `json:"products"`
	Packages []Package       `json:"packages"`
	Skipped  []SkippedDeb    `json:"skipped"`
	// SkippedPackages are redist packages not emitted: their debs (all
	// already in the cache) carry no payload.
	SkippedPackages []SkippedPackage `json:"skipped_packages"`
	// Inputs are the debs of every repo the release reads, newest
	// version per package (what a lock file pins).
	Inputs []apt.Package `json:"-"`
	// Indexes identify where the package lists came from.
	Indexes []redist.Index `json:"indexes"`
}

// SkippedPackage is a redist package that is not emitted, and why.
type SkippedPackage struct {
	PName   string   `json:"pname"`
	Product string   `json:"product"`
	Version string   `json:"version"`
	Debs    []string `json:"debs"`
	Reason  string   `json:"reason"`
}
