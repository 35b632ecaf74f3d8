package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY returns a new pseudo-terminal's master and its terminal end, of
// the given size.
func openPTY(t *testing.T, cols, rows uint16) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close(); tty.Close() })
	return master, tty
}

// TestProgressOnTerminal: on a terminal the overall bar shows from the
// start how far the run got (downloads held back, so the run is still
// downloading); a terminal without a size gets the stage lines instead
// of nothing.
func TestProgressOnTerminal(t *testing.T) {
	for _, tc := range []struct {
		cols uint16
		want string
	}{
		{100, "debs 0/71"},
		{0, "debredist: fetch: 71 debs"},
	} {
		t.Run(fmt.Sprintf("%d columns", tc.cols), func(t *testing.T) {
			srv, release := mirrorServer(t, true)
			master, tty := openPTY(t, tc.cols, 24)
			cmd := asCLI(t, "convert", "--jetpack", "6", "--mirror", srv.URL, "--cache", t.TempDir(), "--out", t.TempDir())
			cmd.Stderr, cmd.Stdout = tty, tty
			cmd.Env = append(cmd.Env, "TERM=xterm")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var seen bytes.Buffer
			go func() {
				buf := make([]byte, 4096)
				for {
					n, err := master.Read(buf)
					mu.Lock()
					seen.Write(buf[:n])
					mu.Unlock()
					if err != nil {
						return
					}
				}
			}()
			deadline := time.Now().Add(20 * time.Second)
			for {
				mu.Lock()
				s := seen.String()
				mu.Unlock()
				if strings.Contains(s, tc.want) {
					break
				}
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					_ = cmd.Wait() // killed: its error says so
					t.Fatalf("after 20 s the terminal shows no %q:\n%q", tc.want, s)
				}
				time.Sleep(50 * time.Millisecond)
			}
			release()
			if err := cmd.Wait(); err != nil {
				mu.Lock()
				t.Errorf("convert: %v\n%q", err, seen.String())
				mu.Unlock()
			}
		})
	}
}
