package mirrorgen

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stanza is one parsed Packages paragraph.
type stanza map[string]string

// parsePackages is a minimal Packages parser for tests (the real one lives
// in internal/apt and must not be a dependency of the generator's tests).
func parsePackages(t testing.TB, b []byte) []stanza {
	t.Helper()
	var out []stanza
	for _, para := range strings.Split(strings.TrimSpace(string(b)), "\n\n") {
		st := stanza{}
		var last string
		for _, line := range strings.Split(para, "\n") {
			if strings.HasPrefix(line, " ") {
				st[last] += "\n" + line
				continue
			}
			k, v, ok := strings.Cut(line, ": ")
			if !ok {
				t.Fatalf("bad Packages line %q", line)
			}
			st[k] = v
			last = k
		}
		out = append(out, st)
	}
	return out
}

func generate(t testing.TB, opts Options) string {
	t.Helper()
	dir := t.TempDir()
	if err := Generate(context.Background(), dir, opts); err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return dir
}

func readIndex(t testing.TB, dir, repo, suite string) []stanza {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, repo, "dists", suite, "main", "binary-arm64", "Packages"))
	if err != nil {
		t.Fatal(err)
	}
	return parsePackages(t, b)
}

// treeHashes maps every regular file under root (slash paths) to its sha256.
func treeHashes(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		sum := sha256.Sum256(b)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(t *testing.T, want, got map[string]string) {
	t.Helper()
	n := 0
	for p, h := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("missing %s", p)
			n++
		} else if g != h {
			t.Errorf("content differs: %s", p)
			n++
		}
		if n > 20 {
			t.Fatal("too many differences")
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("unexpected %s", p)
		}
	}
}

// tarEntry is a data.tar entry as read back by dpkg-deb.
type tarEntry struct {
	Name, Link string
	Type       byte
	Mode       int64
	Sum        string
}

// dpkgDataEntries reads a deb's data.tar with dpkg-deb --fsys-tarfile.
func dpkgDataEntries(t testing.TB, dpkgDeb, deb string) []tarEntry {
	t.Helper()
	out, err := exec.Command(dpkgDeb, "--fsys-tarfile", deb).Output()
	if err != nil {
		t.Fatalf("dpkg-deb --fsys-tarfile %s: %v", deb, err)
	}
	tr := tar.NewReader(bytes.NewReader(out))
	var ents []tarEntry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", deb, err)
		}
		body, _ := io.ReadAll(tr)
		sum := sha256.Sum256(body)
		ents = append(
			ents,
			tarEntry{Name: h.Name, Link: h.Linkname, Type: h.Typeflag, Mode: h.Mode, Sum: hex.EncodeToString(sum[:])},
		)
	}
	return ents
}

// treeSizes maps every regular file under root to its size.
func treeSizes(t testing.TB, root string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fi.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
