package deb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"syscall"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/safepath"
)

// Extract writes a deb's data safely into dir. It refuses an existing
// non-empty dir unless force (which then replaces it). Absolute symlink
// targets are read with dir as the root the deb installs to and written as
// relative links; symlinks may only point inside dir (checked against the
// final tree, so chains of links cannot escape either); it never follows a symlink when writing. It writes
// to a temporary directory beside dir and renames it into place, so a
// failure leaves nothing half-written. Permission bits are kept; setuid,
// setgid and sticky bits, owners and mtimes are not; nor is write
// permission for others (each change is passed to opts.Warn).
func Extract(ctx context.Context, debPath, dir string, force bool, opts Options) (err error) {
	if opts.Name == "" {
		opts.Name = debPath
	}
	fail := func(kind fault.DebKind, entry string, err error) error {
		return &fault.DebError{Deb: opts.Name, Entry: entry, Kind: kind, Err: err}
	}
	dir = filepath.Clean(dir)
	exists := false
	if st, err := os.Lstat(dir); err == nil {
		exists = true
		if !force {
			if !st.IsDir() {
				return fail(fault.DebExists, "", fmt.Errorf("destination %s exists and is not a directory", dir))
			}
			empty, err := isEmptyDir(dir)
			if err != nil {
				return fail(fault.DebIO, "", err)
			}
			if !empty {
				return fail(fault.DebExists, "", fault.Errorf("destination %s is not empty (%s replaces it)", dir, fault.RefForce))
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fail(fault.DebIO, "", fmt.Errorf("destination: %w", err))
	}

	f, err := files.OpenRegular(debPath) // a named pipe or device is refused, never waited on
	if err != nil {
		return fail(fault.DebIO, "", err)
	}
	defer f.Close()
	rd, err := NewReader(ctx, f, opts)
	if err != nil {
		return err
	}
	defer func() { _ = rd.Close() }()

	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".extract-")
	if err != nil {
		return fail(fault.DebIO, "", fmt.Errorf("create temporary directory: %w", err))
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(tmp)
		}
	}()
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return fail(fault.DebIO, "", err)
	}
	x := &extractor{
		rd:       rd,
		root:     root,
		deb:      opts.Name,
		warn:     opts.Warn,
		member:   rd.DataMember(),
		symlinks: map[string]string{},
		dirModes: map[string]fs.FileMode{},
	}
	err = x.run()
	if cerr := root.Close(); err == nil && cerr != nil {
		err = fail(fault.DebIO, "", cerr)
	}
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fail(fault.DebIO, "", err)
	}

	// Move into place.
	if !exists {
		if err := os.Rename(tmp, dir); err != nil {
			return fail(fault.DebIO, "", fmt.Errorf("move into place: %w", err))
		}
		return nil
	}
	if !force {
		// An empty directory: remove it (fails if someone filled it
		// meanwhile) and move the new tree into its place.
		if err := os.Remove(dir); err != nil {
			return fail(fault.DebExists, "", fmt.Errorf("replace empty destination: %w", err))
		}
		if err := os.Rename(tmp, dir); err != nil {
			return fail(fault.DebExists, "", fmt.Errorf("move into place: %w", err))
		}
		return nil
	}
	old, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".old-")
	if err != nil {
		return fail(fault.DebIO, "", err)
	}
	oldPath := filepath.Join(old, "d")
	if err := os.Rename(dir, oldPath); err != nil {
		_ = os.Remove(old)
		return fail(fault.DebIO, "", fmt.Errorf("move old destination aside: %w", err))
	}
	if err := os.Rename(tmp, dir); err != nil {
		if rerr := os.Rename(oldPath, dir); rerr != nil {
			err = errors.Join(err, rerr)
		}
		_ = os.RemoveAll(old)
		return fail(fault.DebIO, "", fmt.Errorf("move into place: %w", err))
	}
	if err := os.RemoveAll(old); err != nil {
		return fail(fault.DebIO, "", fmt.Errorf("remove old destination: %w", err))
	}
	return nil
}

func isEmptyDir(dir string) (bool, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	if err == io.EOF {
		return true, nil
	}
	return false, err
}

type extractor struct {
	rd       *Reader
	root     *os.Root
	deb      string
	member   string
	symlinks map[string]string // created symlinks: name -> target
	dirModes map[string]fs.FileMode
	warn     func(string)
}

// changed reports an entry written differently from the deb.
func (x *extractor) changed(e *Entry, format string, args ...any) {
	if x.warn != nil {
		x.warn(fmt.Sprintf("deb %s: entry %s: ", x.deb, fault.QuoteName(e.Path)) + fmt.Sprintf(format, args...))
	}
}

func (x *extractor) fail(kind fault.DebKind, entry string, err error) error {
	return &fault.DebError{Deb: x.deb, Member: x.member, Entry: entry, Kind: kind, Err: err}
}

func (x *extractor) run() error {
	for {
		e, err := x.rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := x.entry(e); err != nil {
			return err
		}
	}
	// Every symlink must resolve inside the tree as finally built.
	names := make([]string, 0, len(x.symlinks))
	for n := range x.symlinks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := safepath.Resolve(path.Dir(n), x.symlinks[n], func(p string) (string, bool) {
			t, ok := x.symlinks[p]
			return t, ok
		}); err != nil {
			return x.fail(fault.DebUnsafePath, n, err)
		}
	}
	// Directory modes last, deepest first, so read-only dirs do not block
	// their children.
	dirs := make([]string, 0, len(x.dirModes))
	for d := range x.dirModes {
		dirs = append(dirs, d)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		if err := x.root.Chmod(d, x.dirModes[d]); err != nil {
			return x.fail(fault.DebIO, d, err)
		}
	}
	return nil
}

func (x *extractor) entry(e *Entry) error {
	// No parent may be a symlink: we never write through one.
	for p := path.Dir(e.Path); p != "."; p = path.Dir(p) {
		if _, ok := x.symlinks[p]; ok {
			return x.fail(fault.DebUnsafePath, e.Path, fmt.Errorf("parent %q is a symlink", p))
		}
	}
	if parent := path.Dir(e.Path); parent != "." {
		if err := x.root.MkdirAll(parent, 0o755); err != nil {
			return x.fail(fault.DebIO, e.Path, err)
		}
	}
	if e.Type != entry.Dir {
		// Replace an earlier non-directory entry of the same name.
		if st, err := x.root.Lstat(e.Path); err == nil {
			if st.IsDir() {
				return x.fail(fault.DebFormat, e.Path, fmt.Errorf("%s entry replaces a directory", e.Type))
			}
			if err := x.root.Remove(e.Path); err != nil {
				return x.fail(fault.DebIO, e.Path, err)
			}
			delete(x.symlinks, e.Path)
		}
	}
	perm := e.Mode.Perm()
	if bits := e.Mode & (fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky); bits != 0 &&
		(e.Type == entry.Regular || e.Type == entry.Dir) {
		x.changed(e, "%s stripped", SpecialBits(bits))
	}
	if perm&0o002 != 0 && (e.Type == entry.Dir || e.Type == entry.Regular) {
		perm &^= 0o002 // nothing extracted is world-writable
		x.changed(e, "write permission for others cleared")
	}
	switch e.Type {
	case entry.Dir:
		if _, ok := x.symlinks[e.Path]; ok {
			if err := x.root.Remove(e.Path); err != nil {
				return x.fail(fault.DebIO, e.Path, err)
			}
			delete(x.symlinks, e.Path)
		}
		if err := x.root.Mkdir(e.Path, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return x.fail(fault.DebIO, e.Path, err)
		}
		if st, err := x.root.Lstat(e.Path); err != nil || !st.IsDir() {
			return x.fail(fault.DebFormat, e.Path, errors.New("directory entry replaces a non-directory"))
		}
		x.dirModes[e.Path] = perm
	case entry.Regular:
		f, err := x.root.OpenFile(e.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return x.fail(fault.DebIO, e.Path, err)
		}
		_, err = io.Copy(f, x.rd)
		if err == nil {
			err = f.Chmod(perm)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			var de *fault.DebError
			if errors.As(err, &de) {
				return err
			}
			return x.fail(fault.DebIO, e.Path, err)
		}
	case entry.Symlink:
		target := safepath.RootRelative(e.Path, e.Link)
		if err := safepath.Resolve(path.Dir(e.Path), target, nil); err != nil {
			return x.fail(fault.DebUnsafePath, e.Path, err)
		}
		if err := x.root.Symlink(target, e.Path); err != nil {
			return x.fail(fault.DebIO, e.Path, err)
		}
		if target != e.Link {
			x.changed(e, "absolute symlink target %s re-rooted as %s", e.Link, target)
		}
		x.symlinks[e.Path] = target
	case entry.Hardlink:
		if err := x.root.Link(e.Link, e.Path); err != nil {
			return x.fail(fault.DebIO, e.Path, err)
		}
	}
	return nil
}

// SpecialBits names the setuid, setgid and sticky bits of m ("setuid bit",
// "setgid+sticky bits"; "" for none).
func SpecialBits(m fs.FileMode) string {
	var names []string
	if m&fs.ModeSetuid != 0 {
		names = append(names, "setuid")
	}
	if m&fs.ModeSetgid != 0 {
		names = append(names, "setgid")
	}
	if m&fs.ModeSticky != 0 {
		names = append(names, "sticky")
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0] + " bit"
	}
	return strings.Join(names, "+") + " bits"
}
