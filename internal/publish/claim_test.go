package publish

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTakeUnopenableMutexInWritableOut: an OUT this user may write whose
// mutex it cannot open (0600 from an older debredist, another user's) is
// refused, not converted without the mutex.
func TestTakeUnopenableMutexInWritableOut(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root opens any file: run as another user to test")
	}
	out := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, MutexFile), nil, 0o000); err != nil {
		t.Fatal(err)
	}
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
