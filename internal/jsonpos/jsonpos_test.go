package jsonpos

import (
	"errors"
	"fmt"
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
		{"{\n  \"name\": ©\n}", `p.json:2:11: invalid character '©' looking for beginning of value`},
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
		`{"inner": {"name": "x", "nmae": 1}}`:                     `p.json:1:25: unknown field "nmae" in inner (known here: count, name, repos)`,
		`{"list": [{"name": "a"}, {"repos": [], "cnt": 2}]}`:      `p.json:1:40: unknown field "cnt" in list[1] (known here: count, name, repos)`,
		`{"map": {"k": {"x": 1}}, "name": "n"}`:                   `p.json:1:16: unknown field "x" in map.k (known here: count, name, repos)`,
		`{"list": [{"name": "a"}], "inner": {}, "extra": [1, 2]}`: `p.json:1:40: unknown field "extra" (known here: inner, list, map, name)`,
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
		{`{"c": {"p": [{"x": 1, "x": 1}]}}`, `f.json:1:23: duplicate key "x" in object c.p[]`},
		{`{"a": 1,`, ""},
	} {
		err := DuplicateKey("f.json", []byte(tc.in))
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}
