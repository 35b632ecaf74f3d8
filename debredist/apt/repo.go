package apt

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// DefaultBase is NVIDIA's Jetson apt repository root.
const DefaultBase = "https://repo.download.nvidia.com/jetson"

// Repo is one L4T apt repository: <Base>/<Name> with suite <Suite>.
//
// Base is an http(s) URL, a file:// URL, or a plain directory path. For URLs
// the methods return URLs with every path segment escaped ([url.PathEscape],
// and "+" as "%2B": [url.PathEscape] keeps it, but some object-store servers
// read a literal "+" as a space). For a directory path they return
// filesystem paths joined with filepath, unescaped.
type Repo struct {
	Base      string
	Name      string // common, t234, t194, som
	Suite     string // r36.5
	Component string // main
	Arch      string // arm64
}

// NewRepo returns a Repo with Component "main", Arch "arm64", and Base
// DefaultBase when base is empty.
func NewRepo(base, name, suite string) Repo {
	if base == "" {
		base = DefaultBase
	}
	return Repo{Base: base, Name: name, Suite: suite, Component: "main", Arch: "arm64"}
}

// Validate checks that Name, Suite, Component and Arch are single safe path
// segments and that Base is set.
func (r Repo) Validate() error {
	if r.Base == "" {
		return fmt.Errorf("apt: repo %q: empty base", r.Name)
	}
	for _, f := range []struct{ what, v string }{
		{"name", r.Name}, {"suite", r.Suite}, {"component", r.Component}, {"arch", r.Arch},
	} {
		if msg := segmentProblem(f.what, f.v); msg != "" {
			return fmt.Errorf("apt: repo %q: %s", r.Name, msg)
		}
	}
	return nil
}

// segmentProblem checks that v is a single safe path segment.
func segmentProblem(what, v string) string {
	msg := filenameProblem(v)
	if msg == "" && strings.Contains(v, "/") {
		msg = "contains a slash"
	}
	if msg != "" {
		return fmt.Sprintf("%s %q: %s", what, v, msg)
	}
	return ""
}

func (r Repo) isURL() bool { return strings.Contains(r.Base, "://") }

// join appends slash-separated parts to the base, escaping each segment for
// URL bases.
func (r Repo) join(parts ...string) string {
	if !r.isURL() {
		segs := []string{r.Base}
		for _, p := range parts {
			segs = append(segs, filepath.FromSlash(p))
		}
		return filepath.Join(segs...)
	}
	var sb strings.Builder
	sb.WriteString(strings.TrimRight(r.Base, "/"))
	for _, p := range parts {
		for seg := range strings.SplitSeq(p, "/") {
			if seg == "" {
				continue
			}
			sb.WriteByte('/')
			sb.WriteString(escapeSegment(seg))
		}
	}
	return sb.String()
}

// DistURL returns <base>/<name>/dists/<suite>/<file>, e.g. for "InRelease".
func (r Repo) DistURL(file string) string {
	return r.join(r.Name, "dists", r.Suite, file)
}

// IndexPath returns the Release key of an index file:
// "main/binary-arm64/<file>".
func (r Repo) IndexPath(file string) string {
	return r.Component + "/binary-" + r.Arch + "/" + file
}

// IndexURL returns <base>/<name>/dists/<suite>/main/binary-arm64/<file>.
func (r Repo) IndexURL(file string) string {
	return r.DistURL(r.IndexPath(file))
}

// PoolURL returns <base>/<name>/<filename> for a stanza's Filename, after
// checking it with CheckFilename and checking that Name is one safe path
// segment.
func (r Repo) PoolURL(filename string) (string, error) {
	if err := segmentProblem("name", r.Name); err != "" {
		return "", fmt.Errorf("apt: repo %q: %s", r.Name, err)
	}
	if err := CheckFilename(filename); err != nil {
		return "", fmt.Errorf("apt: repo %s: %w", r.Name, err)
	}
	return r.join(r.Name, filename), nil
}

// escapeSegment escapes one path segment: url.PathEscape, and "+" too.
func escapeSegment(seg string) string {
	return strings.ReplaceAll(url.PathEscape(seg), "+", "%2B")
}
