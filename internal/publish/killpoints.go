//go:build debredist_killpoints

package publish

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// A binary built with the tag debredist_killpoints (the crash tests build
// the CLI so) kills itself at the commit step DEBREDIST_TEST_KILL_AT
// names; no other build reads the variable.
func init() {
	at := os.Getenv("DEBREDIST_TEST_KILL_AT")
	if at == "" {
		return
	}
	n, err := strconv.Atoi(at)
	if err != nil {
		return
	}
	count := 0
	commitHook = func(step string) {
		count++
		fmt.Fprintf(os.Stderr, "debredist: commit step %d: %s\n", count, step)
		if count == n {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
}
