package apt

import (
	"fmt"
	"sort"

	"pault.ag/go/debian/version"
)

// CompareVersions compares two Debian versions (epochs, "~", revisions, as
// dpkg does) and returns -1, 0 or +1. Either version failing to parse is an
// error.
func CompareVersions(a, b string) (int, error) {
	va, err := version.Parse(a)
	if err != nil {
		return 0, fmt.Errorf("apt: version %q: %w", a, err)
	}
	vb, err := version.Parse(b)
	if err != nil {
		return 0, fmt.Errorf("apt: version %q: %w", b, err)
	}
	switch c := version.Compare(va, vb); {
	case c < 0:
		return -1, nil
	case c > 0:
		return 1, nil
	}
	return 0, nil
}

// Newest keeps the package with the highest Debian version for each (Repo,
// Name); on equal versions the first one seen wins. A version that does not
// parse ranks below every valid one. The result is sorted by Repo, then Name;
// the input is not modified.
func Newest(pkgs []Package) []Package {
	type key struct{ repo, name string }
	type best struct {
		idx int
		v   version.Version
		ok  bool
	}
	byKey := make(map[key]*best, len(pkgs))
	for i := range pkgs {
		k := key{pkgs[i].Repo, pkgs[i].Name}
		v, err := version.Parse(pkgs[i].Version)
		ok := err == nil
		b := byKey[k]
		if b == nil {
			byKey[k] = &best{idx: i, v: v, ok: ok}
			continue
		}
		if ok && (!b.ok || version.Compare(v, b.v) > 0) {
			*b = best{idx: i, v: v, ok: true}
		}
	}
	out := make([]Package, 0, len(byKey))
	for _, b := range byKey {
		out = append(out, pkgs[b.idx])
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Repo != out[j].Repo {
			return out[i].Repo < out[j].Repo
		}
		return out[i].Name < out[j].Name
	})
	return out
}
