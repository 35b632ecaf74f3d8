package reldiff

import (
	"regexp"
	"sort"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
)

// Input is one side of a comparison: a resolved profile and the redist
// packages a conversion of it builds (or built).
type Input struct {
	// Ref is how the user named the release ("r36.4", "jetpack6", a lock
	// file or an output directory).
	Ref string
	// Origin says where its package list came from: "mirror", "lock" or
	// "out" (an output directory's provenance).
	Origin   string
	Profile  profile.Profile
	Packages []plan.Package
	// Others are the release's debs (every repo) that no component
	// converts: meta-packages, L4T driver debs, other software. Nil when
	// unknown (an output directory records only what it converted).
	Others []apt.Package
}

// Result is the difference between two releases. Products lists every
// product of either side, in plan order (cuda, cudnn, tensorrt, others).
type Result struct {
	From     Side      `json:"from"`
	To       Side      `json:"to"`
	Products []Product `json:"products"`
	// Files says whether in-archive paths were compared
	// ([ComponentChange.Files]).
	Files bool `json:"files"`
	// Others compares the debs no component converts (nil when a side
	// does not know them: an output directory).
	Others *Others `json:"others"`
}

// Others is the difference in the debs that are not converted.
type Others struct {
	Added   []Deb       `json:"added"`
	Removed []Deb       `json:"removed"`
	Changed []DebChange `json:"changed"`
}

// Empty reports no difference.
func (o *Others) Empty() bool { return len(o.Added)+len(o.Removed)+len(o.Changed) == 0 }

// Side describes one compared release.
type Side struct {
	Ref         string `json:"ref"`    // as given on the command line
	Origin      string `json:"origin"` // mirror, lock or out
	Profile     string `json:"profile"`
	L4T         string `json:"l4t"`
	CUDA        string `json:"cuda"`
	ReleaseDate string `json:"release_date"`
}

// Product is one manifest family (cuda, cudnn, tensorrt, l4t) on both sides.
type Product struct {
	Product string `json:"product"`
	// FromLabel and ToLabel are the release_label on each side; empty
	// where the product does not exist.
	FromLabel string `json:"from_label"`
	ToLabel   string `json:"to_label"`
	// Components lists the components that differ (or, with files, that
	// have unplaced paths or layout problems), sorted by pname.
	Components []ComponentChange `json:"components"`
	// Unchanged counts the components present on both sides with the same
	// version, platform, variant and debs (name, version, sha256).
	Unchanged int `json:"unchanged"`
}

// Component states of [ComponentChange.Status].
const (
	Added     = "added"
	Removed   = "removed"
	Changed   = "changed"
	Unchanged = "unchanged" // same debs; listed only for its Files findings
)

// ComponentChange is one redist package that differs between the sides.
type ComponentChange struct {
	PName  string `json:"pname"`
	Status string `json:"status"` // added, removed, changed, unchanged
	// FromVersion and ToVersion are the redist versions; empty on the side
	// without the component.
	FromVersion string `json:"from_version"`
	ToVersion   string `json:"to_version"`
	// FromPlatform/ToPlatform and FromVariant/ToVariant are set only when
	// they differ between the sides.
	FromPlatform    string `json:"from_platform,omitempty"`
	ToPlatform      string `json:"to_platform,omitempty"`
	FromCUDAVariant string `json:"from_cuda_variant,omitempty"`
	ToCUDAVariant   string `json:"to_cuda_variant,omitempty"`

	DebsAdded   []Deb       `json:"debs_added"`
	DebsRemoved []Deb       `json:"debs_removed"`
	DebsRenamed []DebRename `json:"debs_renamed"`
	DebsChanged []DebChange `json:"debs_changed"`

	// Files is the in-archive comparison (nil unless files were compared).
	Files *Files `json:"files"`
}

// Deb is one binary package of a component.
type Deb struct {
	Repo    string `json:"repo"`
	Name    string `json:"package"`
	Version string `json:"version"`
}

// DebRename pairs a deb that left a component with the one that took its
// place: same name once digits are ignored (cuda-cudart-11-4 ->
// cuda-cudart-12-6, libnvinfer8 -> libnvinfer10).
type DebRename struct {
	From Deb `json:"from"`
	To   Deb `json:"to"`
}

// DebChange is a deb present on both sides whose version or bytes differ.
type DebChange struct {
	// Repo is set for Others (components are per repo already).
	Repo        string `json:"repo,omitempty"`
	Name        string `json:"package"`
	FromVersion string `json:"from_version"`
	ToVersion   string `json:"to_version"`
	// Rebuilt: same version, different sha256 (a re-upload).
	Rebuilt bool `json:"rebuilt"`
}

// Compare diffs two releases at the level of components and debs.
func Compare(from, to *Input) *Result {
	res := &Result{From: side(from), To: side(to)}
	fromLabels, toLabels := labels(from), labels(to)
	var order []string
	seen := map[string]bool{}
	for _, r := range []*Input{from, to} {
		for _, pl := range (&plan.Grouping{Profile: r.Profile, Packages: r.Packages}).Products() {
			if !seen[pl.Product] {
				seen[pl.Product] = true
				order = append(order, pl.Product)
			}
		}
	}
	for _, prod := range order {
		p := Product{Product: prod, FromLabel: fromLabels[prod], ToLabel: toLabels[prod], Components: []ComponentChange{}}
		a, b := byPName(from, prod), byPName(to, prod)
		for _, name := range unionKeys(a, b) {
			fp, inFrom := a[name]
			tp, inTo := b[name]
			switch {
			case !inTo:
				c := ComponentChange{PName: name, Status: Removed, FromVersion: fp.Version}
				c.DebsRemoved = debs(fp.Debs)
				p.Components = append(p.Components, normalize(c))
			case !inFrom:
				c := ComponentChange{PName: name, Status: Added, ToVersion: tp.Version}
				c.DebsAdded = debs(tp.Debs)
				p.Components = append(p.Components, normalize(c))
			default:
				c := compareComponent(fp, tp)
				if c.Status == Unchanged {
					p.Unchanged++
					continue
				}
				p.Components = append(p.Components, c)
			}
		}
		res.Products = append(res.Products, p)
	}
	if res.Products == nil {
		res.Products = []Product{}
	}
	if from.Others != nil && to.Others != nil {
		res.Others = compareOthers(from.Others, to.Others)
	}
	return res
}

func compareOthers(a, b []apt.Package) *Others {
	o := &Others{Added: []Deb{}, Removed: []Deb{}, Changed: []DebChange{}}
	key := func(p apt.Package) string { return p.Repo + "/" + p.Name }
	am, bm := map[string]apt.Package{}, map[string]apt.Package{}
	for _, p := range a {
		am[key(p)] = p
	}
	for _, p := range b {
		bm[key(p)] = p
	}
	for _, k := range unionKeys(am, bm) {
		x, inA := am[k]
		y, inB := bm[k]
		switch {
		case !inB:
			o.Removed = append(o.Removed, Deb{Repo: x.Repo, Name: x.Name, Version: x.Version})
		case !inA:
			o.Added = append(o.Added, Deb{Repo: y.Repo, Name: y.Name, Version: y.Version})
		case x.Version != y.Version || x.SHA256 != y.SHA256:
			o.Changed = append(
				o.Changed,
				DebChange{
					Repo:        x.Repo,
					Name:        x.Name,
					FromVersion: x.Version,
					ToVersion:   y.Version,
					Rebuilt:     x.Version == y.Version,
				},
			)
		}
	}
	return o
}

// Empty reports a comparison that found nothing: no component added,
// removed or changed, no label moved, no path finding, no other deb
// changed.
func (r *Result) Empty() bool {
	if r.Others != nil && !r.Others.Empty() {
		return false
	}
	for _, p := range r.Products {
		if p.FromLabel != p.ToLabel || len(p.Components) > 0 {
			return false
		}
	}
	return true
}

func side(r *Input) Side {
	return Side{
		Ref:         r.Ref,
		Origin:      r.Origin,
		Profile:     r.Profile.Name,
		L4T:         r.Profile.L4T,
		CUDA:        r.Profile.CUDA,
		ReleaseDate: r.Profile.ReleaseDate,
	}
}

func labels(r *Input) map[string]string {
	m := map[string]string{}
	for _, pl := range (&plan.Grouping{Profile: r.Profile, Packages: r.Packages}).Products() {
		m[pl.Product] = pl.Label
	}
	return m
}

func byPName(r *Input, product string) map[string]plan.Package {
	m := map[string]plan.Package{}
	for _, p := range r.Packages {
		if p.Product == product {
			m[p.PName] = p
		}
	}
	return m
}

func unionKeys[V any](a, b map[string]V) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func debs(ps []apt.Package) []Deb {
	out := make([]Deb, 0, len(ps))
	for _, p := range ps {
		out = append(out, Deb{Repo: p.Repo, Name: p.Name, Version: p.Version})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// normalize turns nil slices into empty ones (stable JSON for tools).
func normalize(c ComponentChange) ComponentChange {
	for _, s := range []*[]Deb{&c.DebsAdded, &c.DebsRemoved} {
		if *s == nil {
			*s = []Deb{}
		}
	}
	if c.DebsRenamed == nil {
		c.DebsRenamed = []DebRename{}
	}
	if c.DebsChanged == nil {
		c.DebsChanged = []DebChange{}
	}
	return c
}

func compareComponent(a, b plan.Package) ComponentChange {
	c := ComponentChange{PName: a.PName, Status: Unchanged, FromVersion: a.Version, ToVersion: b.Version}
	if a.Platform != b.Platform {
		c.FromPlatform, c.ToPlatform = a.Platform, b.Platform
	}
	if a.CUDAVariant != b.CUDAVariant {
		c.FromCUDAVariant, c.ToCUDAVariant = orNone(a.CUDAVariant), orNone(b.CUDAVariant)
	}
	ad, bd := map[string]apt.Package{}, map[string]apt.Package{}
	for _, d := range a.Debs {
		ad[d.Name] = d
	}
	for _, d := range b.Debs {
		bd[d.Name] = d
	}
	var gone, came []apt.Package
	for _, name := range unionKeys(ad, bd) {
		x, inA := ad[name]
		y, inB := bd[name]
		switch {
		case !inB:
			gone = append(gone, x)
		case !inA:
			came = append(came, y)
		case x.Version != y.Version || x.SHA256 != y.SHA256:
			c.DebsChanged = append(
				c.DebsChanged,
				DebChange{Name: name, FromVersion: x.Version, ToVersion: y.Version, Rebuilt: x.Version == y.Version},
			)
		}
	}
	// Pair renames: same name once digits are ignored, in name order.
	used := map[int]bool{}
	for _, g := range gone {
		k := renameKey(g.Name)
		paired := false
		for j, n := range came {
			if !used[j] && renameKey(n.Name) == k {
				used[j], paired = true, true
				c.DebsRenamed = append(c.DebsRenamed, DebRename{From: debs([]apt.Package{g})[0], To: debs([]apt.Package{n})[0]})
				break
			}
		}
		if !paired {
			c.DebsRemoved = append(c.DebsRemoved, debs([]apt.Package{g})[0])
		}
	}
	for j, n := range came {
		if !used[j] {
			c.DebsAdded = append(c.DebsAdded, debs([]apt.Package{n})[0])
		}
	}
	if a.Version != b.Version || c.FromPlatform != "" || c.FromCUDAVariant != "" ||
		len(c.DebsAdded)+len(c.DebsRemoved)+len(c.DebsRenamed)+len(c.DebsChanged) > 0 {
		c.Status = Changed
	}
	return normalize(c)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

var digitsRE = regexp.MustCompile(`[0-9]+`)

func renameKey(name string) string { return digitsRE.ReplaceAllString(name, "#") }
