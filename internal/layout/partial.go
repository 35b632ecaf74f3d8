package layout

import (
	"errors"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
)

// BuildPartial lays out like Build but does not stop at paths no rule
// places: it returns them beside the tree of the other inputs, so that a
// release comparison can report both. Other errors are Build's.
func (e *Engine) BuildPartial(pname string, inputs []Input, read ContentReader) (*Tree, []fault.DebPath, error) {
	tree, err := e.Build(pname, inputs, read)
	var ue *fault.UnplacedError
	if !errors.As(err, &ue) {
		return tree, nil, err
	}
	skip := make(map[fault.DebPath]bool, len(ue.Paths))
	for _, p := range ue.Paths {
		skip[p] = true
	}
	var rest []Input
	for _, in := range inputs {
		if !skip[fault.DebPath{Deb: in.Deb, Path: in.Path}] {
			rest = append(rest, in)
		}
	}
	tree, err = e.Build(pname, rest, read)
	return tree, ue.Paths, err
}

// Headers returns the tree's entries as entry headers, in path order; nil
// for a nil tree.
func (t *Tree) Headers() []entry.Header {
	if t == nil {
		return nil
	}
	h := make([]entry.Header, len(t.Nodes))
	for i, n := range t.Nodes {
		h[i] = n.Header
	}
	return h
}
