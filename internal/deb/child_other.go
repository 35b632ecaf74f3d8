//go:build !linux

package deb

import "os/exec"

// dieWithParent is a no-op where the kernel offers no parent-death signal:
// the child still ends at once when its pipes close.
func dieWithParent(cmd *exec.Cmd) {}
