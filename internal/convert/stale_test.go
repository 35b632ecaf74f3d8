package convert

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/debredist/debredist/debredist/redist"
)

// TestRemoveStaleTrustsNoSidecar: an earlier sidecar is a file in OUT that
// anyone may have edited; a relative_path climbing out of OUT never
// deletes the file it names.
func TestRemoveStaleTrustsNoSidecar(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	victim := filepath.Join(root, "victim.txt")
	write(t, victim, "1234")
	inside := filepath.Join(root, "out", "cuda", "redist", "old.tar.xz")
	write(t, inside, "5678")
	dir := filepath.Join(root, "out", "cuda", "redist")
	removeStale(dir, redist.Provenance{Archives: []redist.Archive{
		{RelativePath: "../../../victim.txt", Size: 4},
		{RelativePath: victim, Size: 4},
		{RelativePath: "old.tar.xz", Size: 4},
	}}, map[string]bool{})
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("a file outside OUT was removed: %v", err)
	}
	if _, err := os.Stat(inside); !os.IsNotExist(err) {
		t.Errorf("the stale archive inside OUT was kept: %v", err)
	}
}

func write(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
