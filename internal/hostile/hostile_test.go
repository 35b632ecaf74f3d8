package hostile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

const corpus = "../../testdata/hostile"

// TestCasesWellFormed checks the labels: unique names and files, a reason
// for every case, an error kind for every reject, and the coverage the
// corpus promises.
func TestCasesWellFormed(t *testing.T) {
	cs, err := Load(corpus)
	if err != nil {
		t.Fatal(err)
	}
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
		case c.Kind == KindProfile && (c.Expect != Reject || c.Error != ErrProfileInvalid || c.Field == ""):
			t.Errorf("%s: a profile case is a reject of kind %s naming a field", c.Name, ErrProfileInvalid)
		}
		if c.Kind == KindDeb && !strings.HasSuffix(c.File, ".deb") {
			t.Errorf("%s: deb file %s", c.Name, c.File)
		}
		count[c.Kind+"/"+c.Expect]++
	}
	// The corpus: 85 debs (19 accepted), 22 indexes (8 refused), 12
	// profiles. A case removed by accident fails here; a new one updates it.
	want := map[string]int{"deb/accept": 19, "deb/reject": 66, "index/accept": 14, "index/reject": 8, "profile/reject": 12}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("cases by kind/verdict: %v, want %v", count, want)
	}
	for _, must := range []string{
		"traversal-dotdot", "traversal-dot-dotdot", "traversal-inner", "absolute-file",
		"symlink-out-relative-write-through", "hardlink-outside", "hardlink-missing", "char-device", "fifo",
		"setuid-file", "file-replaces-dir", "dir-replaces-file", "duplicate-different-content", "xz-bomb-limited",
		"xz-bomb-default", "truncated-xz", "truncated-zstd", "truncated-gzip", "corrupt-xz", "corrupt-zstd",
		"corrupt-gzip", "tar-size-larger", "garbage-after-data", "wrong-debian-binary", "missing-debian-binary",
		"members-out-of-order", "missing-control", "missing-data", "unknown-compression-suffix",
		"ar-size-non-numeric", "ar-size-past-eof", "odd-member-padded", "odd-member-unpadded", "long-name-pax",
		"long-name-gnu", "nul-in-name", "lookalike-unicode", "index-crlf", "index-continuation-lines",
		"index-duplicates-epochs-tildes", "index-missing-sha256", "index-nonhex-sha256", "index-nonnumeric-size",
		"index-empty", "index-binary-garbage", "index-truncated-xz", "profile-product-traversal",
		"profile-pname-traversal", "profile-pname-absolute", "profile-pname-nul", "profile-pname-long",
		"profile-pname-lookalike",
	} {
		if !names[must] {
			t.Errorf("corpus lacks %s", must)
		}
	}
}

// TestCorpusIsText: testdata/hostile holds only text a diff shows (its
// README and txtar archives of UTF-8 without NUL or CR); every byte
// sequence that is not text is generated.
func TestCorpusIsText(t *testing.T) {
	ents, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "README.md" && filepath.Ext(e.Name()) != ".txtar" {
			t.Errorf("%s: only README.md and *.txtar belong in %s (generate bytes in internal/hostile)", e.Name(), corpus)
			continue
		}
		b, err := os.ReadFile(filepath.Join(corpus, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(b) || bytes.ContainsAny(b, "\x00\r") {
			t.Errorf("%s is not plain text (UTF-8 without NUL or CR)", e.Name())
		}
	}
}

// TestLoadRefusesMalformed: an archive that does not pair NAME.want with
// NAME's file, a label the corpus does not know, an archive whose name says
// no kind and two cases of one name are errors naming what is wrong.
func TestLoadRefusesMalformed(t *testing.T) {
	const ok = "-- index-x.want --\nreason: r\nexpect: accept\npackages: 0\nproblems: 0\n-- index-x.Packages --\n"
	for _, c := range []struct{ file, body, want string }{
		{"index-a.txtar", ok, ""},
		{"index-a.txtar", ok + "-- index-y.want --\nreason: r\n", "pairs"},
		{"index-a.txtar", "-- index-x.want --\nreason: r\n-- index-y.Packages --\n", "followed by NAME's file"},
		{"index-a.txtar", "-- index-x.want --\nreason: r\ncolour: red\n-- index-x.Packages --\n", `unknown key "colour"`},
		{"index-a.txtar", "-- index-x.want --\nreason: r\nreason: s\n-- index-x.Packages --\n", "line 2"},
		{"index-a.txtar", "-- index-x.want --\npackages: two\n-- index-x.Packages --\n", "line 1"},
		{"other.txtar", ok, "says no kind"},
		{"index-a.txtar", strings.ReplaceAll(ok, "index-x", "ok-baseline"), "two cases named ok-baseline"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		cs, err := Load(dir)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.body, err)
		case c.want == "" && len(cs) != len(Cases())+1:
			t.Errorf("%q: %d cases, want %d", c.body, len(cs), len(Cases())+1)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %q: %v, want an error saying %q", c.file, c.body, err, c.want)
		}
	}
}

// TestGenerate writes a generated deb, a generated index and a text case,
// and reads the labels back from cases.json.
func TestGenerate(t *testing.T) {
	all, err := Load(corpus)
	if err != nil {
		t.Fatal(err)
	}
	var cs []Case
	for _, c := range all {
		if c.Name == "ok-baseline" || c.Name == "index-crlf" || c.Name == "profile-pname-nul" {
			cs = append(cs, c)
		}
	}
	if len(cs) != 3 {
		t.Fatalf("%d of the 3 cases found", len(cs))
	}
	dir := t.TempDir()
	if err := Generate(dir, cs); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		got, err := os.ReadFile(filepath.Join(dir, c.File))
		if err != nil {
			t.Fatal(err)
		}
		want, err := c.Bytes()
		if err != nil || len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes written, want the case's %d (%v)", c.File, len(got), len(want), err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Cases []Case }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for i := range cs {
		cs[i].build = nil
	}
	if !reflect.DeepEqual(m.Cases, cs) {
		t.Errorf("%s lists %+v, want %+v", ManifestName, m.Cases, cs)
	}
}
