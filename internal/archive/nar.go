package archive

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"hash"
	"io"
	"path"
	"strings"
)

// narWriter streams the NAR (Nix ARchive) serialisation of a directory tree
// into a hash. Entries must arrive in canonical order (see compareNames), the
// order Nix itself uses (directory entries sorted by name bytes, depth
// first); missing parent directories are opened implicitly.
type narWriter struct {
	h     hash.Hash
	stack []string // open directories, relative names; stack[0] == "" is the root
	buf   [8]byte
	left  int64 // content bytes still expected for the open regular file
	size  int64 // size of the open regular file
}

func newNARWriter() *narWriter {
	n := &narWriter{h: sha256.New(), stack: []string{""}}
	n.str("nix-archive-1")
	n.str("(")
	n.str("type")
	n.str("directory")
	return n
}

func (n *narWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(n.buf[:], v)
	n.h.Write(n.buf[:])
}

func (n *narWriter) pad(size int64) {
	if r := size % 8; r != 0 {
		var zero [8]byte
		n.h.Write(zero[:8-r])
	}
}

func (n *narWriter) str(s string) {
	n.u64(uint64(len(s)))
	_, _ = io.WriteString(n.h, s) // a hash.Hash never fails
	n.pad(int64(len(s)))
}

// open positions the writer inside name's parent directory and starts the
// entry for name, up to and including the node's "type" tag.
func (n *narWriter) open(name string) {
	parent := path.Dir(name)
	if parent == "." {
		parent = ""
	}
	for !isAncestorOrSelf(n.stack[len(n.stack)-1], parent) {
		n.closeDir()
	}
	for top := n.stack[len(n.stack)-1]; top != parent; top = n.stack[len(n.stack)-1] {
		rest := strings.TrimPrefix(parent, top)
		rest = strings.TrimPrefix(rest, "/")
		first, _, _ := strings.Cut(rest, "/")
		next := first
		if top != "" {
			next = top + "/" + first
		}
		n.entry(first)
		n.str("directory")
		n.stack = append(n.stack, next)
	}
	n.entry(path.Base(name))
}

func (n *narWriter) entry(base string) {
	n.str("entry")
	n.str("(")
	n.str("name")
	n.str(base)
	n.str("node")
	n.str("(")
	n.str("type")
}

func (n *narWriter) closeDir() {
	n.str(")") // node
	n.str(")") // entry
	n.stack = n.stack[:len(n.stack)-1]
}

func (n *narWriter) dir(name string) {
	n.open(name)
	n.str("directory")
	n.stack = append(n.stack, name)
}

func (n *narWriter) symlink(name, target string) {
	n.open(name)
	n.str("symlink")
	n.str("target")
	n.str(target)
	n.str(")")
	n.str(")")
}

// beginFile starts a regular file; exactly size bytes must then be written
// with Write before endFile.
func (n *narWriter) beginFile(name string, executable bool, size int64) {
	n.open(name)
	n.str("regular")
	if executable {
		n.str("executable")
		n.str("")
	}
	n.str("contents")
	n.u64(uint64(size))
	n.size, n.left = size, size
}

func (n *narWriter) Write(p []byte) (int, error) {
	n.left -= int64(len(p))
	return n.h.Write(p)
}

func (n *narWriter) endFile() {
	n.pad(n.size)
	n.str(")")
	n.str(")")
}

// sum closes all open directories and returns the SRI hash.
func (n *narWriter) sum() string {
	for len(n.stack) > 1 {
		n.closeDir()
	}
	n.str(")")
	n.stack = n.stack[:0]
	return "sha256-" + base64.StdEncoding.EncodeToString(n.h.Sum(nil))
}

func isAncestorOrSelf(a, b string) bool {
	return a == "" || a == b || (strings.HasPrefix(b, a) && b[len(a)] == '/')
}

// compareNames orders slash-separated relative names the way tar --sort=name
// walks a tree and the way NAR lists directories: component by component,
// each component compared by bytes, so a directory directly precedes its
// contents ("a", "a/b", "a-b").
func compareNames(a, b string) int {
	for {
		ca, ra, okA := strings.Cut(a, "/")
		cb, rb, okB := strings.Cut(b, "/")
		if c := strings.Compare(ca, cb); c != 0 {
			return c
		}
		switch {
		case !okA && !okB:
			return 0
		case !okA:
			return -1
		case !okB:
			return 1
		}
		a, b = ra, rb
	}
}
