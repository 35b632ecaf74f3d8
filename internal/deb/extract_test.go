package deb

import (
	"archive/tar"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/testutil"
)

func writeDeb(t *testing.T, dir string, d debtest.Deb) string {
	t.Helper()
	p := filepath.Join(dir, "in.deb")
	if err := os.WriteFile(p, mustBuild(t, d), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// snapshot describes a tree: path -> "type mode target-or-content".
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			tgt, _ := os.Readlink(p)
			out[rel] = "l " + tgt
		case st.IsDir():
			out[rel] = "d " + st.Mode().Perm().String()
		default:
			b, _ := os.ReadFile(p)
			out[rel] = "f " + st.Mode().Perm().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var goodDeb = debtest.Deb{
	Control:    miniControl,
	AddParents: true,
	Files: []debtest.File{
		{Name: "usr/local/cuda-12.6/bin/nvcc", Mode: 0o755, Body: []byte("nvcc")},
		{Name: "usr/local/cuda-12.6/targets/aarch64-linux/lib/libcudart.so.12.6.68", Body: []byte("lib")},
		{
			Name:     "usr/local/cuda-12.6/targets/aarch64-linux/lib/libcudart.so.12",
			Type:     tar.TypeSymlink,
			Linkname: "libcudart.so.12.6.68",
		},
		{Name: "usr/local/cuda-12.6/lib64", Type: tar.TypeSymlink, Linkname: "targets/aarch64-linux/lib"},
		{Name: "usr/local/cuda-12.6/up", Type: tar.TypeSymlink, Linkname: "../../share"},
		{Name: "usr/local/cuda-12.6/bin/nvcc.hard", Type: tar.TypeLink, Linkname: "usr/local/cuda-12.6/bin/nvcc"},
		{Name: "usr/share/ro", Type: tar.TypeDir, Mode: 0o555},
		{Name: "usr/share/ro/file", Body: []byte("inside read-only dir")},
		{Name: "usr/bin/suid", Mode: 0o4755, Body: []byte("s")},
	},
}

func TestExtractMatchesDpkgDeb(t *testing.T) {
	dpkg := testutil.RequireTool(t, "dpkg-deb")
	tmp := t.TempDir()
	debPath := writeDeb(t, tmp, goodDeb)
	got := filepath.Join(tmp, "got")
	if err := Extract(context.Background(), debPath, got, false, Options{}); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(tmp, "want")
	if out, err := exec.Command(dpkg, "-x", debPath, want).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x: %v\n%s", err, out)
	}
	g, w := snapshot(t, got), snapshot(t, want)
	w["usr/bin/suid"] = strings.Replace(w["usr/bin/suid"], "rwsr", "rwxr", 1) // setuid is dropped
	var diffs []string
	for k := range w {
		if g[k] != w[k] {
			diffs = append(diffs, k+": got "+g[k]+", dpkg-deb -x "+w[k])
		}
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			diffs = append(diffs, k+": only in Extract")
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("Extract differs from dpkg-deb -x:\n%s", strings.Join(diffs, "\n"))
	}
	if st, err := os.Stat(got); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("destination mode: %v %v", st, err)
	}
	chmodAll(t, tmp)
}

// chmodAll makes read-only test dirs removable by t.TempDir cleanup.
func chmodAll(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			return os.Chmod(p, 0o755)
		}
		return nil
	})
	testutil.Must(t, err)
}

func TestExtractUnsafe(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []debtest.File
		entry string
	}{
		{"symlink to /etc then file through it", []debtest.File{
			{Name: "etc", Type: tar.TypeSymlink, Linkname: "/etc"},
			{Name: "etc/cron.d/evil", Body: []byte("* * * * * root sh")},
		}, "etc/cron.d/evil"}, // /etc is re-rooted to DIR/etc (a self link); writing through it is refused
		{"relative symlink escape", []debtest.File{
			{Name: "usr/up", Type: tar.TypeSymlink, Linkname: "../../.."},
		}, "usr/up"},
		{"file through an inside symlink", []debtest.File{
			{Name: "real", Type: tar.TypeDir},
			{Name: "alias", Type: tar.TypeSymlink, Linkname: "real"},
			{Name: "alias/x", Body: []byte("x")},
		}, "alias/x"},
		{"symlink chain escape found at the end", []debtest.File{
			{Name: "b", Type: tar.TypeDir},
			{Name: "l2", Type: tar.TypeSymlink, Linkname: "a/b/../.."},
			{Name: "a", Type: tar.TypeSymlink, Linkname: "."},
		}, "l2"},
		{"symlink loop", []debtest.File{
			{Name: "a", Type: tar.TypeSymlink, Linkname: "b"},
			{Name: "b", Type: tar.TypeSymlink, Linkname: "a"},
		}, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			debPath := writeDeb(t, tmp, debtest.Deb{Control: miniControl, Files: tc.files})
			dest := filepath.Join(tmp, "out")
			err := Extract(context.Background(), debPath, dest, false, Options{})
			var e *fault.DebError
			if !errors.As(err, &e) || e.Kind != fault.DebUnsafePath || !errors.Is(err, fault.ErrDebUnsafePath) {
				t.Fatalf("err = %v, want KindUnsafePath", err)
			}
			if e.Entry != tc.entry || !strings.Contains(err.Error(), debPath) {
				t.Errorf("error names entry %q (want %q): %v", e.Entry, tc.entry, err)
			}
			assertNothingLeft(t, tmp)
		})
	}
}

func assertNothingLeft(t *testing.T, tmp string) {
	t.Helper()
	ents, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "in.deb" && e.Name() != "out" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	if _, err := os.Lstat(filepath.Join(tmp, "out")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("destination exists after failure: %v", err)
	}
	if _, err := os.Lstat("/etc/cron.d/evil"); err == nil {
		t.Errorf("wrote through symlink to /etc")
	}
}

func TestExtractFailureLeavesNothing(t *testing.T) {
	tmp := t.TempDir()
	// A valid first file, then a device entry: the failure comes mid-way.
	debPath := writeDeb(t, tmp, debtest.Deb{Control: miniControl, AddParents: true, Files: []debtest.File{
		{Name: "usr/ok", Body: []byte("ok")},
		{Name: "dev/null", Type: tar.TypeChar},
	}})
	err := Extract(context.Background(), debPath, filepath.Join(tmp, "out"), false, Options{})
	if !errors.Is(err, entry.ErrDevice) {
		t.Fatalf("err = %v, want ErrDevice", err)
	}
	assertNothingLeft(t, tmp)
}

func TestExtractForce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prepare func(dest string) error
		force   bool
		want    error // nil: success
	}{
		{"missing dest", func(string) error { return nil }, false, nil},
		{"empty dir", func(d string) error { return os.Mkdir(d, 0o755) }, false, nil},
		{"non-empty dir", func(d string) error { return writeOld(d) }, false, fault.ErrDebExists},
		{"non-empty dir forced", func(d string) error { return writeOld(d) }, true, nil},
		{"file", func(d string) error { return os.WriteFile(d, []byte("x"), 0o644) }, false, fault.ErrDebExists},
		{"file forced", func(d string) error { return os.WriteFile(d, []byte("x"), 0o644) }, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			debPath := writeDeb(t, tmp, goodDeb)
			dest := filepath.Join(tmp, "out")
			if err := tc.prepare(dest); err != nil {
				t.Fatal(err)
			}
			before := snapshotOrNil(t, dest)
			err := Extract(context.Background(), debPath, dest, tc.force, Options{Name: "good.deb"})
			defer chmodAll(t, tmp)
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
				if after := snapshotOrNil(t, dest); !equalMaps(before, after) {
					t.Errorf("destination changed on refusal: %v -> %v", before, after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := snapshot(t, dest)
			if s["usr/local/cuda-12.6/bin/nvcc"] != "f -rwxr-xr-x nvcc" {
				t.Errorf("nvcc = %q", s["usr/local/cuda-12.6/bin/nvcc"])
			}
			if _, ok := s["old"]; ok {
				t.Errorf("old content survived a forced extract")
			}
			ents, _ := os.ReadDir(tmp)
			if len(ents) != 2 {
				t.Errorf("temporary directories left: %v", ents)
			}
		})
	}
}

func writeOld(d string) error {
	if err := os.Mkdir(d, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d, "old"), []byte("old"), 0o644)
}

func snapshotOrNil(t *testing.T, p string) map[string]string {
	st, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		b, _ := os.ReadFile(p)
		return map[string]string{".": string(b)}
	}
	return snapshot(t, p)
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestExtractAbsoluteSymlinks: absolute link targets are read with DIR as
// the root the deb installs to, and written relative, so they stay inside.
func TestExtractAbsoluteSymlinks(t *testing.T) {
	tmp := t.TempDir()
	debPath := writeDeb(t, tmp, debtest.Deb{Control: miniControl, AddParents: true, Files: []debtest.File{
		{Name: "usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1.1", Body: []byte("elf")},
		{Name: "usr/lib/aarch64-linux-gnu/tegra", Type: tar.TypeSymlink, Linkname: "/usr/lib/aarch64-linux-gnu/nvidia"},
		{
			Name:     "usr/lib/aarch64-linux-gnu/libcuda.so",
			Type:     tar.TypeSymlink,
			Linkname: "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1",
		},
	}})
	dest := filepath.Join(tmp, "out")
	if err := Extract(context.Background(), debPath, dest, false, Options{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"usr/lib/aarch64-linux-gnu/tegra":      "nvidia",
		"usr/lib/aarch64-linux-gnu/libcuda.so": "tegra/libcuda.so.1.1",
	} {
		got, err := os.Readlink(filepath.Join(dest, name))
		if err != nil || got != want {
			t.Errorf("%s -> %q (%v), want %q", name, got, err, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dest, "usr/lib/aarch64-linux-gnu/libcuda.so")); err != nil ||
		string(b) != "elf" {
		t.Errorf("link does not resolve inside DIR: %q %v", b, err)
	}
}

// TestExtractClearsWorldWritable: nothing extracted is writable by others;
// the entries whose o+w bit was cleared are reported.
func TestExtractClearsWorldWritable(t *testing.T) {
	tmp := t.TempDir()
	debPath := writeDeb(t, tmp, debtest.Deb{Control: miniControl, AddParents: true, Files: []debtest.File{
		{Name: "usr/share/sticky", Type: tar.TypeDir, Mode: 0o1777},
		{Name: "usr/share/sticky/f", Mode: 0o666, Body: []byte("x")},
		{Name: "usr/share/ok", Mode: 0o644, Body: []byte("y")},
	}})
	dest := filepath.Join(tmp, "out")
	var warned []string
	if err := Extract(
		context.Background(),
		debPath,
		dest,
		false,
		Options{Warn: func(m string) { warned = append(warned, m) }},
	); err != nil {
		t.Fatal(err)
	}
	var cleared []string
	for _, w := range warned {
		if strings.Contains(w, "write permission for others cleared") {
			cleared = append(cleared, w)
		}
	}
	if len(cleared) != 2 || !strings.Contains(cleared[0], "usr/share/sticky") ||
		!strings.Contains(cleared[1], "usr/share/sticky/f") {
		t.Errorf("warnings %q, want o+w cleared on usr/share/sticky and usr/share/sticky/f", warned)
	}
	for name, want := range map[string]os.FileMode{
		"usr/share/sticky":   0o775,
		"usr/share/sticky/f": 0o664,
		"usr/share/ok":       0o644,
	} {
		st, err := os.Stat(filepath.Join(dest, name))
		if err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", name, st.Mode().Perm(), err, want)
		}
	}
}
