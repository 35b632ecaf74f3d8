package files

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// NotRegularError is a file that was to be read as a regular file but is
// something else: a named pipe, a device, a socket or a directory. It is
// never read (a FIFO would block the reader forever, a device never ends).
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: not read", e.Path, typeName(e.Mode))
}

func typeName(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	default:
		return "a special file (" + t.String() + ")"
	}
}

// LinkError is a symbolic link met on the way to a file that is read
// only through real directories (OUT's generations): it is not followed.
// Path is the link itself, Target what it points to.
type LinkError struct {
	Path   string
	Target string
}

func (e *LinkError) Error() string {
	return fmt.Sprintf(
		"%s is a symbolic link (to %q) that debredist did not write: not followed",
		e.Path,
		e.Target,
	) // the target is OUT's text: quoted
}

// OpenRegular opens the file at name for reading, following links as the
// caller's own path may (a Nix store path, a file given on the command
// line), and refuses anything but a regular file with a *NotRegularError.
// It opens with O_NONBLOCK, so that a named pipe is refused rather than
// waited on.
func OpenRegular(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return regular(f, name)
}

// regular returns f when it is a regular file, else closes it.
func regular(f *os.File, name string) (*os.File, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: name, Mode: st.Mode()}
	}
	return f, nil
}

// OpenBeneath opens rel (slash-separated, local: no "..", not absolute)
// below the open directory dir without following any symbolic link on
// the way or at the end: with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS)
// where the kernel has it, else one component at a time with O_NOFOLLOW.
// A link met is a *LinkError naming it; anything but a regular file (or,
// with wantDir, a directory) is a *NotRegularError. name is how errors
// name the file (dir's path joined with rel, say).
func OpenBeneath(dir *os.File, rel string, wantDir bool) (*os.File, error) {
	name := filepath.Join(dir.Name(), filepath.FromSlash(rel))
	if rel == "" || strings.ContainsRune(rel, 0) || !filepath.IsLocal(filepath.FromSlash(rel)) || hasDotDot(rel) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("not a path below the directory")}
	}
	f, err := openBeneath(dir, rel, wantDir)
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.ENOTDIR) {
		if l := findLink(dir, rel); l != nil {
			return nil, l
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: unwrapPath(err)}
	}
	if wantDir {
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if !st.IsDir() {
			f.Close()
			return nil, &NotRegularError{Path: name, Mode: st.Mode()}
		}
		return f, nil
	}
	return regular(f, name)
}

func hasDotDot(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// findLink looks for the first symbolic link on the way to rel below dir
// (without following any) and describes it.
func findLink(dir *os.File, rel string) *LinkError {
	cs := strings.Split(rel, "/")
	cur := dir.Name()
	for i := range cs {
		if cs[i] == "" || cs[i] == "." {
			continue
		}
		cur = filepath.Join(cur, cs[i])
		st, err := os.Lstat(cur)
		if err != nil {
			return nil
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			t, _ := os.Readlink(cur)
			return &LinkError{Path: cur, Target: t}
		}
	}
	return nil
}

// openSteps is OpenBeneath without openat2: each component opened with
// O_NOFOLLOW relative to the one before, so no link is ever followed and
// nothing outside dir is reached ("..": refused before).
func openSteps(
	dirfd int,
	dirName, rel string,
	wantDir bool,
	open func(fd int, name string, flags int) (int, error),
) (*os.File, error) {
	cs := strings.Split(rel, "/")
	fd := dirfd
	closeFd := func() {
		if fd != dirfd {
			_ = syscall.Close(fd)
		}
	}
	for i, c := range cs {
		if c == "" || c == "." {
			continue
		}
		flags := syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC | syscall.O_NONBLOCK
		if i < len(cs)-1 || wantDir {
			flags |= syscall.O_DIRECTORY
		}
		nfd, err := open(fd, c, flags)
		closeFd()
		if err != nil {
			return nil, err
		}
		fd = nfd
	}
	if fd == dirfd {
		return nil, syscall.EINVAL
	}
	return os.NewFile(uintptr(fd), filepath.Join(dirName, filepath.FromSlash(rel))), nil
}

// HashFile returns the sha256 of the open file f from its start, reading
// at most limit bytes (an error if it holds more: the file grew) and
// stopping when ctx is done.
func HashFile(ctx context.Context, f *os.File, limit int64) (string, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("hashing %s: %w", f.Name(), err)
	}
	h := sha256.New()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		k, err := f.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if limit >= 0 && n > limit {
			return "", fmt.Errorf("hashing %s: it holds more than the %d bytes it had (it is being written)", f.Name(), limit)
		}
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", fmt.Errorf("hashing %s: %w", f.Name(), err)
		}
	}
}

// ReadRegular reads the whole regular file at name (OpenRegular: links
// followed, a named pipe or a device refused, never waited on), at most
// max bytes: a larger file is an error naming it.
func ReadRegular(name string, max int64) ([]byte, error) {
	f, err := OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(b)) > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("larger than %d bytes: not read", max)}
	}
	return b, nil
}
