package apt

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// checkGolden compares v, marshalled as indented JSON, with testdata/name,
// or rewrites the file with -update.
func checkGolden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGoldenBytes(t, name, append(got, '\n'))
}

// stanza builds a valid Packages stanza with the given extra lines.
func stanza(name, version string, extra ...string) string {
	s := "Package: " + name + "\nVersion: " + version +
		"\nFilename: pool/main/" + name[:1] + "/" + name + "/" + name + "_" + version + "_arm64.deb" +
		"\nSize: 1234\nSHA256: 0518e4f42f59d8fcc9081c331cce28b87494f2d66ae3d88a6bec35aa4fdb89d1\n"
	for _, e := range extra {
		s += e + "\n"
	}
	return s
}

// lineOf returns the 1-based line on which marker starts in s.
func lineOf(t *testing.T, s, marker string) int {
	t.Helper()
	i := strings.Index(s, marker)
	if i < 0 {
		t.Fatalf("marker %q not in input", marker)
	}
	return strings.Count(s[:i], "\n") + 1
}

// checkGoldenBytes compares got with testdata/name, or rewrites it with
// -update.
func checkGoldenBytes(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run go test -update and review the diff):\n%s", path, got)
	}
}
