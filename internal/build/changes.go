package build

import (
	"fmt"
	"sort"
	"strings"

	"github.com/debredist/debredist/internal/deb"
	"github.com/debredist/debredist/internal/layout"
)

// treeChanges lists, one line per affected entry, what the archive of tr
// changes beyond placing the debs' entries: the layout engine's changes
// (links re-rooted, merged or resolved, license files merged) and the
// setuid, setgid and sticky bits the archive strips. The lines go into
// the provenance sidecar.
func treeChanges(tr *layout.Tree) []string {
	out := append([]string(nil), tr.Changes...)
	for _, n := range tr.Nodes {
		if bits := deb.SpecialBits(n.Mode); bits != "" {
			o := n.Origins[0]
			out = append(out, fmt.Sprintf("%s:%s: %s stripped (at %s)", o.Deb, o.Path, bits, n.Path))
		}
	}
	sort.Strings(out)
	return out
}

// InPackage names the redist package in err unless err already does (the
// layout engine's errors start with it).
func InPackage(pname string, err error) error {
	if strings.HasPrefix(err.Error(), "redist package "+pname+":") {
		return err
	}
	return fmt.Errorf("redist package %s: %w", pname, err)
}
