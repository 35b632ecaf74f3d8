package layout

import "github.com/debredist/debredist/debredist/entry"

// Payload reports whether an input of package pname carries content into
// the redist tree: it is not a directory, not dropped by a rule and not a
// license file merged into LICENSE. Inputs no rule places count as payload
// (Build reports them).
func (e *Engine) Payload(pname string, in Input) bool {
	if in.Type == entry.Dir {
		return false
	}
	r, _, whole, ok := e.place(pname, in.Type, in.Path)
	switch {
	case !ok:
		return true
	case r.src.Drop != "" || r.src.License:
		return false
	case whole && in.Type == entry.Symlink && r.src.To != nil:
		return false // a link standing for a directory the layout flattens
	}
	return true
}
