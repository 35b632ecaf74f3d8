package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeClaims (issue 31 item 7): what the README says about the Go
// version, the exit status and the examples holds: the version is go.mod's
// go line, the exit status table is exitTable (issue 39), and
// every public package (debredist and its subpackages, not internal/) has
// a runnable Example.
func TestReadmeClaims(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	if want := "Go " + string(m[1]) + " or newer"; !strings.Contains(string(readme), want) {
		t.Errorf("README does not say %q (go.mod: go %s)", want, m[1])
	}
	// The exit status table is the one the commands use (exitTable).
	for _, e := range exitTable {
		if row := fmt.Sprintf("\n| %d | %s |\n", e.code, e.what); !strings.Contains(string(readme), row) {
			t.Errorf("README lacks the exit status row %q", strings.TrimSpace(row))
		}
	}
	if strings.Contains(string(readme), "runnable examples (`go doc") {
		t.Error("README says go doc shows the examples: it prints none")
	}
	err = filepath.WalkDir(filepath.Join(root, "debredist"), func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		srcs, _ := filepath.Glob(filepath.Join(p, "*.go"))
		hasCode, hasExample := false, false
		for _, f := range srcs {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if !strings.HasSuffix(f, "_test.go") {
				hasCode = true
			} else if regexp.MustCompile(`(?m)^func Example`).Match(b) {
				hasExample = true
			}
		}
		if hasCode && !hasExample {
			t.Errorf("public package %s has no runnable Example (the README says every one has)", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
