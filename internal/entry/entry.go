// Package entry is the one list of the kinds of filesystem entry that flow
// through the pipeline: a deb's data.tar entry, a redist tree's node, an
// archive entry and the nixpkgs check's view of an output all use Type.
// Devices, FIFOs and sockets are not a Type: the deb reader refuses them and
// nothing downstream can name one.
package entry

import "strconv"

// Type is the kind of an entry. The zero value is a regular file.
type Type uint8

const (
	Regular Type = iota
	Dir
	Symlink
	Hardlink
)

// names is the one vocabulary of entry types: String's words, and what
// Parse accepts (the layout rules of profiles use it).
var names = [...]string{Regular: "file", Dir: "dir", Symlink: "symlink", Hardlink: "hardlink"}

// Parse returns the Type named s ("file", "dir", "symlink", "hardlink").
func Parse(s string) (Type, bool) {
	for t, n := range names {
		if n == s {
			return Type(t), true
		}
	}
	return 0, false
}

func (t Type) String() string {
	if int(t) < len(names) {
		return names[t]
	}
	return "entry.Type(" + strconv.Itoa(int(t)) + ")"
}
