// Package entry is the one model of a filesystem entry that flows through
// the pipeline: a deb's data.tar entry, a node of a redist package's tree,
// an archive entry, the nixpkgs check's and the release comparison's view of
// an output are each a Header, embedded by the stage's own type where it
// carries more. Devices, FIFOs and sockets are not a Type: FromTar refuses
// them (and GNU sparse files) and nothing downstream can name one.
package entry

import (
	"archive/tar"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// Type is the kind of an entry. The zero value is a regular file.
type Type uint8

const (
	Regular Type = iota
	Dir
	Symlink
	Hardlink
)

// names is the one vocabulary of entry types: String's words, what Parse
// accepts (the layout rules of profiles use it) and the JSON form.
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

// MarshalText writes the type's name, so JSON says "symlink".
func (t Type) MarshalText() ([]byte, error) {
	if int(t) >= len(names) {
		return nil, fmt.Errorf("entry: no type %d", t)
	}
	return []byte(names[t]), nil
}

// UnmarshalText reads a name Parse accepts.
func (t *Type) UnmarshalText(b []byte) error {
	v, ok := Parse(string(b))
	if !ok {
		return fmt.Errorf("entry: unknown type %q (want file, dir, symlink or hardlink)", b)
	}
	*t = v
	return nil
}

// Header is one entry: what every stage knows of it.
type Header struct {
	// Path is slash-separated and relative to the stage's root (a deb's
	// data.tar, a package's tree, an archive's top directory).
	Path string `json:"path"`
	Type Type   `json:"type"`
	// Mode is the permission bits plus [fs.ModeSetuid], [fs.ModeSetgid] and
	// [fs.ModeSticky] where the stage keeps them; no type bits.
	Mode fs.FileMode `json:"mode"`
	Size int64       `json:"size"` // content length of a regular file; 0 otherwise
	// Link is a symlink's target as written, or a hardlink's target: the
	// Path of an earlier entry.
	Link string `json:"link,omitempty"`
}

// ErrDevice is a device or FIFO entry; ErrUnsupported any other tar entry
// type that is not a Type; ErrSparse, which wraps ErrUnsupported, a GNU
// sparse file. FromTar's errors wrap one of them.
var (
	ErrDevice      = errors.New("device or fifo entry")
	ErrUnsupported = errors.New("unsupported entry type")
	ErrSparse      = fmt.Errorf("%w: sparse file", ErrUnsupported)
)

// typeRegA is tar.TypeRegA, deprecated: archive/tar's Reader reports it as
// TypeReg, but a Header made otherwise (the zero Typeflag) may still carry it.
const typeRegA = '\x00'

// FromTar returns the Header of a tar entry, Path and Link as the tar
// stores them (each stage cleans and checks names its own way). A
// device, FIFO or other entry type that is not a Type is an error
// wrapping ErrDevice or ErrUnsupported that names the tar type flag.
//
// A GNU sparse file (type 'S', or PAX GNU.sparse.* records, which
// archive/tar returns as a regular file) is an error wrapping ErrSparse:
// archive/tar reads its holes as zeros without reading the stream, so a
// few KB of tar could read as terabytes above every byte count.
func FromTar(h *tar.Header) (Header, error) {
	hd := Header{Path: h.Name, Mode: h.FileInfo().Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)}
	if h.Typeflag == tar.TypeGNUSparse {
		return hd, fmt.Errorf("%w (tar type %q)", ErrSparse, h.Typeflag)
	}
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return hd, fmt.Errorf("%w (GNU.sparse PAX records)", ErrSparse)
		}
	}
	switch h.Typeflag {
	case tar.TypeReg, typeRegA:
		hd.Type, hd.Size = Regular, h.Size
	case tar.TypeDir:
		hd.Type = Dir
	case tar.TypeSymlink:
		hd.Type, hd.Link = Symlink, h.Linkname
	case tar.TypeLink:
		hd.Type, hd.Link = Hardlink, h.Linkname
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		return hd, fmt.Errorf("%w: tar type %q", ErrDevice, h.Typeflag)
	default:
		return hd, fmt.Errorf("%w: tar type %q", ErrUnsupported, h.Typeflag)
	}
	return hd, nil
}
