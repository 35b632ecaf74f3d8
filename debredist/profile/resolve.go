package profile

import (
	"cmp"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
)

// Binary is what Resolve needs to know of an index entry.
type Binary struct {
	Name, Version string
}

var cudartRE = regexp.MustCompile(`^cuda-cudart-([0-9]+)-([0-9]+)$`)

// Resolve fills what the profile leaves to the index: the CUDA version
// (from the cuda-cudart-X-Y package; the newest when several exist) and the
// release date (the newest build timestamp in the versions of the suite's
// nvidia-l4t-* packages, e.g. 36.5.0-20260115194252 -> 2026-01-15).
func (p Profile) Resolve(pkgs []Binary) (Profile, error) {
	if p.CUDA == "" {
		var found []string
		for _, b := range pkgs {
			if m := cudartRE.FindStringSubmatch(b.Name); m != nil {
				found = append(found, m[1]+"."+m[2])
			}
		}
		if len(found) == 0 {
			return p, fault.Errorf(
				"L4T %s: cannot derive the CUDA version: no cuda-cudart-X-Y package in the index (set \"cuda\" in a %s file)",
				p.L4T,
				fault.RefProfileFile,
			)
		}
		sort.Slice(found, func(i, j int) bool { return CompareDotted(found[i], found[j]) < 0 })
		p.CUDA = found[len(found)-1]
	}
	if p.ReleaseDate == "" {
		p.ReleaseDate = l4tDate(p.L4T, pkgs)
	}
	return p, nil
}

var l4tVerRE = regexp.MustCompile(`^([0-9]+\.[0-9]+)\.[0-9]+-([0-9]{4})([0-9]{2})([0-9]{2})[0-9]{6}$`)

func l4tDate(suite string, pkgs []Binary) string {
	want := strings.TrimPrefix(suite, "r")
	best := ""
	for _, b := range pkgs {
		if !strings.HasPrefix(b.Name, "nvidia-l4t-") {
			continue
		}
		m := l4tVerRE.FindStringSubmatch(b.Version)
		if m == nil || m[1] != want {
			continue
		}
		if d := m[2] + "-" + m[3] + "-" + m[4]; d > best {
			best = d
		}
	}
	return best
}

// CompareDotted compares dotted numeric versions, the CUDA and redist
// versions profiles and manifests use: -1, 0 or +1 ("12.6" < "13.0" <
// "13.2.1"; a missing part counts 0, and so does one that is not a number).
func CompareDotted(a, b string) int {
	x, y := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(x) || i < len(y); i++ {
		var m, n int
		if i < len(x) {
			m, _ = strconv.Atoi(x[i])
		}
		if i < len(y) {
			n, _ = strconv.Atoi(y[i])
		}
		if m != n {
			return cmp.Compare(m, n)
		}
	}
	return 0
}
