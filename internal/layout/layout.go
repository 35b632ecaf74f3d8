package layout

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/safepath"
)

// Input is one entry of a deb's data, in Debian's filesystem layout: its
// Path is clean, relative and slash-separated inside data.tar; a
// hardlink's Link is the Path of an earlier entry of the same deb.
type Input struct {
	entry.Header
	Deb string // binary package (or deb file) it comes from
	// Digest identifies the content of a regular file (e.g. its sha256);
	// two files at the same output path conflict when digests differ.
	Digest string
	// Ref is the caller's handle on the content, carried to the output.
	Ref string
}

// Node is one entry of a redist tree: a symlink's Link is relative, a
// hardlink's a tree path.
type Node struct {
	entry.Header
	Digest  string
	Ref     string // content handle of a file from a deb
	Data    []byte // inline content of a generated file (LICENSE)
	Origins []fault.DebPath
}

// Dropped is an input left out on purpose by a drop rule.
type Dropped struct {
	fault.DebPath
	Reason string `json:"reason"`
}

// Tree is the normalized content of one redist package.
type Tree struct {
	PName   string
	Nodes   []Node // sorted by Path
	Dropped []Dropped
	// Changes says, one line per affected entry, where the tree differs
	// from a plain copy of the debs beyond placement: absolute links
	// re-rooted, /etc/alternatives links resolved or dropped, links merged
	// into the file they resolve to, deb license files merged into LICENSE.
	Changes []string
	// ProfileRules are the match patterns of the profile's own path rules
	// (not the built-in defaults') that placed or dropped an entry other
	// than a directory, sorted: a rule that no package uses does nothing.
	ProfileRules []string
}

// ContentReader returns the content of a file input by its Ref; the engine
// uses it only for the small license files it merges into LICENSE.
type ContentReader func(ref string) ([]byte, error)

// MaxLicenseBytes bounds one copyright/EULA file read into LICENSE.
const MaxLicenseBytes = 4 << 20

// Engine applies one profile's rules.
type Engine struct {
	rules []rule
	links []linkRule
}

// New compiles the profile's path and link rules (profile first, then the
// built-in defaults). The profile must be resolved (CUDA set).
func New(p profile.Profile) (*Engine, error) {
	if p.CUDA == "" {
		return nil, fmt.Errorf("layout: profile %s has no CUDA version", p.Name)
	}
	m := p.Merged()
	rs, err := compileRules(p, m.Paths)
	if err != nil {
		return nil, err
	}
	ls, err := compileLinks(m.Links)
	if err != nil {
		return nil, err
	}
	return &Engine{rules: rs, links: ls}, nil
}

type placed struct {
	in   Input
	dest string
}

// Build normalizes the inputs of one redist package into a tree.
func (e *Engine) Build(pname string, inputs []Input, read ContentReader) (*Tree, error) {
	t := &Tree{PName: pname}
	inputs = followDirSymlinks(inputs)

	var unplaced []fault.DebPath
	var licenses []Input
	var places []placed
	debToTree := map[string]string{} // deb path -> tree path, for link targets
	var alternatives []Input
	for _, in := range inputs {
		if isAlternative(in) {
			alternatives = append(alternatives, in)
			continue
		}
		r, dest, whole, ok := e.place(pname, in.Type, in.Path)
		if ok && r.own && in.Type != entry.Dir && !slices.Contains(t.ProfileRules, r.src.Match) {
			t.ProfileRules = append(t.ProfileRules, r.src.Match)
		}
		switch {
		case ok && whole && in.Type == entry.Symlink && r.src.To != nil:
			// A link standing for a directory the layout flattens
			// (lib/tegra -> nvidia): its content lands in place anyway.
			t.Dropped = append(
				t.Dropped,
				Dropped{fault.DebPath{Deb: in.Deb, Path: in.Path}, "symlink to a directory the layout flattens"},
			)
			continue
		case !ok:
			if in.Type != entry.Dir { // structural directories (usr/, usr/local/) carry nothing
				unplaced = append(unplaced, fault.DebPath{Deb: in.Deb, Path: in.Path})
			}
		case r.src.Drop != "":
			if in.Type != entry.Dir {
				t.Dropped = append(t.Dropped, Dropped{fault.DebPath{Deb: in.Deb, Path: in.Path}, r.src.Drop})
			}
		case r.src.License:
			if in.Type == entry.Regular || in.Type == entry.Hardlink {
				licenses = append(licenses, in)
			}
		case dest == "LICENSE" && (in.Type == entry.Regular || in.Type == entry.Hardlink):
			// A deb's own license file landing on the merged LICENSE.
			licenses = append(licenses, in)
			t.Changes = append(t.Changes, fmt.Sprintf("%s:%s: license file merged into LICENSE", in.Deb, in.Path))
		default:
			if dest == "" {
				if in.Type == entry.Dir {
					continue
				}
				unplaced = append(unplaced, fault.DebPath{Deb: in.Deb, Path: in.Path})
				continue
			}
			places = append(places, placed{in, dest})
			debToTree[in.Path] = dest
		}
	}
	if len(unplaced) > 0 {
		return nil, &fault.UnplacedError{PName: pname, Paths: unplaced}
	}
	if err := hardlinkRefs(pname, inputs, licenses); err != nil {
		return nil, err
	}

	nodes := map[string]*Node{}
	for _, p := range places {
		n := Node{
			Header:  entry.Header{Path: p.dest, Type: p.in.Type, Mode: p.in.Mode, Size: p.in.Size},
			Digest:  p.in.Digest,
			Ref:     p.in.Ref,
			Origins: []fault.DebPath{{Deb: p.in.Deb, Path: p.in.Path}},
		}
		switch p.in.Type {
		case entry.Symlink:
			target, err := e.relink(pname, p, debToTree)
			if err != nil {
				return nil, err
			}
			n.Link = target
			if strings.HasPrefix(p.in.Link, "/") {
				t.Changes = append(
					t.Changes,
					fmt.Sprintf("%s:%s: absolute link to %s re-rooted as %s", p.in.Deb, p.in.Path, p.in.Link, target),
				)
			}
		case entry.Hardlink:
			dst, ok := debToTree[path.Clean(p.in.Link)]
			if !ok {
				return nil, &fault.LinkError{
					PName:  pname,
					Link:   fault.DebPath{Deb: p.in.Deb, Path: p.in.Path},
					Target: p.in.Link,
					Reason: "hardlink target is not placed in the redist tree",
				}
			}
			n.Link = dst
		}
		merged, err := add(nodes, pname, n)
		if err != nil {
			return nil, err
		}
		if merged != "" {
			t.Changes = append(t.Changes, merged)
		}
	}
	if err := checkSelfLinks(pname, nodes); err != nil {
		return nil, err
	}
	if err := e.addLinks(pname, nodes); err != nil {
		return nil, err
	}
	for _, in := range alternatives {
		t.Changes = append(t.Changes, e.alternative(pname, in, nodes))
	}
	if len(licenses) > 0 {
		text, origins, err := mergeLicenses(licenses, read)
		if err != nil {
			return nil, fmt.Errorf("redist package %s: %w", pname, err)
		}
		if _, err := add(nodes, pname, Node{
			Header:  entry.Header{Path: "LICENSE", Type: entry.Regular, Mode: 0o644, Size: int64(len(text))},
			Data:    text,
			Origins: origins,
		}); err != nil {
			return nil, err
		}
	}
	if err := checkParents(pname, nodes); err != nil {
		return nil, err
	}
	pruneEmptyDirs(nodes)
	for _, n := range nodes {
		t.Nodes = append(t.Nodes, *n)
	}
	sort.Slice(t.Nodes, func(i, j int) bool { return t.Nodes[i].Path < t.Nodes[j].Path })
	sort.Strings(t.Changes)
	sort.Strings(t.ProfileRules)
	return t, nil
}

// isAlternative reports a symlink into /etc/alternatives (update-
// alternatives' indirection, which has no place in a redist tree).
func isAlternative(in Input) bool {
	if in.Type != entry.Symlink {
		return false
	}
	t, ok := resolveDeb(in.Path, in.Link)
	return ok && strings.HasPrefix(t, "etc/alternatives/")
}

// alternative says what became of a link into /etc/alternatives: the
// profile's link rules made the same tree path (the alternative resolved
// by rule), or nothing did and the link is dropped. Never an error.
func (e *Engine) alternative(pname string, in Input, nodes map[string]*Node) string {
	if r, dest, _, ok := e.place(pname, entry.Symlink, in.Path); ok && r.src.Drop == "" && !r.src.License && dest != "" {
		if n, ok := nodes[dest]; ok {
			n.Origins = append(n.Origins, fault.DebPath{Deb: in.Deb, Path: in.Path})
			return fmt.Sprintf(
				"%s:%s: link to %s resolved by the profile's link rules as %s -> %s",
				in.Deb,
				in.Path,
				in.Link,
				dest,
				n.Link,
			)
		}
	}
	return fmt.Sprintf(
		"warning: %s:%s: link to %s dropped: no link rule of the profile gives its target",
		in.Deb,
		in.Path,
		in.Link,
	)
}

// selfLink reports a symlink that, after flattening, points at its own
// path (extras/CUPTI/lib64/x -> ../../../targets/.../lib/x: both are lib/x).
func selfLink(n *Node) bool {
	return n.Type == entry.Symlink && path.Join(path.Dir(n.Path), n.Link) == n.Path
}

// checkSelfLinks refuses a link left pointing at itself (its target was
// not shipped, so nothing merged it away).
func checkSelfLinks(pname string, nodes map[string]*Node) error {
	for _, n := range nodes {
		if selfLink(n) {
			return &fault.LinkError{
				PName:  pname,
				Link:   n.Origins[0],
				Target: n.Link,
				Reason: "link resolves to itself in the redist tree",
			}
		}
	}
	return nil
}

// place finds the first rule for a path.
func (e *Engine) place(pname string, ty entry.Type, p string) (*rule, string, bool, bool) {
	for i := range e.rules {
		if dest, whole, ok := e.rules[i].match(pname, ty, p); ok {
			return &e.rules[i], dest, whole, true
		}
	}
	return nil, "", false, false
}

// relink re-points a symlink at its target's place in the tree, relative
// to the link's own new location.
func (e *Engine) relink(pname string, p placed, debToTree map[string]string) (string, error) {
	origin := fault.DebPath{Deb: p.in.Deb, Path: p.in.Path}
	target, ok := resolveDeb(p.in.Path, p.in.Link)
	if !ok {
		return "", &fault.LinkError{
			PName:  pname,
			Link:   origin,
			Target: p.in.Link,
			Reason: "points outside the package's filesystem",
		}
	}
	dest, ok := debToTree[target]
	if !ok {
		// A target no deb of this package ships (dangling, as in the deb):
		// place it by the rules as if it were a file.
		r, d, _, found := e.place(pname, entry.Regular, target)
		if !found || r.src.Drop != "" || r.src.License || d == "" {
			return "", &fault.LinkError{
				PName:  pname,
				Link:   origin,
				Target: p.in.Link,
				Reason: "target has no place in the redist tree",
			}
		}
		dest = d
	}
	rel := safepath.Rel(path.Dir(p.dest), dest)
	return rel, nil
}

// resolveDeb turns a symlink target into a clean deb path.
func resolveDeb(linkPath, target string) (string, bool) {
	if target == "" || strings.ContainsRune(target, 0) {
		return "", false
	}
	p, ok := safepath.Join(linkPath, target)
	if !ok || p == "." {
		return "", false
	}
	return p, true
}

// add puts n in the tree. A node already at its path merges with it when
// both are the same, and a link that resolves to its own path after
// flattening merges into the file there (reported in the returned change
// line); anything else is a *ConflictError.
func add(nodes map[string]*Node, pname string, n Node) (string, error) {
	old, ok := nodes[n.Path]
	if !ok {
		nodes[n.Path] = &n
		return "", nil
	}
	if old.Type != n.Type && (selfLink(old) || selfLink(&n)) {
		link, file := old, &n
		if selfLink(&n) {
			link, file = &n, old
		}
		file.Origins = append(file.Origins, link.Origins...)
		nodes[n.Path] = file
		o := link.Origins[0]
		return fmt.Sprintf(
			"%s:%s: link to %s merged into the %s it resolves to at %s",
			o.Deb,
			o.Path,
			link.Link,
			file.Type,
			n.Path,
		), nil
	}
	same := old.Type == n.Type
	reason := "different entry types"
	if same {
		switch n.Type {
		case entry.Regular:
			same, reason = old.Digest == n.Digest && old.Digest != "", "different content"
		case entry.Symlink, entry.Hardlink:
			same, reason = old.Link == n.Link, "different link targets"
		}
	}
	if !same {
		return "", &fault.ConflictError{PName: pname, Path: n.Path, A: old.Origins[0], B: n.Origins[0], Reason: reason}
	}
	old.Origins = append(old.Origins, n.Origins...)
	if n.Type == entry.Regular || n.Type == entry.Dir {
		old.Mode |= n.Mode & 0o111
	}
	return "", nil
}

// checkParents rejects a path whose parent is not a directory in the tree.
func checkParents(pname string, nodes map[string]*Node) error {
	for p, n := range nodes {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			parent, ok := nodes[d]
			if ok && parent.Type != entry.Dir {
				return &fault.ConflictError{
					PName:  pname,
					Path:   d,
					A:      parent.Origins[0],
					B:      n.Origins[0],
					Reason: "a " + parent.Type.String() + " where a directory is needed",
				}
			}
		}
	}
	return nil
}

// pruneEmptyDirs removes directories left empty by flattening (usr/share
// once its doc/ is dropped, targets/ once its content moved up).
func pruneEmptyDirs(nodes map[string]*Node) {
	used := map[string]bool{}
	for p, n := range nodes {
		if n.Type == entry.Dir {
			continue
		}
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			used[d] = true
		}
	}
	for p, n := range nodes {
		if n.Type == entry.Dir && !used[p] {
			delete(nodes, p)
		}
	}
}

// addLinks applies the link rules (update-alternatives style), in order,
// each seeing the links the previous ones made.
func (e *Engine) addLinks(pname string, nodes map[string]*Node) error {
	for _, lr := range e.links {
		if len(lr.packages) > 0 && !contains(lr.packages, pname) {
			continue
		}
		paths := make([]string, 0, len(nodes))
		for p := range nodes {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			n := nodes[p]
			if n.Type == entry.Dir || !lr.re.MatchString(p) {
				continue
			}
			name := path.Clean(lr.re.ReplaceAllString(p, lr.name))
			if name == p || name == "." || strings.HasPrefix(name, "../") {
				continue
			}
			if _, exists := nodes[name]; exists {
				continue
			}
			nodes[name] = &Node{
				Header:  entry.Header{Path: name, Type: entry.Symlink, Mode: 0o777, Link: safepath.Rel(path.Dir(name), p)},
				Origins: []fault.DebPath{{Deb: "update-alternatives", Path: lr.re.String()}},
			}
		}
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// mergeLicenses builds the root LICENSE from copyright and EULA files:
// each distinct text once, headed by the debs that ship it.
func mergeLicenses(ins []Input, read ContentReader) ([]byte, []fault.DebPath, error) {
	if read == nil {
		return nil, nil, fmt.Errorf("license files present but no content reader given")
	}
	type text struct {
		body  []byte
		debs  []string
		eula  bool
		order string
	}
	byBody := map[string]*text{}
	var origins []fault.DebPath
	for _, in := range ins {
		if in.Size > MaxLicenseBytes {
			return nil, nil, fmt.Errorf("%s: %s: license file of %d bytes exceeds %d", in.Deb, in.Path, in.Size, MaxLicenseBytes)
		}
		b, err := read(in.Ref)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %w", in.Deb, in.Path, err)
		}
		b = bytes.TrimRight(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), "\n ")
		origins = append(origins, fault.DebPath{Deb: in.Deb, Path: in.Path})
		k := string(b)
		tx := byBody[k]
		if tx == nil {
			tx = &text{body: b, eula: strings.HasSuffix(in.Path, "EULA.txt")}
			byBody[k] = tx
		}
		if !contains(tx.debs, in.Deb) {
			tx.debs = append(tx.debs, in.Deb)
		}
	}
	var texts []*text
	for _, tx := range byBody {
		sort.Strings(tx.debs)
		tx.order = tx.debs[0]
		if tx.eula {
			tx.order = "\x00" + tx.order
		}
		texts = append(texts, tx)
	}
	sort.Slice(texts, func(i, j int) bool {
		if texts[i].order != texts[j].order {
			return texts[i].order < texts[j].order
		}
		return string(texts[i].body) < string(texts[j].body)
	})
	var buf bytes.Buffer
	for i, tx := range texts {
		if i > 0 {
			buf.WriteString("\n\n")
		}
		kind := "Copyright and license of"
		if tx.eula {
			kind = "End User License Agreement shipped in"
		}
		fmt.Fprintf(&buf, "==> %s %s <==\n\n", kind, strings.Join(tx.debs, ", "))
		buf.Write(tx.body)
		buf.WriteString("\n")
	}
	sort.Slice(origins, func(i, j int) bool {
		if origins[i].Deb != origins[j].Deb {
			return origins[i].Deb < origins[j].Deb
		}
		return origins[i].Path < origins[j].Path
	})
	return buf.Bytes(), origins, nil
}

// hardlinkRefs gives license files that arrive as hardlinks the content
// of the file they link to (in the same deb).
func hardlinkRefs(pname string, inputs, licenses []Input) error {
	var refs map[fault.DebPath]Input
	for i, l := range licenses {
		if l.Type != entry.Hardlink {
			continue
		}
		if refs == nil {
			refs = map[fault.DebPath]Input{}
			for _, in := range inputs {
				if in.Type == entry.Regular {
					refs[fault.DebPath{Deb: in.Deb, Path: in.Path}] = in
				}
			}
		}
		t, ok := refs[fault.DebPath{Deb: l.Deb, Path: path.Clean(l.Link)}]
		if !ok {
			return &fault.LinkError{
				PName:  pname,
				Link:   fault.DebPath{Deb: l.Deb, Path: l.Path},
				Target: l.Link,
				Reason: "hardlink target is not a file of the same deb",
			}
		}
		licenses[i].Ref, licenses[i].Size, licenses[i].Type = t.Ref, t.Size, entry.Regular
	}
	return nil
}

// followDirSymlinks applies dpkg's rule for a directory in one deb where
// another ships a symlink: the symlink wins and the directory's content is
// placed under the symlink's target.
func followDirSymlinks(inputs []Input) []Input {
	links := map[string]string{}
	for _, in := range inputs {
		if in.Type == entry.Symlink {
			if t, ok := resolveDeb(in.Path, in.Link); ok {
				links[in.Path] = t
			}
		}
	}
	if len(links) == 0 {
		return inputs
	}
	out := make([]Input, 0, len(inputs))
	for _, in := range inputs {
		if in.Type == entry.Dir {
			if _, isLink := links[in.Path]; isLink {
				continue // the symlink wins
			}
		}
		in.Path = followLinks(in.Path, links)
		if in.Type == entry.Hardlink {
			in.Link = followLinks(path.Clean(in.Link), links)
		}
		out = append(out, in)
	}
	return out
}

// followLinks rewrites p through symlinked directories, bounded against
// chains and loops.
func followLinks(p string, links map[string]string) string {
	for range 16 {
		np := throughLinks(p, links)
		if np == p {
			break
		}
		p = np
	}
	return p
}

// throughLinks rewrites the first proper prefix of p that is a symlink.
func throughLinks(p string, links map[string]string) string {
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		if t, ok := links[p[:i]]; ok {
			return t + p[i:]
		}
	}
	return p
}
