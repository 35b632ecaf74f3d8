package debredist

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
	mustWrite(t, victim, []byte("1234"))
	inside := filepath.Join(root, "out", "cuda", "redist", "old.tar.xz")
	mustWrite(t, inside, []byte("5678"))
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
