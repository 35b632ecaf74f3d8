package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/layout"
)

// Listing lays out pkgs (redist packages of one release, which ref names
// in errors) with profile p, as Package would, without writing archives:
// each package's debs, found in paths (cache files by sha256), are staged
// under the system temporary directory, one package at a time, and each
// gets what its layout gave: the tree's headers, the deb paths no rule
// placed, and the error that stopped the layout (part of what it reports,
// not a failure of Listing). A deb missing from paths, or one that cannot
// be staged, is an error naming ref, the package and the deb.
func Listing(
	ctx context.Context,
	limits entry.Limits,
	p profile.Profile,
	ref string,
	pkgs []plan.Package,
	paths map[string]string,
	each func(pname string, nodes []entry.Header, unplaced []fault.DebPath, err error),
) error {
	eng, err := layout.New(p)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "debredist-diff-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(work) }()
	for i, p := range pkgs {
		dir := filepath.Join(work, fmt.Sprint(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		var inputs []layout.Input
		n := 0
		debs := append([]apt.Package(nil), p.Debs...)
		sort.Slice(debs, func(a, b int) bool { return debs[a].Name < debs[b].Name })
		for _, d := range debs {
			file, ok := paths[d.SHA256]
			if !ok {
				return fmt.Errorf("%s: redist package %s: deb %s (%s) is not in the cache", ref, p.PName, d.Name, d.SHA256)
			}
			ins, _, err := Stage(ctx, limits, d, file, dir, &n)
			if err != nil {
				return fmt.Errorf("%s: redist package %s: deb %s: %w", ref, p.PName, d.Name, err)
			}
			inputs = append(inputs, ins...)
		}
		tree, unplaced, err := eng.BuildPartial(p.PName, inputs, ReadBlob)
		each(p.PName, tree.Headers(), unplaced, err)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	return nil
}
