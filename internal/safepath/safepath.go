// Package safepath is the one home of the path-safety rules shared by the
// deb reader and extractor, the layout engine and the archive writer and
// inspector: resolving a symlink target inside a root (through the other
// symlinks of the tree, never leaving the root, never through an absolute
// link, at most MaxHops links), building relative link targets, and the
// rules every entry name meets (CheckName, CheckComponents).
//
// All paths are slash-separated and relative to the root ("." or "" is the
// root itself); a symlink target is the raw link text.
package safepath

import (
	"errors"
	"path"
	"strconv"
	"strings"
)

// MaxHops bounds symlink resolution like the kernel's ELOOP limit.
const MaxHops = 40

// Sentinel reasons carried by the errors of Resolve (use errors.Is).
var (
	ErrEmpty    = errors.New("empty")
	ErrNUL      = errors.New("contains a NUL byte")
	ErrAbsolute = errors.New("absolute: points outside the root")
	ErrEscapes  = errors.New("leaves the root")
	ErrLoop     = errors.New("too many levels of symbolic links")
)

// Error is a failed resolution: Target is the link text being resolved, Via
// the symlink (a root-relative path) whose own target failed, if any.
type Error struct {
	Target string
	Via    string
	Err    error // one of the sentinels above
}

func (e *Error) Error() string {
	s := "symlink target " + strconv.Quote(e.Target)
	if e.Via != "" {
		s += " through symlink " + strconv.Quote(e.Via)
	}
	return s + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// split returns the components of a root-relative directory.
func split(dir string) []string {
	if dir == "" || dir == "." {
		return nil
	}
	return strings.Split(dir, "/")
}

// Resolve walks the symlink target from dir (the link's directory) and
// fails unless every step stays inside the root. link reports the target of
// the symlink at a root-relative path (ok false: not a symlink, including
// paths not in the tree); each symlink met on the way is followed, so a
// lexical check that misses "s/.." with s -> "." is not enough. The target
// must be non-empty, free of NUL bytes and relative, and so must every
// symlink followed.
func Resolve(dir, target string, link func(p string) (target string, ok bool)) error {
	_, err := ResolvePath(dir, target, link)
	return err
}

// ResolvePath is Resolve that also returns the root-relative path the
// target resolves to ("" for the root itself), every symlink on the way
// followed.
func ResolvePath(dir, target string, link func(p string) (target string, ok bool)) (string, error) {
	switch {
	case target == "":
		return "", &Error{Target: target, Err: ErrEmpty}
	case strings.IndexByte(target, 0) >= 0:
		return "", &Error{Target: target, Err: ErrNUL}
	case strings.HasPrefix(target, "/"):
		return "", &Error{Target: target, Err: ErrAbsolute}
	}
	cur := split(dir)
	rest := strings.Split(target, "/")
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return "", &Error{Target: target, Err: ErrEscapes}
			}
			cur = cur[:len(cur)-1]
			continue
		}
		cur = append(cur, c)
		if link == nil {
			continue
		}
		p := strings.Join(cur, "/")
		t, ok := link(p)
		if !ok {
			continue
		}
		if hops++; hops > MaxHops {
			return "", &Error{Target: target, Err: ErrLoop}
		}
		switch {
		case t == "":
			return "", &Error{Target: target, Via: p, Err: ErrEmpty}
		case strings.IndexByte(t, 0) >= 0:
			return "", &Error{Target: target, Via: p, Err: ErrNUL}
		case strings.HasPrefix(t, "/"):
			return "", &Error{Target: target, Via: p, Err: ErrAbsolute}
		}
		cur = cur[:len(cur)-1]
		rest = append(strings.Split(t, "/"), rest...)
	}
	return strings.Join(cur, "/"), nil
}

// RootRelative turns an absolute symlink target into one relative to the
// directory of the link name, reading the root as "/" (/usr/lib/x from
// usr/lib/y/z becomes ../x; a target naming an ancestor of the link's
// directory becomes "..", "." for the directory itself). Relative targets
// are returned as they are.
func RootRelative(name, target string) string {
	if !strings.HasPrefix(target, "/") {
		return target
	}
	var to []string
	if t := strings.TrimPrefix(path.Clean(target), "/"); t != "" {
		to = strings.Split(t, "/")
	}
	return rel(split(path.Dir(name)), to, len(to))
}

// Rel returns the link text that reaches the tree path target from the
// directory dir, always ending in target's last component (a link to
// "a/b" from "a/b/c" is "../../b", never ".."), so that the link names
// what it points at.
func Rel(dir, target string) string {
	to := strings.Split(target, "/")
	return rel(split(dir), to, len(to)-1)
}

// rel strips the common prefix of from and to (at most limit components of
// to) and climbs out of the rest of from.
func rel(from, to []string, limit int) string {
	i := 0
	for i < len(from) && i < limit && from[i] == to[i] {
		i++
	}
	parts := make([]string, 0, len(from)-i+len(to)-i)
	for range from[i:] {
		parts = append(parts, "..")
	}
	parts = append(parts, to[i:]...)
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}

// Escapes reports whether the clean relative path p leaves the root ("..",
// "../x").
func Escapes(p string) bool { return p == ".." || strings.HasPrefix(p, "../") }

// Join resolves a symlink target lexically from the directory of the link
// at linkPath: an absolute target is read from the root ("/usr/x" is
// usr/x), a relative one from the link's directory. It returns the clean
// root-relative path ("." for the root) and false when a relative target
// leaves the root. Symlinks on the way are not followed (see Resolve).
func Join(linkPath, target string) (string, bool) {
	if strings.HasPrefix(target, "/") {
		if p := path.Clean(target)[1:]; p != "" {
			return p, true
		}
		return ".", true
	}
	p := path.Join(path.Dir(linkPath), target)
	return p, !Escapes(p)
}

// Name-check failures of CheckName.
var (
	ErrNameEmpty     = errors.New("empty name")
	ErrNameNUL       = errors.New("NUL byte in name")
	ErrNameAbsolute  = errors.New("absolute name")
	ErrNameComponent = errors.New(`empty, "." or ".." path component`)
	ErrNameTooLong   = errors.New("a path component longer than 255 bytes (NAME_MAX: no Linux file system holds it)")
)

// MaxComponent is the longest path component a name may hold, in bytes:
// NAME_MAX of ext4, xfs, btrfs and tmpfs. The deb reader (convert and
// extract alike) and the archive writer and inspector refuse longer ones,
// so that every archive can be unpacked.
const MaxComponent = 255

// CheckComponents reports ErrNameTooLong when a component of the
// slash-separated name is longer than MaxComponent bytes.
func CheckComponents(name string) error {
	for c := range strings.SplitSeq(name, "/") {
		if len(c) > MaxComponent {
			return ErrNameTooLong
		}
	}
	return nil
}

// CheckName accepts only a canonical root-relative name: non-empty, no NUL,
// not absolute, no empty, "." or ".." component (what path.Clean leaves
// alone and never escapes), no component longer than MaxComponent.
func CheckName(name string) error {
	switch {
	case name == "":
		return ErrNameEmpty
	case strings.IndexByte(name, 0) >= 0:
		return ErrNameNUL
	case strings.HasPrefix(name, "/"):
		return ErrNameAbsolute
	}
	for c := range strings.SplitSeq(name, "/") {
		if c == "" || c == "." || c == ".." {
			return ErrNameComponent
		}
	}
	return CheckComponents(name)
}
