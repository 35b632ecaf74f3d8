package reldiff

import (
	"encoding/json"
	"sort"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
)

// Listing is the layout of one component on one side: the paths of its
// archive (relative to the top directory), the deb paths no rule placed
// and any other layout error.
type Listing struct {
	Nodes    map[string]entry.Header
	Unplaced []fault.DebPath
	// Problem is a layout error other than unplaced paths (a conflict, a
	// dangling link); Nodes is then empty.
	Problem string
}

// Files is the in-archive comparison of one component.
type Files struct {
	Added       []string     `json:"added"`
	Removed     []string     `json:"removed"`
	TypeChanged []TypeChange `json:"type_changed"`
	LinkChanged []LinkChange `json:"link_changed"`
	// Unplaced are the deb paths of the new (TO) release that no rule of
	// its profile places: a conversion would fail on them until a
	// --profile file places or drops them.
	Unplaced []fault.DebPath `json:"unplaced"`
	// Problem is another layout error the new release hits, if any.
	Problem string `json:"problem,omitempty"`
	// FromProblem is a layout error of the old release: its paths could
	// not be listed, so none are compared.
	FromProblem string `json:"from_problem,omitempty"`
}

// TypeChange is a path whose entry type differs (a directory became a
// symlink, ...).
type TypeChange struct {
	Path string     `json:"path"`
	From entry.Type `json:"from"`
	To   entry.Type `json:"to"`
}

// LinkChange is a symlink (or hardlink) whose target differs.
type LinkChange struct {
	Path string `json:"path"`
	From string `json:"from"`
	To   string `json:"to"`
}

// Empty reports no finding.
func (f *Files) Empty() bool {
	return len(f.Added)+len(f.Removed)+len(f.TypeChanged)+len(f.LinkChanged)+len(f.Unplaced) == 0 && f.Problem == "" &&
		f.FromProblem == ""
}

// NewListing is the Listing of one component: the entries its archive
// would hold (paths relative to the top directory), the deb paths no rule
// placed, and a layout error other than those (then Nodes stays empty).
func NewListing(nodes []entry.Header, unplaced []fault.DebPath, err error) Listing {
	var l Listing
	l.Unplaced = unplaced
	if err != nil {
		l.Problem = err.Error()
		return l
	}
	l.Nodes = make(map[string]entry.Header, len(nodes))
	for _, n := range nodes {
		l.Nodes[n.Path] = n
	}
	return l
}

// CompareFiles compares one component's listings. from is nil for a
// component the old release does not have (its paths are not listed as
// added, only its unplaced paths and problems are reported); to is nil for
// a removed component (nothing to report).
func CompareFiles(from, to *Listing) *Files {
	f := &Files{
		Added:       []string{},
		Removed:     []string{},
		TypeChanged: []TypeChange{},
		LinkChanged: []LinkChange{},
		Unplaced:    []fault.DebPath{},
	}
	if to == nil {
		return f
	}
	f.Unplaced = append(f.Unplaced, to.Unplaced...)
	f.Problem = to.Problem
	if from != nil {
		f.FromProblem = from.Problem
	}
	if from == nil || from.Problem != "" || to.Problem != "" {
		return f
	}
	for p, a := range from.Nodes {
		b, ok := to.Nodes[p]
		switch {
		case !ok:
			f.Removed = append(f.Removed, p)
		case a.Type != b.Type:
			f.TypeChanged = append(f.TypeChanged, TypeChange{Path: p, From: a.Type, To: b.Type})
		case a.Link != b.Link:
			f.LinkChanged = append(f.LinkChanged, LinkChange{Path: p, From: a.Link, To: b.Link})
		}
	}
	for p := range to.Nodes {
		if _, ok := from.Nodes[p]; !ok {
			f.Added = append(f.Added, p)
		}
	}
	sort.Strings(f.Added)
	sort.Strings(f.Removed)
	sort.Slice(f.TypeChanged, func(i, j int) bool { return f.TypeChanged[i].Path < f.TypeChanged[j].Path })
	sort.Slice(f.LinkChanged, func(i, j int) bool { return f.LinkChanged[i].Path < f.LinkChanged[j].Path })
	sort.Slice(f.Unplaced, func(i, j int) bool {
		if f.Unplaced[i].Deb != f.Unplaced[j].Deb {
			return f.Unplaced[i].Deb < f.Unplaced[j].Deb
		}
		return f.Unplaced[i].Path < f.Unplaced[j].Path
	})
	return f
}

// NeedsFiles lists, per side, the pnames whose listings AddFiles needs:
// every component of the new release (for its unplaced paths) and the old
// side of every changed component, or of every component both sides have
// when their layout rules differ (a profile file that moves paths changes
// the archives of components whose debs did not change).
func NeedsFiles(r *Result, from, to *Input) (fromNames, toNames []string) {
	for _, p := range to.Packages {
		toNames = append(toNames, p.PName)
	}
	all := !sameLayout(from.Profile, to.Profile)
	for _, p := range r.Products {
		for _, c := range p.Components {
			if c.Status == Changed {
				fromNames = append(fromNames, c.PName)
			}
		}
	}
	if all {
		fromNames = fromNames[:0]
		in := map[string]bool{}
		for _, p := range to.Packages {
			in[p.PName] = true
		}
		for _, p := range from.Packages {
			if in[p.PName] {
				fromNames = append(fromNames, p.PName)
			}
		}
	}
	return fromNames, toNames
}

// sameLayout reports whether two profiles lay out the same debs the same
// way (the inputs of layout.New).
func sameLayout(a, b profile.Profile) bool {
	key := func(p profile.Profile) string {
		j, _ := json.Marshal(struct {
			CUDA, Target, Triple string
			Rules                profile.Rules
		}{p.CUDA, p.Target, p.Triple, p.Merged()})
		return string(j)
	}
	return key(a) == key(b)
}

// AddFiles fills [ComponentChange.Files] from the listings (keyed by pname) and
// adds the components of the new release (toRel) whose debs did not change
// but whose listing differs from the old one (when both are given) or has
// unplaced paths or a problem.
func AddFiles(r *Result, toRel *Input, from, to map[string]*Listing) {
	r.Files = true
	listed := map[string]bool{}
	for i := range r.Products {
		p := &r.Products[i]
		for j := range p.Components {
			c := &p.Components[j]
			listed[c.PName] = true
			switch c.Status {
			case Changed:
				c.Files = CompareFiles(from[c.PName], to[c.PName])
			case Added:
				c.Files = CompareFiles(nil, to[c.PName])
			default:
				c.Files = CompareFiles(nil, nil)
			}
		}
	}
	for i := range r.Products {
		p := &r.Products[i]
		for _, pkg := range toRel.Packages {
			l := to[pkg.PName]
			if l == nil || listed[pkg.PName] || pkg.Product != p.Product {
				continue
			}
			f := CompareFiles(from[pkg.PName], l)
			if f.Empty() {
				continue
			}
			p.Components = append(
				p.Components,
				normalize(
					ComponentChange{PName: pkg.PName, Status: Unchanged, FromVersion: pkg.Version, ToVersion: pkg.Version, Files: f},
				),
			)
			p.Unchanged--
		}
		sort.Slice(p.Components, func(a, b int) bool { return p.Components[a].PName < p.Components[b].PName })
	}
}
