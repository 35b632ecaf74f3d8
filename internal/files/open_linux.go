package files

import (
	"errors"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 turned out missing (ENOSYS: a kernel
// before 5.6, or a seccomp filter that refuses it).
var noOpenat2 atomic.Bool

func openBeneath(dir *os.File, rel string, wantDir bool) (*os.File, error) {
	flags := uint64(unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK)
	if wantDir {
		flags |= unix.O_DIRECTORY
	}
	if !noOpenat2.Load() {
		fd, err := unix.Openat2(
			int(dir.Fd()),
			rel,
			&unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS},
		)
		for errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
			fd, err = unix.Openat2(
				int(dir.Fd()),
				rel,
				&unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS},
			)
		}
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), dir.Name()+"/"+rel), nil
		case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM): // no openat2, or a seccomp filter's refusal
			noOpenat2.Store(true)
		default:
			return nil, err
		}
	}
	return openSteps(int(dir.Fd()), dir.Name(), rel, wantDir, func(fd int, name string, flags int) (int, error) {
		return unix.Openat(fd, name, flags, 0)
	})
}
