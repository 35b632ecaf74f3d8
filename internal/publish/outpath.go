package publish

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Path is the one place that turns names (products, pnames, platforms,
// labels, relative paths read back from an earlier sidecar) into paths in
// OUT: every file Convert writes, renames into place or removes in OUT is
// named by it. It refuses any element that is absolute, climbs with "..",
// holds a NUL or is empty, so a name that slipped past validation still
// cannot become a write outside OUT.
func Path(out string, elems ...string) (string, error) {
	for _, e := range elems {
		if e == "" || strings.ContainsRune(e, 0) || !filepath.IsLocal(filepath.FromSlash(e)) {
			return "", fmt.Errorf(
				"refusing to write %q under %s: it is not a path inside the output directory",
				filepath.Join(elems...),
				out,
			)
		}
	}
	rel := filepath.FromSlash(filepath.Join(elems...))
	return filepath.Join(out, rel), nil
}
