package depcheck

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestDocNames: every doc link and every Go name in the doc comments of
// the public packages (debredist and its subpackages) is a declaration
// go doc finds, and a name go doc can link is written as a doc link, so
// that a rename that leaves a doc behind fails here.
func TestDocNames(t *testing.T) {
	mod, pkgs, err := Module("../..")
	if err != nil {
		t.Fatal(err)
	}
	api := NewAPI("../..")
	// Internal packages are not named in public docs at all: TestLayering
	// (ExportedMentions) says so.
	internal := func(path string) bool { return strings.HasPrefix(path, mod+"/internal/") }
	var paths []string
	for path := range pkgs {
		if path == mod+"/debredist" || strings.HasPrefix(path, mod+"/debredist/") {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	if len(paths) < 10 {
		t.Fatalf("public packages: %v", paths)
	}
	for _, path := range paths {
		probs, err := api.DocNames(path, internal)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range probs {
			t.Error(p)
		}
	}
}

// TestDocNamesFixture: the check finds each kind of wrong name, and none
// of the right ones (testdata/doclinks says which is which).
func TestDocNamesFixture(t *testing.T) {
	const path = "github.com/debredist/debredist/internal/depcheck/testdata/doclinks"
	probs, err := NewAPI("../..").DocNames(path, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range probs {
		got = append(got, p.Decl+": "+p.Text)
	}
	want := []string{
		"package doclinks: [T.Gone]",
		"package doclinks: [io.Gone]",
		"package doclinks: [nopkg.X]",
		"package doclinks: T.F",
		"package doclinks: T.Inner.Gone",
		"package doclinks: Nope.X",
		"package doclinks: [T]",
		"T.Inner: [Inner.Y]",
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		for _, p := range probs {
			t.Log(p)
		}
	}
}

// TestDocNamesMarkdown: the Go names README.md and docs/ write (not
// docs/CHANGES.md, whose entries name what was renamed) exist, read as
// the facade's docs read them: Options.Release, verify.Dir,
// internal/build's build.Package.
func TestDocNamesMarkdown(t *testing.T) {
	mod, _, err := Module("../..")
	if err != nil {
		t.Fatal(err)
	}
	api := NewAPI("../..")
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	for _, f := range files {
		if filepath.Base(f) == "CHANGES.md" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		probs, err := api.TextNames(mod+"/debredist", string(b))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range probs {
			t.Errorf("%s:%d: %s: %s", strings.TrimPrefix(f, "../../"), p.Pos.Line, p.Text, p.Why)
		}
	}
}
