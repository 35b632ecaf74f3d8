package files

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

// TestOpenBeneath: with openat2 and with the one-component-at-a-time
// fallback alike, a regular file below the directory opens; a link at the
// end or on the way (to a file inside or outside) is a *LinkError naming
// it; a FIFO (opened without waiting), a directory or a device is a
// *NotRegularError; "..", absolute and empty paths are refused.
func TestOpenBeneath(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	mk := func(p, body string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(root, "a/b/file"), "x")
	mk(filepath.Join(outside, "secret"), "s")
	testutil.Must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "a/b/out")))
	testutil.Must(t, os.Symlink("file", filepath.Join(root, "a/b/in")))
	testutil.Must(t, os.Symlink(outside, filepath.Join(root, "a/dirlink")))
	if err := syscall.Mkfifo(filepath.Join(root, "a/fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.Must(t, os.Symlink("/dev/zero", filepath.Join(root, "a/dev")))
	for _, steps := range []bool{false, true} {
		noOpenat2.Store(steps)
		d, err := os.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		if f, err := OpenBeneath(d, "a/b/file", false); err != nil {
			t.Errorf("steps=%v: a/b/file: %v", steps, err)
		} else {
			f.Close()
		}
		if f, err := OpenBeneath(d, "a/b", true); err != nil {
			t.Errorf("steps=%v: directory a/b: %v", steps, err)
		} else {
			f.Close()
		}
		for rel, link := range map[string]string{
			"a/b/out":          "a/b/out",
			"a/b/in":           "a/b/in",
			"a/dirlink/secret": "a/dirlink",
			"a/dev":            "a/dev",
		} {
			_, err := OpenBeneath(d, rel, false)
			var le *LinkError
			if !errors.As(err, &le) || le.Path != filepath.Join(root, link) {
				t.Errorf("steps=%v: %s: %v, want a *LinkError naming %s", steps, rel, err, link)
			}
		}
		for rel, mode := range map[string]fs.FileMode{"a/fifo": fs.ModeNamedPipe, "a/b": fs.ModeDir} {
			_, err := OpenBeneath(d, rel, false)
			var ne *NotRegularError
			if !errors.As(err, &ne) || ne.Mode.Type() != mode {
				t.Errorf("steps=%v: %s: %v, want a *NotRegularError (%v)", steps, rel, err, mode)
			}
		}
		for _, rel := range []string{"../x", "a/../../x", "/etc/passwd", "", "a/b/../b/file"} {
			if f, err := OpenBeneath(d, rel, false); err == nil {
				f.Close()
				t.Errorf("steps=%v: %q opened", steps, rel)
			}
		}
		d.Close()
	}
	noOpenat2.Store(false)
	if _, err := OpenRegular("/dev/zero"); !errors.As(err, new(*NotRegularError)) {
		t.Errorf("OpenRegular(/dev/zero): %v, want a *NotRegularError", err)
	}
	if _, err := OpenRegular(filepath.Join(root, "a/fifo")); !errors.As(err, new(*NotRegularError)) {
		t.Errorf("OpenRegular(fifo): %v, want a *NotRegularError", err)
	}
}
