// Command measure runs a command and prints its wall time, CPU time (user +
// system, the command's and its waited-for children's) and peak resident
// set size, for benchmark scripts on machines without /usr/bin/time
// (bench/device.sh). It is a benchmark helper, not a tool.
//
//	measure [-o FILE] [-timeout SECONDS] -- CMD [ARG...]
//
// Output (appended to FILE, or stdout): "wall_s cpu_s maxrss_MiB status",
// status being the exit code, or "timeout" when -timeout killed it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	out := flag.String("o", "", "append the result line to this file (default stdout)")
	timeout := flag.Float64("timeout", 0, "kill the command after this many seconds (0: never)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: measure [-o FILE] [-timeout SECONDS] -- CMD [ARG...]")
		os.Exit(2)
	}
	ctx := context.Background()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*timeout*float64(time.Second)))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Kill the whole process group on timeout (a shell pipeline).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	status := "0"
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		status = "timeout"
	case errors.As(err, &ee):
		status = fmt.Sprint(ee.ExitCode())
	case err != nil:
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(1)
	}
	var cpu time.Duration
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru != nil {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		rss = ru.Maxrss // KiB on Linux
	}
	line := fmt.Sprintf("%.2f %.2f %d %s\n", wall.Seconds(), cpu.Seconds(), rss>>10, status)
	if *out == "" {
		fmt.Print(line)
	} else {
		f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = f.WriteString(line)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "measure:", err)
			os.Exit(1)
		}
	}
	if status != "0" {
		os.Exit(1)
	}
}
