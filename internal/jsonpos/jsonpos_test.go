package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

type sample struct {
	Name  string   `json:"name"`
	Repos []string `json:"repos"`
	Count int      `json:"count,omitempty"`
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"", `p.json: the file is empty (want a JSON object)`},
		{"{\n  \"name\": \"x\",\n", `p.json:3:1: the JSON ends before the value is complete (the file is cut short?)`},
		{"{\n  \"name\": ©\n}", `p.json:2:11: invalid character '©' at start of value`},
		{"{\"hello\": \"world\"}", `p.json:1:2: unknown field "hello" (known here: count, name, repos)`},
		{"{\n \"repos\": \"common\"\n}", `p.json:2:11: field "repos": want an array, got a string`},
		{"{\"count\": \"3\"}", `p.json:1:11: field "count": want an integer, got a string`},
		{"[1, 2]", `p.json:1:1: the top-level value: want an object, got an array`},
		{"{\"name\": \"x\"}\n{}", `p.json:2:1: unexpected data after the JSON value (want one value per file)`},
	} {
		var s sample
		err := Decode("p.json", []byte(tc.in), &s)
		var je *Error
		if !errors.As(err, &je) || err.Error() != tc.want {
			t.Errorf("Decode(%q) = %v\n want %s", tc.in, err, tc.want)
		}
	}
	// An embedded struct's Go name is not part of the JSON path.
	type wrapped struct {
		Schema string `json:"schema"`
		sample
		Inner sample `json:"inner"`
	}
	var w wrapped
	for in, want := range map[string]string{
		`{"name": 5}`:              `p.json:1:10: field "name": want a string, got a number`,
		`{"inner": {"count": ""}}`: `p.json:1:21: field "inner.count": want an integer, got a string`,
		// Its fields are listed as the JSON has them, not its Go name.
		`{"other": 1}`: `p.json:1:2: unknown field "other" (known here: count, inner, name, repos, schema)`,
	} {
		if err := Decode("p.json", []byte(in), &w); err == nil || err.Error() != want {
			t.Errorf("Decode(%s) = %v\n want %s", in, err, want)
		}
	}
	// An unknown key inside a nested object names that object and its own
	// keys, not the top level's (issue 31 item 4).
	type nested struct {
		Name  string            `json:"name"`
		Inner *sample           `json:"inner"`
		List  []sample          `json:"list"`
		Map   map[string]sample `json:"map"`
	}
	for in, want := range map[string]string{
		`{"inner": {"name": "x", "nmae": 1}}`: `p.json:1:25: unknown field "nmae" in inner ` +
			`(known here: count, name, repos)`,
		`{"list": [{"name": "a"}, {"repos": [], "cnt": 2}]}`: `p.json:1:40: unknown field "cnt" in list[1] ` +
			`(known here: count, name, repos)`,
		`{"map": {"k": {"x": 1}}, "name": "n"}`: `p.json:1:16: unknown field "x" in map.k ` +
			`(known here: count, name, repos)`,
		`{"list": [{"name": "a"}], "inner": {}, "extra": [1, 2]}`: `p.json:1:40: unknown field "extra" ` +
			`(known here: inner, list, map, name)`,
	} {
		var n nested
		if err := Decode("p.json", []byte(in), &n); err == nil || err.Error() != want {
			t.Errorf("Decode(%s) = %v\n want %s", in, err, want)
		}
	}
	var s sample
	if err := Decode("p.json", []byte(`{"name": "ok", "repos": ["a"]}`), &s); err != nil || s.Name != "ok" {
		t.Errorf("valid input: %v %+v", err, s)
	}
}

// TestDuplicateKey: a key twice in one object is found, located and
// named with its object; the same key in different objects is not.
func TestDuplicateKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}]}`, ""},
		{`{"a": 1, "a": 2}`, `f.json:1:10: duplicate key "a" in the top-level object`},
		{"{\n \"c\": {\"v\": \"1\",\n  \"v\": \"2\"}}", `f.json:3:3: duplicate key "v" in object c`},
		{`{"c": {"p": [{"x": 1, "x": 1}]}}`, `f.json:1:23: duplicate key "x" in object c.p[0]`},
	} {
		var v any
		err := Decode("f.json", []byte(tc.in), &v)
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestStrict: what encoding/json took silently is an error naming the
// file, line and column: a key in another case, a key twice in a struct,
// invalid UTF-8, nesting past MaxDepth (issue 37).
func TestStrict(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"Name": "x"}`, `p.json:1:2: unknown field "Name" (known here: count, name, repos)`},
		{`{"name": "x", "name": "y"}`, `p.json:1:15: duplicate key "name" in the top-level object`},
		{"{\"name\": \"a\xffb\"}", `p.json:1:12: invalid UTF-8 (the file must be UTF-8 text)`},
		{`{"count": 1.5}`, `p.json:1:11: field "count": want an integer, got the number 1.5`},
		{
			`{"repos": [` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `]}`,
			`p.json:1:74: nested deeper than 64 arrays and objects`,
		},
	} {
		var s sample
		if err := Decode("p.json", []byte(tc.in), &s); fmt.Sprint(err) != tc.want {
			t.Errorf("Decode(%.80q) = %v\n want %s", tc.in, err, tc.want)
		}
	}
	var s sample
	if err := Decode("p.json", []byte(`{"hello": 1, "name": "x"}`), &s, AllowUnknown); err != nil || s.Name != "x" {
		t.Errorf("AllowUnknown: %v %+v", err, s)
	}
	var folded sample
	if err := Decode("p.json", []byte(`{"Name": "x"}`), &folded, AllowUnknown); err != nil || folded.Name != "" {
		t.Errorf("AllowUnknown: %v %+v (a key in another case is another key)", err, folded)
	}
}

// TestDeepLinear: deep nesting is refused at MaxDepth in time and memory
// linear in the input: the 60 KB and 2 MB inputs of issue 37 (0.9 GB and
// 13.7 GB before) take a few kilobytes more than their size.
func TestDeepLinear(t *testing.T) {
	for _, n := range []int{30000, 1 << 20} {
		for _, open := range []string{"[", `{"a":`} {
			closing := map[string]string{"[": "]", `{"a":`: "}"}[open]
			data := []byte(strings.Repeat(open, n) + "1" + strings.Repeat(closing, n))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var v any
			err := Decode("deep.json", data, &v)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), "nested deeper than 64") {
				t.Errorf("%d x %s: %v", n, open, err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20+uint64(len(data)) {
				t.Errorf("%d x %s: %d bytes allocated for %d bytes of input", n, open, alloc, len(data))
			}
		}
	}
}

func TestReadAllAndQuote(t *testing.T) {
	if _, err := ReadAll("big.json", strings.NewReader(strings.Repeat(" ", 11)), 10); fmt.Sprint(
		err,
	) != "big.json: too large: more than 10 bytes (10 bytes), not read" {
		t.Errorf("ReadAll: %v", err)
	}
	if b, err := ReadAll("ok.json", strings.NewReader("{}"), 2); err != nil || string(b) != "{}" {
		t.Errorf("ReadAll: %q %v", b, err)
	}
	if q := Quote("a\x00b"); q != `"a\x00b"` {
		t.Errorf("Quote = %s", q)
	}
	long := strings.Repeat("é", 300) // 600 bytes
	if q := Quote(long); q != strconv.Quote(strings.Repeat("é", 100))+"… (600 bytes)" {
		t.Errorf("Quote(600 bytes) = %s", q)
	}
}

// FuzzDecode: whatever the input, Decode returns (no panic), an error is
// an *Error with a position inside the input, and what it accepts
// encoding/json accepts too.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"name": "x", "repos": ["a"]}`,
		`{"a": 1, "a": 2}`,
		`[[[[]]]]`,
		"{\"name\": \"\xff\"}",
		`{"count": -0}`,
		`{"inner": {"name": 1}}`,
		``,
		`{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, v := range []any{new(sample), new(any), new(map[string]json.RawMessage)} {
			err := Decode("f.json", data, v)
			if err == nil {
				if !json.Valid(data) {
					t.Fatalf("accepted invalid JSON %q", data)
				}
				continue
			}
			var je *Error
			if !errors.As(err, &je) {
				t.Fatalf("%q: %T %v is not an *Error", data, err, err)
			}
			if je.Line > bytes.Count(data, []byte("\n"))+1 {
				t.Fatalf("%q: line %d past the input", data, je.Line)
			}
		}
	})
}
