package deb

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the child when this process dies,
// however it dies (SIGKILL included): a decoder must not keep running, or
// writing, after the conversion that started it is gone.
//
// The kernel sends the signal when the OS thread that forked the child
// exits, not only the process: harmless in Go, whose threads live as long
// as the process, unless a goroutine that called runtime.LockOSThread
// starts the child and then returns without unlocking (nothing here does).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
