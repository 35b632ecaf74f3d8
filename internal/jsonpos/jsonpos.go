// Package jsonpos decodes JSON files strictly and reports what is wrong
// with them the way a person reads a file: line and column, the field, and
// what was expected, in words (never a Go type name).
//
// It is for files a user hands to debredist (profiles, lock files,
// inventories); it is not a JSON parser of its own: encoding/json does the
// decoding, jsonpos only locates and words its errors.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Error is a JSON input that could not be decoded.
type Error struct {
	File   string // as given by the caller
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based, in bytes; 0 when unknown
	Msg    string // what is wrong, and what was expected
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// Decode decodes data, the content of file, into v: unknown fields and
// anything after the value are errors. A failure is an *Error locating it.
func Decode(file string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Describe(file, data, v, err)
	}
	if off := dec.InputOffset(); len(bytes.TrimSpace(data[off:])) > 0 {
		rest := off + int64(len(data[off:])-len(bytes.TrimLeft(data[off:], " \t\r\n")))
		return At(file, data, rest, "unexpected data after the JSON value (want one value per file)")
	}
	return nil
}

// At returns an *Error at byte offset off of data.
func At(file string, data []byte, off int64, format string, a ...any) *Error {
	line, col := position(data, off)
	return &Error{File: file, Line: line, Column: col, Msg: fmt.Sprintf(format, a...)}
}

var unknownFieldRE = regexp.MustCompile(`^json: unknown field "(.*)"$`)

// Describe turns an error of encoding/json decoding data into v into an
// *Error. Errors that are not about the JSON (a failed read) are returned
// as they are.
func Describe(file string, data []byte, v any, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off := max(se.Offset-1, 0) // Offset is after the offending byte
		msg := strings.TrimPrefix(se.Error(), "json: ")
		if rest, ok := strings.CutPrefix(msg, "invalid character "); ok && off < int64(len(data)) {
			// encoding/json quotes one byte; show the whole character.
			if _, tail, ok := strings.Cut(rest[1:], "' "); ok {
				r, _ := utf8.DecodeRune(data[off:])
				msg = fmt.Sprintf("invalid character %q %s", r, tail)
			}
		}
		return At(file, data, off, "%s", msg)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		if len(bytes.TrimSpace(data)) == 0 {
			return &Error{File: file, Msg: "the file is empty (want a JSON object)"}
		}
		return At(file, data, int64(len(data)), "the JSON ends before the value is complete (the file is cut short?)")
	case errors.As(err, &te):
		where := "the top-level value"
		if field := jsonField(reflect.TypeOf(v), te.Field); field != "" {
			where = fmt.Sprintf("field %q", field)
		}
		// Offset is just inside an array or object, after any other value.
		start := te.Offset - 1
		if te.Value != "array" && te.Value != "object" {
			start = valueStart(data, te.Offset)
		}
		return At(file, data, start, "%s: want %s, got %s", where, Kind(te.Type), article(te.Value))
	}
	if m := unknownFieldRE.FindStringSubmatch(err.Error()); m != nil {
		msg := fmt.Sprintf("unknown field %q", m[1])
		// The key is looked for where it is unknown: in the object (maybe
		// nested, "rules" in a profile) whose Go struct lacks it, whose
		// own keys are then the ones known here.
		where, fields, off := unknownKey(data, reflect.TypeOf(v), m[1])
		if off < 0 {
			fields, off = Fields(v), KeyOffset(data, m[1])
		}
		if where != "" {
			msg += " in " + where
		}
		if len(fields) > 0 {
			msg += " (known here: " + strings.Join(fields, ", ") + ")"
		}
		if off >= 0 {
			return At(file, data, off, "%s", msg)
		}
		return &Error{File: file, Msg: msg}
	}
	return err
}

// Kind says in words what JSON a Go type is read from.
func Kind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a JSON value"
}

// article words one of encoding/json's value descriptions ("string",
// "number", "number -1", "array", "object", "bool").
func article(v string) string {
	switch {
	case v == "array" || v == "object":
		return "an " + v
	case v == "bool":
		return "true or false"
	case v == "":
		return "something else"
	}
	return "a " + v
}

// Fields lists the JSON field names of the struct v points to (top level).
func Fields(v any) []string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	out := jsonNames(nil, t, 0)
	slices.Sort(out)
	return slices.Compact(out)
}

// jsonNames appends the JSON names of struct type t's fields as
// encoding/json reads them: a tagged name, else the Go name; an embedded
// struct without a tag name is inlined (its fields are t's), at most a few
// levels deep (a type that embeds itself through a pointer stops there).
func jsonNames(out []string, t reflect.Type, depth int) []string {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			if depth < 8 {
				out = jsonNames(out, ft, depth+1)
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// valueStart finds where the value that ends at end begins: encoding/json
// reports type errors after reading the value.
func valueStart(data []byte, end int64) int64 {
	end = min(end, int64(len(data)))
	// Walk back over the value to the ':' , '[' or ',' before it.
	depth := 0
	inStr := false
	for i := end - 1; i >= 0; i-- {
		c := data[i]
		switch {
		case inStr:
			if c == '"' && (i == 0 || data[i-1] != '\\') {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == ']' || c == '}':
			depth++
		case c == '[' || c == '{':
			if depth == 0 {
				return i + 1
			}
			depth--
		case (c == ':' || c == ',') && depth == 0:
			j := i + 1
			for j < end && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
				j++
			}
			return j
		}
	}
	return 0
}

// KeyOffset returns the offset of the first object key named name (a
// heuristic: the first "name" followed by a colon), or -1.
func KeyOffset(data []byte, name string) int64 {
	q, _ := json.Marshal(name)
	re := regexp.MustCompile(regexp.QuoteMeta(string(q)) + `\s*:`)
	if loc := re.FindIndex(data); loc != nil {
		return int64(loc[0])
	}
	return -1
}

// jsonField is encoding/json's path of a field without the Go names of
// the embedded structs on the way ("Profile.l4t" is the l4t key of an
// embedded Profile): it follows path through t, dropping each segment that
// names an embedded field.
func jsonField(t reflect.Type, path string) string {
	var keep []string
	for _, seg := range strings.Split(path, ".") {
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			keep, t = append(keep, seg), nil
			continue
		}
		if f, ok := t.FieldByName(seg); ok && f.Anonymous {
			t = f.Type // an embedded struct: not a JSON key
			continue
		}
		keep = append(keep, seg)
		t = fieldByKey(t, seg)
	}
	return strings.Join(keep, ".")
}

// fieldByKey returns the type of t's field whose JSON key is key, nil when
// none is.
func fieldByKey(t reflect.Type, key string) reflect.Type {
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if name == key && !f.Anonymous {
			return f.Type
		}
	}
	return nil
}

// unknownKey finds the first object key name in data that the Go type the
// object is read into does not have: it returns the object's JSON path
// ("rules", "rules.rules[2]"; "" at the top), that struct's JSON field
// names and the key's byte offset, or off -1 when there is none (a type
// with its own UnmarshalJSON, or data that does not parse).
func unknownKey(data []byte, t reflect.Type, name string) (where string, fields []string, off int64) {
	deref := func(t reflect.Type) reflect.Type {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		return t
	}
	type frame struct {
		t       reflect.Type // the Go type of this object or array (nil: not known)
		path    string
		array   bool
		key     bool         // object: the next token is a key
		index   int          // array: the next element's index
		valT    reflect.Type // object: the type and path of the value after the key
		valPath string
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", nil, -1
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return "", nil, -1
			}
			continue
		}
		if k, ok := tok.(string); ok && top != nil && !top.array && top.key {
			top.key = false
			top.valT, top.valPath = nil, strings.TrimPrefix(top.path+"."+k, ".")
			switch ot := top.t; {
			case ot == nil:
			case ot.Kind() == reflect.Map:
				top.valT = deref(ot.Elem())
			case ot.Kind() == reflect.Struct:
				if _, custom := reflect.PointerTo(ot).MethodByName("UnmarshalJSON"); custom {
					break
				}
				ft := fieldByKey(ot, k)
				if ft == nil && k == name {
					end := dec.InputOffset()
					start := int64(bytes.LastIndexByte(data[:max(end-1, 0)], '"'))
					return top.path, Fields(reflect.New(ot).Interface()), start
				}
				top.valT = deref(ft)
			}
			continue
		}
		// A value: its type and path, then the container moves on.
		vt, vp := deref(t), ""
		if top != nil {
			if top.array {
				vp = fmt.Sprintf("%s[%d]", top.path, top.index)
				vt = nil
				if top.t != nil && (top.t.Kind() == reflect.Slice || top.t.Kind() == reflect.Array) {
					vt = deref(top.t.Elem())
				}
				top.index++
			} else {
				vt, vp = top.valT, top.valPath
				top.key = true
			}
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &frame{t: vt, path: vp, array: d == '[', key: d == '{'})
		} else if top == nil {
			return "", nil, -1
		}
	}
}

// DuplicateKey returns an *Error locating the first key that appears
// twice in one object of data (encoding/json keeps the last silently, so
// the same file reads differently to other parsers), naming the key and
// the object (its keys from the top, "." between them), or nil. Malformed
// JSON is left to the decoder.
func DuplicateKey(file string, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys    map[string]bool // nil for an array
		expect  bool            // the next string token is a key
		path    string
		lastKey string
	}
	var stack []*frame
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or malformed: the decoder says so
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if k, ok := tok.(string); ok && top != nil && top.keys != nil && top.expect {
			if top.keys[k] {
				where := "the top-level object"
				if top.path != "" {
					where = "object " + top.path
				}
				// off is before the separator; the key starts after it
				return At(file, data, off+int64(bytes.IndexByte(data[off:], '"')), "duplicate key %q in %s", k, where)
			}
			top.keys[k], top.expect, top.lastKey = true, false, k
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			f := &frame{}
			switch {
			case top == nil:
			case top.keys == nil:
				f.path = top.path + "[]"
			case top.path == "":
				f.path = top.lastKey
			default:
				f.path = top.path + "." + top.lastKey
			}
			if tok == json.Delim('{') {
				f.keys, f.expect = map[string]bool{}, true
			}
			stack = append(stack, f)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].expect = true // a value ended: a key comes next
		}
	}
}
