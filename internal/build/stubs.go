package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/elfstub"
	"github.com/debredist/debredist/internal/layout"
)

// stubOrigin is the Origin.Deb of a synthesized stub's tree node.
const stubOrigin = "debredist-stub"

// addStubs applies the profile's stub rules to a built tree: for every
// regular file matching a rule of this package it adds the stub library
// the rule names (with the real library's SONAME and symbol@version set),
// unless the tree already holds that path (a stub the debs carry is never
// replaced). debs are the package's debs, named in errors.
func addStubs(p profile.Profile, pname string, tree *layout.Tree, debs []apt.Package) ([]redist.Stub, error) {
	rules := p.Merged().Stubs
	nodes := map[string]*layout.Node{}
	for i := range tree.Nodes {
		nodes[tree.Nodes[i].Path] = &tree.Nodes[i]
	}
	type want struct {
		real layout.Node
		rule string
	}
	wanted := map[string]want{}
	for _, r := range rules {
		if len(r.Packages) > 0 && !slices.Contains(r.Packages, pname) {
			continue
		}
		re, err := regexp.Compile(r.Match)
		if err != nil {
			return nil, fmt.Errorf("stub rule %q: %w", r.Match, err)
		}
		for i := range tree.Nodes {
			n := &tree.Nodes[i]
			if (n.Type != entry.Regular && n.Type != entry.Hardlink) || !re.MatchString(n.Path) {
				continue
			}
			if n.Type == entry.Hardlink { // the library's bytes are those of the link's target
				t, ok := nodes[n.Link]
				if !ok || t.Type != entry.Regular {
					return nil, fmt.Errorf("stub rule %q: hardlink %s: target %s is not a file of the tree", r.Match, n.Path, n.Link)
				}
				hl := *n
				hl.Ref = t.Ref
				n = &hl
			}
			if n.Ref == "" {
				return nil, fmt.Errorf("stub rule %q: %s has no staged content", r.Match, n.Path)
			}
			name := path.Clean(re.ReplaceAllString(n.Path, r.Name))
			if name == "." || name == n.Path || strings.HasPrefix(name, "../") || path.IsAbs(name) {
				return nil, fmt.Errorf("stub rule %q: %s gives an invalid stub path %q", r.Match, n.Path, name)
			}
			if _, exists := nodes[name]; exists {
				continue // the debs ship this stub (or another file there): keep it
			}
			if w, dup := wanted[name]; dup && w.real.Path != n.Path {
				return nil, fmt.Errorf("stub %s: both %s and %s match stub rules (rule %q)", name, w.real.Path, n.Path, r.Match)
			}
			wanted[name] = want{*n, r.Match}
		}
	}
	names := make([]string, 0, len(wanted))
	for name := range wanted {
		names = append(names, name)
	}
	sort.Strings(names)
	var recs []redist.Stub
	for _, name := range names {
		real := wanted[name].real
		origin := real.Origins[0]
		debFile := origin.Deb
		for _, d := range debs {
			if d.Name == origin.Deb {
				debFile = path.Base(d.Filename)
			}
		}
		b, lib, err := synthesizeStub(real.Ref)
		if err != nil {
			return nil, fmt.Errorf(
				"stub %s: reading %s (deb %s, %s) as an ELF shared library: %w",
				name,
				origin.Path,
				debFile,
				real.Path,
				err,
			)
		}
		sum := sha256.Sum256(b)
		digest := hex.EncodeToString(sum[:])
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			if n, ok := nodes[d]; ok {
				if n.Type != entry.Dir {
					return nil, fmt.Errorf("stub %s: %s is a %s, not a directory", name, d, n.Type)
				}
				continue
			}
			tree.Nodes = append(
				tree.Nodes,
				layout.Node{
					Header:  entry.Header{Path: d, Type: entry.Dir, Mode: 0o755},
					Origins: []fault.DebPath{{Deb: stubOrigin, Path: name}},
				},
			)
			nodes[d] = &tree.Nodes[len(tree.Nodes)-1]
		}
		tree.Nodes = append(tree.Nodes, layout.Node{
			Header:  entry.Header{Path: name, Type: entry.Regular, Mode: 0o755, Size: int64(len(b))},
			Digest:  digest,
			Data:    b,
			Origins: []fault.DebPath{{Deb: stubOrigin, Path: real.Path}},
		})
		nodes[name] = &tree.Nodes[len(tree.Nodes)-1]
		recs = append(
			recs,
			redist.Stub{
				Path:    name,
				From:    real.Path,
				FromDeb: debFile,
				SOName:  lib.SOName,
				Symbols: len(lib.Symbols),
				SHA256:  digest,
			},
		)
	}
	sort.Slice(tree.Nodes, func(i, j int) bool { return tree.Nodes[i].Path < tree.Nodes[j].Path })
	return recs, nil
}

// synthesizeStub reads the staged real library and returns its stub.
func synthesizeStub(ref string) ([]byte, *elfstub.Library, error) {
	f, err := os.Open(ref)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	lib, err := elfstub.Read(f, st.Size())
	if err != nil {
		return nil, nil, err
	}
	b, err := elfstub.Write(lib)
	if err != nil {
		return nil, nil, err
	}
	return b, lib, nil
}
