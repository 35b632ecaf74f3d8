package debredist

import (
	"github.com/debredist/debredist/internal/apt"
	"github.com/debredist/debredist/internal/plan"
)

// PlanResult is what a conversion would build, without downloading debs.
type PlanResult struct {
	Profile  Profile        `json:"profile"`
	Products []ProductLabel `json:"products"`
	Packages []PlanPackage  `json:"packages"`
	Skipped  []SkippedDeb   `json:"skipped"`
	// SkippedPackages are redist packages not emitted: their debs (all
	// already in the cache) carry no payload.
	SkippedPackages []SkippedPackage `json:"skipped_packages"`
	// Inputs are the debs of every repo the release reads, newest
	// version per package (what a lock file pins).
	Inputs []IndexPackage `json:"-"`
	// Indexes identify where the package lists came from.
	Indexes []IndexInfo `json:"indexes"`
}

// ProductLabel is a manifest family (cuda, cudnn, tensorrt, ...) and its
// release_label.
type ProductLabel struct {
	Product string `json:"product"`
	Label   string `json:"label"`
}

// PlanPackage is one redist package: the debs that become one archive.
type PlanPackage struct {
	PName   string `json:"pname"`
	Product string `json:"product"`
	Name    string `json:"name"`
	License string `json:"license"`
	// Version is the Debian version without epoch, revision and +cudaX.Y.
	Version  string `json:"version"`
	Platform string `json:"platform"`
	// CUDAVariant is the CUDA major the artifact is nested under in the
	// manifest ("12" -> "cuda12"), empty for packages without variants.
	CUDAVariant string         `json:"cuda_variant,omitempty"`
	Debs        []IndexPackage `json:"debs"`
}

// SkippedDeb is a binary deb of the common repo that is not converted, and why.
type SkippedDeb struct {
	Package string `json:"package"`
	Source  string `json:"source"`
	Version string `json:"version"`
	Reason  string `json:"reason"`
}

// IndexPackage is one stanza of an apt Packages index: a binary deb that
// can be downloaded from a repository.
type IndexPackage struct {
	// Repo is the repository the stanza came from ("common", "t234", …);
	// empty from ReadIndex.
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

	// Fields holds every field of the stanza, keyed by the name as written
	// (use Field for a case-insensitive lookup).
	Fields map[string]string `json:"-"`
	// Line is the 1-based line number where the stanza starts in its index.
	Line int `json:"-"`
}

// Field returns the value of the stanza's field name, matched without
// regard to case ("" if absent).
func (p *IndexPackage) Field(name string) string { return (*apt.Package)(p).Field(name) }

// IndexProblem is a well-formed stanza that cannot be downloaded safely
// (no Filename, a bad SHA256 or Size, an unsafe Filename, ...): it is
// skipped and parsing goes on.
type IndexProblem struct {
	Package string // may be empty when the stanza has no valid Package field
	Line    int    // 1-based line where the stanza starts
	Reason  string
}

func (p IndexProblem) String() string { return apt.Problem(p).String() }

func indexPackages(ps []apt.Package) []IndexPackage {
	return convertSlice(ps, func(p apt.Package) IndexPackage { return IndexPackage(p) })
}

func (pl *planned) public() *PlanResult {
	return &PlanResult{
		Profile:  pl.Profile,
		Products: convertSlice(pl.Products, func(p plan.ProductLabel) ProductLabel { return ProductLabel(p) }),
		Packages: convertSlice(pl.Packages, func(p plan.Package) PlanPackage {
			return PlanPackage{PName: p.PName, Product: p.Product, Name: p.Name, License: p.License, Version: p.Version,
				Platform: p.Platform, CUDAVariant: p.CUDAVariant, Debs: indexPackages(p.Debs)}
		}),
		Skipped:         convertSlice(pl.Skipped, func(s plan.Skipped) SkippedDeb { return SkippedDeb(s) }),
		SkippedPackages: pl.SkippedPackages,
		Inputs:          indexPackages(pl.Inputs),
		Indexes:         pl.Indexes,
	}
}
