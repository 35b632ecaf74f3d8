package build

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path"
	"sort"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/deb"
	"github.com/debredist/debredist/internal/fetch"
	"github.com/debredist/debredist/internal/layout"
	"github.com/debredist/debredist/internal/nixcheck"
)

// NoPayloadReason is why a package whose debs carry no payload is not
// emitted.
const NoPayloadReason = "its debs carry nothing the redist layout keeps (only copyright, changelog or dropped " +
	"files): an archive would hold nothing but LICENSE"

// Skipped is p skipped for carrying no payload.
func Skipped(p plan.Package) plan.SkippedPackage {
	s := plan.SkippedPackage{PName: p.PName, Product: p.Product, Version: p.Version, Reason: NoPayloadReason}
	for _, d := range p.Debs {
		s.Debs = append(s.Debs, d.Name)
	}
	sort.Strings(s.Debs)
	return s
}

// DebHasPayload reads a deb's entries from the cache up to the first one
// that carries content into the redist tree. Only a deb read to its end,
// whose bytes hash to the sha256 it was stored under, can be called
// empty: an unreadable or corrupt cache entry counts as carrying payload
// (the package stays in the plan, and Convert reads it verified).
func DebHasPayload(
	ctx context.Context,
	limits entry.Limits,
	eng *layout.Engine,
	pname string,
	d apt.Package,
	file string,
) bool {
	ent, err := fetch.OpenEntry(file, d.Name, d.SHA256)
	if err != nil {
		return true
	}
	defer func() { _ = ent.Close() }()
	r, err := deb.NewReader(
		ctx,
		bufio.NewReaderSize(ent, 1<<20),
		deb.Options{Limits: limits, Name: path.Base(file)},
	) // pure Go: only the first entries are read
	if err != nil {
		return true
	}
	defer func() { _ = r.Close() }()
	for {
		e, err := r.Next()
		if err == io.EOF {
			_, _, verr := ent.Verify()
			return verr != nil
		}
		if err != nil || eng.Payload(pname, layout.FromDeb(d.Name, e)) {
			return true
		}
	}
}

// treeHasPayload reports whether a built tree holds anything but LICENSE.
func treeHasPayload(t *layout.Tree) bool {
	for _, n := range t.Nodes {
		if n.Type != entry.Dir && n.Path != "LICENSE" {
			return true
		}
	}
	return false
}

// outputWarnings names the outputs nixpkgs declares for the package that
// the tree leaves empty (nixpkgs' checkCudaNonEmptyOutputs fails on them).
func outputWarnings(p profile.Profile, pkg plan.Package, t *layout.Tree) []redist.Warning {
	c := nixcheck.Shared().
		NewChecker(nixcheck.Target{
			PName:        pkg.PName,
			Platform:     pkg.Platform,
			CUDA:         p.CUDA,
			Version:      pkg.Version,
			Capabilities: p.Capabilities,
		})
	for _, n := range t.Nodes {
		_ = c.Add(n.Header, nil)
	}
	r := c.Finish()
	if r.Broken != "" {
		return nil
	}
	var ws []redist.Warning
	for _, o := range r.EmptyOutputs {
		ws = append(
			ws,
			redist.Warning{
				Code:    redist.WarnEmptyOutput,
				Package: pkg.PName,
				Message: fmt.Sprintf(
					"redist package %s: nixpkgs' declared output %q would be empty: the debs carry nothing for it (nixpkgs' build "+
						"fails in checkCudaNonEmptyOutputs unless the output is overridden away)",
					pkg.PName,
					o,
				),
			},
		)
	}
	for _, v := range r.Insecure {
		ws = append(
			ws,
			redist.Warning{
				Code:    redist.WarnInsecure,
				Package: pkg.PName,
				Message: fmt.Sprintf(
					"redist package %s: nixpkgs marks it insecure (%s): it evaluates only where you permit it (the overlay of "+
						"'debredist nix' names the choice)",
					pkg.PName,
					v,
				),
			},
		)
	}
	return ws
}
