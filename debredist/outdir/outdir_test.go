package outdir_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/testutil"
)

// writeGen writes generation gen of a one-product OUT (cuda, with one
// manifest and one archive whose bytes are body) and points current at it.
func writeGen(out, gen, body string) error {
	dir := filepath.Join(out, ".debredist", gen, "cuda", "redist")
	for p, b := range map[string]string{
		"redistrib_1.0.json":            `{"release_label": "1.0", "release_product": "cuda"}`,
		"debredist-provenance_1.0.json": `{"tool": "debredist"}`,
		"x/linux-aarch64/x.tar.xz":      body,
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(b), 0o644); err != nil {
			return err
		}
	}
	next := filepath.Join(out, ".debredist", "current.next")
	if err := os.Symlink(gen, next); err != nil {
		return err
	}
	if err := os.Rename(next, filepath.Join(out, ".debredist", "current")); err != nil {
		return err
	}
	if _, err := os.Lstat(filepath.Join(out, "cuda")); err == nil {
		return nil
	}
	return os.Symlink(filepath.Join(".debredist", "current", "cuda"), filepath.Join(out, "cuda"))
}

func Example() {
	out, _ := os.MkdirTemp("", "outdir-example-")
	defer func() { _ = os.RemoveAll(out) }()
	if err := writeGen(out, "gen-1", "archive bytes"); err != nil {
		fmt.Println(err)
		return
	}

	s, err := outdir.Open(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = s.Close() }()
	fmt.Println("generation:", s.Gen)
	for _, mf := range s.Manifests { // relative to out
		b, _ := s.ReadFile(mf, 1<<20)
		fmt.Println(mf, len(b), "bytes")
	}
	f, err := s.Open("cuda/redist/x/linux-aarch64/x.tar.xz")
	if err == nil {
		st, _ := f.Stat()
		fmt.Println("archive:", st.Size(), "bytes")
		f.Close()
	}
	// Output:
	// generation: gen-1
	// cuda/redist/redistrib_1.0.json 51 bytes
	// archive: 13 bytes
}

// TestSnapshot: a Snapshot keeps reading the generation it resolved while
// files already open stay readable; once a newer generation replaced it,
// opens fail with ErrReplaced, and a new Snapshot reads the new one. A
// link below the generation is listed as Foreign and never opened.
func TestSnapshot(t *testing.T) {
	out := t.TempDir()
	if err := writeGen(out, "gen-1", "old"); err != nil {
		t.Fatal(err)
	}
	s, err := outdir.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	mf := "cuda/redist/redistrib_1.0.json" // relative to OUT, as Files names them
	archive := "cuda/redist/x/linux-aarch64/x.tar.xz"
	if got := s.Path(archive); got != filepath.Join(out, archive) {
		t.Errorf("Path(%s) = %s", archive, got)
	}
	if _, err := s.Open(filepath.Join(out, archive)); err == nil {
		t.Error("Open of an absolute path: no error")
	}
	f, err := s.Open(mf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	if err := writeGen(out, "gen-2", "new!"); err != nil { // a conversion switches...
		t.Fatal(err)
	}
	if b, err := s.ReadFile(archive, 10); err != nil || string(b) != "old" {
		t.Errorf("before the old generation is removed: %q %v, want the old bytes", b, err)
	}
	testutil.Must(t, os.RemoveAll(filepath.Join(out, ".debredist", "gen-1"))) // ...and removes the old one
	if !s.Replaced() {
		t.Error("Replaced: false after the switch")
	}
	if _, err := s.Open(archive); !errors.Is(err, outdir.ErrReplaced) || !strings.Contains(err.Error(), s.Path(archive)) {
		t.Errorf("open after the removal: %v, want ErrReplaced naming %s", err, s.Path(archive))
	}
	if _, err := f.Stat(); err != nil {
		t.Errorf("a file open before the removal: %v", err)
	}
	s2, err := outdir.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s2.Close() }()
	if b, err := s2.ReadFile(archive, 10); s2.Gen != "gen-2" || err != nil || string(b) != "new!" {
		t.Errorf("a new Snapshot: %s %q %v, want gen-2's bytes", s2.Gen, b, err)
	}

	// a link in the generation: listed, not followed
	gen2 := filepath.Join(out, ".debredist", "gen-2", "cuda", "redist", "x", "linux-aarch64", "x.tar.xz")
	testutil.Must(t, os.Remove(gen2))
	testutil.Must(t, os.Symlink("/etc/passwd", gen2))
	s3, err := outdir.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s3.Close() }()
	if len(s3.Foreign) != 1 || s3.Foreign[0] != archive {
		t.Errorf("Foreign: %q, want [%s]", s3.Foreign, archive)
	}
	var le *files.LinkError
	if _, err := s3.Open(archive); !errors.As(err, &le) || le.Target != "/etc/passwd" {
		t.Errorf("open of a link: %v, want a *files.LinkError naming /etc/passwd", err)
	}
}
