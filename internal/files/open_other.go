//go:build !linux

package files

import (
	"os"

	"golang.org/x/sys/unix"
)

func openBeneath(dir *os.File, rel string, wantDir bool) (*os.File, error) {
	return openSteps(int(dir.Fd()), dir.Name(), rel, wantDir, func(fd int, name string, flags int) (int, error) {
		return unix.Openat(fd, name, flags, 0)
	})
}
