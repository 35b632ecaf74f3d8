package publish

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTakeUnopenableMutexInWritableOut: an OUT this user may write whose
// mutex it cannot open (0600 from an older debredist, another user's) is
// refused, not converted without the mutex. Root opens any file, so as
// root (CI) the Take runs in a child process, this test binary run as
// uid/gid 65534, on an OUT that user owns and a mutex root owns, 0600.
func TestTakeUnopenableMutexInWritableOut(t *testing.T) {
	if out := os.Getenv(takeAsOtherEnv); out != "" { // the child
		takeRefused(t, out)
		return
	}
	if os.Geteuid() != 0 {
		out := filepath.Join(t.TempDir(), "out")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, MutexFile), nil, 0o000); err != nil {
			t.Fatal(err)
		}
		takeRefused(t, out)
		return
	}
	// Everything the other user runs or opens must be reachable by it.
	base, err := os.MkdirTemp("/tmp", "debredist-take-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "publish.test")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	const other = 65534
	out := filepath.Join(base, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(out, other, other); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, MutexFile), nil, 0o600); err != nil { // root's
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestTakeUnopenableMutexInWritableOut$", "-test.v", "-test.count=1")
	cmd.Dir = base
	cmd.Env = append(os.Environ(), takeAsOtherEnv+"="+out, "TMPDIR="+base)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: other, Gid: other}}
	var o bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &o
	if err := cmd.Start(); err != nil {
		t.Skipf("root, but cannot run this test as uid %d: %v", other, err)
	}
	if err := cmd.Wait(); err != nil || !strings.Contains(o.String(), "--- PASS: TestTakeUnopenableMutexInWritableOut") {
		t.Fatalf("as uid %d: %v\n%s", other, err, o.String())
	}
}

// takeAsOtherEnv names OUT to the child process of
// TestTakeUnopenableMutexInWritableOut.
const takeAsOtherEnv = "DEBREDIST_TEST_TAKE_AS_OTHER"

// takeRefused fails unless Take refuses out, saying how to fix it.
func takeRefused(t *testing.T, out string) {
	t.Helper()
	_, err := Take(context.Background(), out, func(string) {})
	if err == nil || !strings.Contains(err.Error(), "chmod 644") {
		t.Fatalf("Take: %v, want a refusal saying how to fix it", err)
	}
}

// TestTakeFreshness: OUT is fresh when this claim created it or it holds
// only the mutex; Undo then removes what the claim made, and leaves an OUT
// that held anything else alone.
func TestTakeFreshness(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	out := filepath.Join(dir, "new", "out")
	c, err := Take(ctx, out, func(string) {})
	if err != nil || !c.fresh || !c.created {
		t.Fatalf("a new OUT: %+v %v", c, err)
	}
	c.Undo()
	c.Release()
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Fatalf("Undo left %s: %v", out, err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err = Take(ctx, empty, func(string) {})
	if err != nil || !c.fresh || c.created {
		t.Fatalf("an empty OUT: %+v %v", c, err)
	}
	c.Undo()
	c.Release()
	if ents, err := os.ReadDir(empty); err != nil || len(ents) != 0 {
		t.Fatalf("Undo of an empty OUT: %v %v, want it empty and kept", ents, err)
	}
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(filepath.Join(full, "cuda"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err = Take(ctx, full, func(string) {})
	if err != nil || c.fresh {
		t.Fatalf("an OUT with content: %+v %v", c, err)
	}
	c.Undo()
	c.Release()
	if _, err := os.Stat(filepath.Join(full, "cuda")); err != nil {
		t.Fatalf("Undo removed an earlier output: %v", err)
	}
}
