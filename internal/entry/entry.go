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

func (t Type) String() string {
	switch t {
	case Regular:
		return "file"
	case Dir:
		return "dir"
	case Symlink:
		return "symlink"
	case Hardlink:
		return "hardlink"
	}
	return "entry.Type(" + strconv.Itoa(int(t)) + ")"
}
