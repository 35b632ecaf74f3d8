package build

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/layout"
	"github.com/debredist/debredist/internal/wheel"
)

// wheelOrigin is the Origin.Deb of a built wheel's tree node.
const wheelOrigin = "debredist-wheel"

// distPackagesRE matches a Python module file the debs install.
var distPackagesRE = regexp.MustCompile(`^lib/python3\.([0-9]+)/(?:dist|site)-packages/(.+)$`)

// addWheels applies the profile's wheel rules to a built tree: the files
// the rule's debs install under lib/python3.X/dist-packages/ become one
// wheel per Python version in python/ (NVIDIA's tarball layout), and leave
// the tree. The debs' own .dist-info/.egg-info metadata is replaced by the
// wheel's. It returns the wheels' archive paths.
func addWheels(p profile.Profile, pname, version, tool string, tree *layout.Tree) ([]string, error) {
	var rules []profile.WheelRule
	for _, r := range p.Merged().Wheels {
		if len(r.Packages) == 0 || slices.Contains(r.Packages, pname) {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return nil, nil
	}
	arch, _, _ := strings.Cut(p.Triple, "-")
	if arch == "" {
		return nil, fmt.Errorf("wheels: profile %s has no triple to name the platform tag", p.Name)
	}
	type key struct {
		rule  int
		minor string
	}
	groups := map[key][]wheel.File{}
	origins := map[key][]fault.DebPath{}
	remove := map[string]bool{}
	for _, n := range tree.Nodes {
		m := distPackagesRE.FindStringSubmatch(n.Path)
		if m == nil || n.Type == entry.Dir || len(n.Origins) == 0 {
			continue
		}
		ri := slices.IndexFunc(rules, func(r profile.WheelRule) bool { return slices.Contains(r.Debs, n.Origins[0].Deb) })
		if ri < 0 {
			continue
		}
		rel := m[2]
		top, _, _ := strings.Cut(rel, "/")
		if strings.HasSuffix(top, ".dist-info") || strings.HasSuffix(top, ".egg-info") {
			remove[n.Path] = true // replaced by the wheel's own metadata
			continue
		}
		if n.Type != entry.Regular {
			return nil, fmt.Errorf(
				"wheel %s: %s (deb %s, %s) is a %s; a wheel holds regular files only",
				rules[ri].Name,
				n.Path,
				n.Origins[0].Deb,
				n.Origins[0].Path,
				n.Type,
			)
		}
		k := key{ri, m[1]}
		nd := n
		groups[k] = append(groups[k], wheel.File{Path: rel, Mode: n.Mode, Open: func() (io.ReadCloser, error) {
			if nd.Data != nil {
				return io.NopCloser(bytes.NewReader(nd.Data)), nil
			}
			return os.Open(nd.Ref)
		}})
		origins[k] = append(origins[k], n.Origins...)
		remove[n.Path] = true
	}
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].rule != keys[j].rule {
			return keys[i].rule < keys[j].rule
		}
		return keys[i].minor < keys[j].minor
	})
	var kept []layout.Node
	for _, n := range tree.Nodes {
		if !remove[n.Path] {
			kept = append(kept, n)
		}
	}
	var made []string
	for _, k := range keys {
		r := rules[k.rule]
		parts := r.VersionParts
		if parts <= 0 {
			parts = 3
		}
		vs := strings.Split(version, ".")
		if len(vs) > parts {
			vs = vs[:parts]
		}
		meta := wheel.Meta{Name: r.Name, Version: strings.Join(vs, "."), PythonTag: "cp3" + k.minor, ABITag: "none",
			PlatformTag: "linux_" + arch, Summary: r.Summary, Generator: tool}
		var b bytes.Buffer
		if err := wheel.Write(&b, meta, groups[k]); err != nil {
			return nil, fmt.Errorf("redist package %s: %w", pname, err)
		}
		name := "python/" + meta.FileName()
		if slices.ContainsFunc(kept, func(n layout.Node) bool { return n.Path == name }) {
			return nil, fmt.Errorf("wheel %s: the debs already ship %s", r.Name, name)
		}
		kept = append(kept, layout.Node{
			Header:  entry.Header{Path: name, Type: entry.Regular, Mode: 0o644, Size: int64(b.Len())},
			Data:    b.Bytes(),
			Origins: append([]fault.DebPath{{Deb: wheelOrigin, Path: name}}, origins[k]...),
		})
		made = append(made, name)
	}
	tree.Nodes = pruneDirs(kept)
	sort.Slice(tree.Nodes, func(i, j int) bool { return tree.Nodes[i].Path < tree.Nodes[j].Path })
	return made, nil
}

// pruneDirs drops directories left without any non-directory below them.
func pruneDirs(nodes []layout.Node) []layout.Node {
	used := map[string]bool{}
	for _, n := range nodes {
		if n.Type == entry.Dir {
			continue
		}
		for d := path.Dir(n.Path); d != "."; d = path.Dir(d) {
			used[d] = true
		}
	}
	out := nodes[:0]
	for _, n := range nodes {
		if n.Type != entry.Dir || used[n.Path] {
			out = append(out, n)
		}
	}
	return out
}
