package deb822

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseStanza(t *testing.T) {
	st, err := ParseStanza(
		strings.NewReader("Package: cuda-cudart\r\nVersion:  12.6.68-1 \nDescription: CUDA\n runtime\n .\n more\n\n"),
		1<<10,
	)
	if err != nil {
		t.Fatal(err)
	}
	want := Stanza{
		Names:  []string{"Package", "Version", "Description"},
		Values: []string{"cuda-cudart", "12.6.68-1", "CUDA\nruntime\n\nmore"},
		Lines:  []int{1, 2, 3},
	}
	if !slices.Equal(st.Names, want.Names) || !slices.Equal(st.Values, want.Values) ||
		!slices.Equal(st.Lines, want.Lines) {
		t.Errorf("got %#v, want %#v", st, want)
	}
	for _, tt := range []struct{ in, msg string }{
		{"", "control syntax: line 0: no stanza (empty file or blank lines)"},
		{"\n \n", "control syntax: line 2: no stanza (empty file or blank lines)"},
		{"Package: a\npackage: b\n", `control syntax: line 2: duplicate field "package"`},
		{"Package: a\n\nPackage: b\n", "control syntax: line 3: more than one stanza (a second stanza starts here)"},
		{" continued\n", "control syntax: line 1: continuation line outside a field"},
		{"# comment\n", "control syntax: line 1: line starts with '#' (comments are not allowed in indexes)"},
		{"Package a\n", `control syntax: line 1: line without a colon: "Package a"`},
		{"Pack age: a\n", `control syntax: line 1: invalid field name "Pack age"`},
		{"Package: a\x00\n", "control syntax: line 1: control character 0x00 at column 11 (binary data?)"},
		{"Package: " + strings.Repeat("a", 64) + "\n", "control syntax: line 1: line longer than 32 bytes"},
		{"A: 1\nB: 2\nC: 3\nD: 4\nE: 5\nF: 6\nG: 7\n", "control syntax: line 7: stanza starting at line 1 exceeds 32 bytes"},
	} {
		_, err := ParseStanza(strings.NewReader(tt.in), 32)
		var se *SyntaxError
		if !errors.As(err, &se) || err.Error() != tt.msg {
			t.Errorf("%q: err = %v, want %q", tt.in, err, tt.msg)
		}
	}
}

// TestReader: paragraphs one at a time, their start lines, and text cut
// short in the middle of a line.
func TestReader(t *testing.T) {
	for _, tt := range []struct {
		in       string
		starts   []int
		cutShort bool
	}{
		{"A: 1\n\n\nB: 2\nC: 3\n", []int{1, 4}, false},
		{"\n\nA: 1\n \nB: 2\n\nC: 3\n", []int{3, 5, 7}, false},
		{"A: 1\n\nB: 2", []int{1, 3}, true},
		{"", nil, false},
	} {
		r := NewReader(strings.NewReader(tt.in), 1<<10)
		var starts []int
		var st Stanza
		for {
			ok, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			r.Decode(&st)
			starts = append(starts, r.Start())
		}
		if !slices.Equal(starts, tt.starts) {
			t.Errorf("%q: starts %v, want %v", tt.in, starts, tt.starts)
		}
		if r.CutShort() != tt.cutShort {
			t.Errorf("%q: CutShort = %v", tt.in, r.CutShort())
		}
	}
}

func TestField(t *testing.T) {
	f := map[string]string{"Package": "cudnn", "SHA256": "ab"}
	if Field(f, "Package") != "cudnn" || Field(f, "sha256") != "ab" || Field(f, "Version") != "" {
		t.Errorf("Field lookups wrong")
	}
}
