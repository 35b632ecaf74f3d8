package deb

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/debredist/debredist/internal/deb/debtest"
)

// TestExtractWarns: Extract says, per entry, what it wrote differently.
func TestExtractWarns(t *testing.T) {
	b := mustBuild(t, mini(
		debtest.File{Name: "usr/bin/su", Mode: 0o4755, Body: []byte("x")},
		debtest.File{Name: "tmp", Type: tar.TypeDir, Mode: 0o3777},
		debtest.File{Name: "usr/lib/libx.so", Type: tar.TypeSymlink, Linkname: "/usr/bin/su"},
		debtest.File{Name: "usr/lib/liby.so", Type: tar.TypeSymlink, Linkname: "libx.so"},
	))
	p := filepath.Join(t.TempDir(), "w.deb")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := Extract(
		context.Background(),
		p,
		filepath.Join(t.TempDir(), "x"),
		false,
		Options{Name: "w.deb", Warn: func(s string) { got = append(got, s) }},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"deb w.deb: entry usr/bin/su: setuid bit stripped",
		"deb w.deb: entry tmp: setgid+sticky bits stripped",
		"deb w.deb: entry tmp: write permission for others cleared",
		"deb w.deb: entry usr/lib/libx.so: absolute symlink target /usr/bin/su re-rooted as ../bin/su",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%q\nwant\n%q", got, want)
	}
}
