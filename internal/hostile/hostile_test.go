package hostile

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "regenerate testdata/hostile")

const corpus = "../../testdata/hostile"

// TestCorpusUpToDate regenerates the corpus into a temporary directory and
// compares it byte for byte with the committed one (run with -update, or go
// generate ./internal/hostile, after changing a case). It is also the
// determinism check: the committed bytes came from an earlier process.
func TestCorpusUpToDate(t *testing.T) {
	if *update {
		if err := Generate(corpus); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if err := Generate(dir); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("committed corpus has %d files, generator makes %d (go generate ./internal/hostile)", len(got), len(want))
	}
	for _, e := range want {
		a, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(corpus, e.Name()))
		if err != nil {
			t.Errorf("%s: %v (go generate ./internal/hostile)", e.Name(), err)
			continue
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from a fresh generation (go generate ./internal/hostile)", e.Name())
		}
	}
}

// TestCasesWellFormed checks the labels: unique names and files, a reason
// for every case, an error kind for every reject, and the coverage the
// corpus promises.
func TestCasesWellFormed(t *testing.T) {
	cs := Cases()
	names, files := map[string]bool{}, map[string]bool{}
	count := map[string]int{}
	for _, c := range cs {
		if names[c.Name] || files[c.File] {
			t.Errorf("%s: duplicate name or file %s", c.Name, c.File)
		}
		names[c.Name], files[c.File] = true, true
		if c.Reason == "" {
			t.Errorf("%s: no reason", c.Name)
		}
		switch {
		case c.Kind != KindDeb && c.Kind != KindIndex && c.Kind != KindProfile:
			t.Errorf("%s: kind %q", c.Name, c.Kind)
		case c.Expect == Reject && c.Error == "":
			t.Errorf("%s: reject without an error kind", c.Name)
		case c.Expect == Accept && c.Error != "":
			t.Errorf("%s: accept with an error kind", c.Name)
		case c.Expect != Reject && c.Expect != Accept:
			t.Errorf("%s: expect %q", c.Name, c.Expect)
		}
		if c.Kind == KindDeb && !strings.HasSuffix(c.File, ".deb") {
			t.Errorf("%s: deb file %s", c.Name, c.File)
		}
		count[c.Kind+"/"+c.Expect]++
	}
	if len(cs) < 40 {
		t.Errorf("%d cases, want >= 40", len(cs))
	}
	for _, k := range []string{"deb/reject", "deb/accept", "index/reject", "index/accept", "profile/reject"} {
		if count[k] == 0 {
			t.Errorf("no %s case", k)
		}
	}
	for _, must := range []string{"traversal-dotdot", "traversal-dot-dotdot", "traversal-inner", "absolute-file", "symlink-out-relative-write-through",
		"hardlink-outside", "hardlink-missing", "char-device", "fifo", "setuid-file", "file-replaces-dir", "dir-replaces-file",
		"duplicate-different-content", "xz-bomb-limited", "xz-bomb-default", "truncated-xz", "truncated-zstd", "truncated-gzip",
		"corrupt-xz", "corrupt-zstd", "corrupt-gzip", "tar-size-larger", "garbage-after-data", "wrong-debian-binary",
		"missing-debian-binary", "members-out-of-order", "missing-control", "missing-data", "unknown-compression-suffix",
		"ar-size-non-numeric", "ar-size-past-eof", "odd-member-padded", "odd-member-unpadded", "long-name-pax", "long-name-gnu",
		"nul-in-name", "lookalike-unicode", "index-crlf", "index-continuation-lines", "index-duplicates-epochs-tildes",
		"index-missing-sha256", "index-nonhex-sha256", "index-nonnumeric-size", "index-empty", "index-binary-garbage", "index-truncated-xz",
		"profile-product-traversal", "profile-pname-traversal", "profile-pname-absolute", "profile-pname-nul", "profile-pname-long", "profile-pname-lookalike"} {
		if !names[must] {
			t.Errorf("corpus lacks %s", must)
		}
	}
}

// TestLoad reads the committed manifest back.
func TestLoad(t *testing.T) {
	cs, err := Load(corpus)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != len(Cases()) {
		t.Fatalf("Load: %d cases, Cases: %d", len(cs), len(Cases()))
	}
	for _, c := range cs {
		if _, err := os.Stat(filepath.Join(corpus, c.File)); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}
