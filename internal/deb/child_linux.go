package deb

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the child when this process dies,
// however it dies (SIGKILL included): a decoder must not keep running, or
// writing, after the conversion that started it is gone.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
