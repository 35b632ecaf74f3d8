package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "a", "b.json")
	if err := Write(dst, []byte("one"), dir); err != nil {
		t.Fatal(err)
	}
	if err := Write(dst, []byte("two"), dir); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(dst); err != nil || string(b) != "two" {
		t.Fatalf("%s: %q %v", dst, b, err)
	}
	if st, _ := os.Stat(dst); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	err := Write(dst, []byte("x"), filepath.Join(dir, "missing"))
	if err == nil || !strings.Contains(err.Error(), dst) || strings.Contains(err.Error(), ".write-") {
		t.Errorf("an unwritable tmpDir: %v, want an error naming %s and not the temporary file", err, dst)
	}
}
