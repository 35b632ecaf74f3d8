package debredist

import "github.com/debredist/debredist/internal/reldiff"

// DiffResult is the difference between two releases. Products lists every
// product of either side, in plan order (cuda, cudnn, tensorrt, others).
type DiffResult struct {
	From     DiffSide      `json:"from"`
	To       DiffSide      `json:"to"`
	Products []DiffProduct `json:"products"`
	// Files says whether in-archive paths were compared (DiffComponent.Files).
	Files bool `json:"files"`
	// Others compares the debs no component converts (nil when a side
	// does not know them all: an output directory, or a jetpack-nixos
	// inventory, which lists no meta-packages).
	Others *DiffOthers `json:"others,omitempty"`
}

// Empty reports whether the releases do not differ.
func (r *DiffResult) Empty() bool {
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

// DiffSide describes one compared release.
type DiffSide struct {
	Ref         string `json:"ref"`    // as given (an L4T suite, a JetPack release, a file or a directory)
	Origin      string `json:"origin"` // mirror, lock or out
	Profile     string `json:"profile"`
	Suite       string `json:"l4t"`
	CUDA        string `json:"cuda"`
	ReleaseDate string `json:"release_date"`
}

// DiffProduct is one product (cuda, cudnn, tensorrt, l4t) on both sides.
type DiffProduct struct {
	Product string `json:"product"`
	// FromLabel and ToLabel are the release_label on each side; empty
	// where the product does not exist.
	FromLabel string `json:"from_label"`
	ToLabel   string `json:"to_label"`
	// Components lists the components that differ (or, with files, that
	// have unplaced paths or layout problems), sorted by pname.
	Components []DiffComponent `json:"components"`
	// Unchanged counts the components present on both sides with the same
	// version, platform, variant and debs (name, version, sha256).
	Unchanged int `json:"unchanged"`
}

// DiffComponent is one redist package that differs.
type DiffComponent struct {
	PName  string `json:"pname"`
	Status string `json:"status"` // added, removed, changed, unchanged
	// FromVersion and ToVersion are the redist versions; empty on the side
	// without the component.
	FromVersion string `json:"from_version"`
	ToVersion   string `json:"to_version"`
	// FromPlatform/ToPlatform and FromVariant/ToVariant are set only when
	// they differ between the sides.
	FromPlatform string `json:"from_platform,omitempty"`
	ToPlatform   string `json:"to_platform,omitempty"`
	FromVariant  string `json:"from_cuda_variant,omitempty"`
	ToVariant    string `json:"to_cuda_variant,omitempty"`

	DebsAdded   []DiffDeb       `json:"debs_added"`
	DebsRemoved []DiffDeb       `json:"debs_removed"`
	DebsRenamed []DiffDebRename `json:"debs_renamed"`
	DebsChanged []DiffDebChange `json:"debs_changed"`

	// Files is the in-archive comparison (nil unless files were compared).
	Files *DiffFiles `json:"files,omitempty"`
}

// DiffDeb is a binary package of a component.
type DiffDeb struct {
	Repo    string `json:"repo"`
	Name    string `json:"package"`
	Version string `json:"version"`
}

// DiffDebRename pairs a deb that left a component with the one that took
// its place: same name once digits are ignored (cuda-cudart-11-4 ->
// cuda-cudart-12-6, libnvinfer8 -> libnvinfer10).
type DiffDebRename struct {
	From DiffDeb `json:"from"`
	To   DiffDeb `json:"to"`
}

// DiffDebChange is a deb whose version (or bytes) changed.
type DiffDebChange struct {
	// Repo is set for DiffOthers (components are per repo already).
	Repo        string `json:"repo,omitempty"`
	Name        string `json:"package"`
	FromVersion string `json:"from_version"`
	ToVersion   string `json:"to_version"`
	// Rebuilt: same version, different sha256 (a re-upload).
	Rebuilt bool `json:"rebuilt,omitempty"`
}

// DiffFiles is the in-archive comparison of a component.
type DiffFiles struct {
	Added       []string         `json:"added"`
	Removed     []string         `json:"removed"`
	TypeChanged []DiffTypeChange `json:"type_changed"`
	LinkChanged []DiffLinkChange `json:"link_changed"`
	// Unplaced are the deb paths of the new (TO) release that no rule of
	// its profile places: a conversion would fail on them until a
	// profile file places or drops them.
	Unplaced []DiffUnplaced `json:"unplaced"`
	// Problem is another layout error the new release hits, if any.
	Problem string `json:"problem,omitempty"`
	// FromProblem is a layout error of the old release: its paths could
	// not be listed, so none are compared.
	FromProblem string `json:"from_problem,omitempty"`
}

// Empty reports whether the archives' paths do not differ.
func (f *DiffFiles) Empty() bool {
	return len(f.Added)+len(f.Removed)+len(f.TypeChanged)+len(f.LinkChanged)+len(f.Unplaced) == 0 && f.Problem == "" && f.FromProblem == ""
}

// DiffTypeChange is a path whose entry type differs (a directory became a
// symlink, ...).
type DiffTypeChange struct {
	Path string `json:"path"`
	From string `json:"from"`
	To   string `json:"to"`
}

// DiffLinkChange is a symlink whose target changed.
type DiffLinkChange struct {
	Path string `json:"path"`
	From string `json:"from"`
	To   string `json:"to"`
}

// DiffUnplaced is a deb path no layout rule places.
type DiffUnplaced struct {
	Deb  string `json:"deb"`
	Path string `json:"path"`
}

// DiffOthers compares the debs no component converts.
type DiffOthers struct {
	Added   []DiffDeb       `json:"added"`
	Removed []DiffDeb       `json:"removed"`
	Changed []DiffDebChange `json:"changed"`
}

// Empty reports whether the other debs do not differ.
func (o *DiffOthers) Empty() bool { return len(o.Added)+len(o.Removed)+len(o.Changed) == 0 }

// convertSlice converts each element (nil stays nil: JSON keeps null).
func convertSlice[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, x := range in {
		out[i] = f(x)
	}
	return out
}

func diffDeb(d reldiff.Deb) DiffDeb                      { return DiffDeb(d) }
func diffDebChange(d reldiff.DebChange) DiffDebChange    { return DiffDebChange(d) }
func diffTypeChange(d reldiff.TypeChange) DiffTypeChange { return DiffTypeChange(d) }
func diffLinkChange(d reldiff.LinkChange) DiffLinkChange { return DiffLinkChange(d) }
func diffUnplaced(d reldiff.Unplaced) DiffUnplaced       { return DiffUnplaced(d) }

// diffResult converts reldiff's result at the boundary.
func diffResult(r *reldiff.Result) *DiffResult {
	out := &DiffResult{From: DiffSide(r.From), To: DiffSide(r.To), Files: r.Files}
	out.Products = convertSlice(r.Products, func(p reldiff.Product) DiffProduct {
		return DiffProduct{Product: p.Product, FromLabel: p.FromLabel, ToLabel: p.ToLabel, Unchanged: p.Unchanged,
			Components: convertSlice(p.Components, diffComponent)}
	})
	if o := r.Others; o != nil {
		out.Others = &DiffOthers{Added: convertSlice(o.Added, diffDeb), Removed: convertSlice(o.Removed, diffDeb), Changed: convertSlice(o.Changed, diffDebChange)}
	}
	return out
}

func diffComponent(c reldiff.Component) DiffComponent {
	d := DiffComponent{PName: c.PName, Status: c.Status, FromVersion: c.FromVersion, ToVersion: c.ToVersion,
		FromPlatform: c.FromPlatform, ToPlatform: c.ToPlatform, FromVariant: c.FromVariant, ToVariant: c.ToVariant,
		DebsAdded: convertSlice(c.DebsAdded, diffDeb), DebsRemoved: convertSlice(c.DebsRemoved, diffDeb),
		DebsRenamed: convertSlice(c.DebsRenamed, func(r reldiff.DebRename) DiffDebRename {
			return DiffDebRename{From: DiffDeb(r.From), To: DiffDeb(r.To)}
		}),
		DebsChanged: convertSlice(c.DebsChanged, diffDebChange)}
	if f := c.Files; f != nil {
		d.Files = &DiffFiles{Added: f.Added, Removed: f.Removed, Problem: f.Problem, FromProblem: f.FromProblem,
			TypeChanged: convertSlice(f.TypeChanged, diffTypeChange), LinkChanged: convertSlice(f.LinkChanged, diffLinkChange),
			Unplaced: convertSlice(f.Unplaced, diffUnplaced)}
	}
	return d
}
