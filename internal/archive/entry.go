package archive

import (
	"errors"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/safepath"
)

// Entry is one file, directory or link to write below the archive's top
// directory.
//
// Its Path is relative to the top directory, slash-separated, without "./"
// or trailing "/". Of Mode only the 0111 bits matter for regular files (any
// set -> 0755, else 0644); directories are 0755, symlinks 0777; setuid,
// setgid and sticky bits are dropped. Size is the exact content length of
// a regular file. Link is a symlink's target (kept as is, must stay inside
// the top directory) or a hardlink's target (the Path of an entry that
// sorts before it).
type Entry struct {
	entry.Header
	// Open returns a regular file's content. Write calls it once per file in
	// write order, and once more per hardlink to the file (the NAR
	// serialisation repeats hardlinked content).
	Open func() (io.ReadCloser, error)
}

// Options controls Write. The zero value writes xz with the default preset
// on all cores, mtime 1970-01-01, but Top must be set.
type Options struct {
	// Top is the single top-level directory (the archive file name without
	// its extension).
	Top string
	// MTime is every entry's mtime, truncated to seconds; the zero value
	// means the Unix epoch.
	MTime       time.Time
	Compression Compression
	// Workers is the number of parallel compression workers; 0 means
	// runtime.GOMAXPROCS(0). The output is identical for any value.
	Workers int
	// Budget, when set, is shared by Writes running at the same time and
	// bounds their blocks in flight together (see Budget).
	Budget *Budget
	// Preset selects the compression strength, 1..Compression.MaxPreset()
	// (fastest to smallest); 0 means Compression.DefaultPreset(). XZ: the
	// internal/lzma levels (lzma.Level), all with an 8 MiB dictionary.
	// Zstd: klauspost levels fastest, default, better, best.
	Preset int

	// blockSize overrides BlockSize (0: BlockSize). Tests only: it lets
	// multi-block tests run on small inputs; production output always
	// uses BlockSize.
	blockSize int
}

// Result describes a written archive.
type Result struct {
	Size   int64  // compressed bytes written
	SHA256 string // hex sha256 of the compressed bytes
	MD5    string // hex md5 of the compressed bytes
	NAR    string // SRI "sha256-<base64>" of the NAR serialisation of the top dir
	Files  int    // non-directory entries (regular files, symlinks, hardlinks)
}

// Sentinel reasons carried by *EntryError (use errors.Is).
var (
	ErrUnsafeName = errors.New("unsafe name")
	ErrDuplicate  = errors.New("duplicate entry")
	ErrNotDir     = errors.New("parent is not a directory")
	ErrHardlink   = errors.New("invalid hardlink")
	ErrSymlink    = errors.New("symlink escapes the top directory")
	ErrSize       = errors.New("content size mismatch")
	ErrType       = errors.New("unsupported entry type")
	ErrTopDir     = errors.New("not exactly one top-level directory")
	ErrFormat     = errors.New("unrecognised archive format")
	ErrLimit      = errors.New("archive limit exceeded")
)

// EntryError reports a problem with one named archive entry.
type EntryError struct {
	Name string // entry name as given (Write) or as stored in the tar (Inspect)
	Err  error  // wraps one of the Err* sentinels, possibly with detail
}

func (e *EntryError) Error() string {
	return "archive: entry " + strconv.Quote(e.Name) + ": " + e.Err.Error()
}

func (e *EntryError) Unwrap() error { return e.Err }

// checkName validates a slash-separated relative name.
func checkName(name string) error { return safepath.CheckName(name) }

// checkTop validates the top directory name: a single safe component.
func checkTop(top string) error {
	if err := checkName(top); err != nil {
		return err
	}
	if strings.Contains(top, "/") {
		return errors.New("top directory must be a single component")
	}
	return nil
}

// linkNode is the part of an entry symlink resolution needs.
type linkNode struct {
	typ    entry.Type
	target string
}

// checkSymlinkTarget reports whether the symlink name -> target, resolved
// inside a tree whose nodes are known, stays inside the top directory,
// following other symlinks on the way (see safepath.Resolve).
func checkSymlinkTarget(name, target string, nodes map[string]linkNode) error {
	return safepath.Resolve(path.Dir(name), target, func(p string) (string, bool) {
		n, ok := nodes[p]
		return n.target, ok && n.typ == entry.Symlink
	})
}
