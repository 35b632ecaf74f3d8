// Package jsonpos is debredist's one reader of JSON input: profiles, lock
// files and inventories a user hands it, the manifests, provenance
// sidecars and SBOM documents it reads back from an output directory, and
// its own cache records all go through Decode. The decoding is
// github.com/go-json-experiment/json's (encoding/json/v2), strict: keys
// match case-sensitively, a key given twice in one object is an error, so
// is invalid UTF-8 and anything after the value; unknown keys are errors
// unless the caller allows them (AllowUnknown). On top of the library,
// jsonpos bounds the input (ReadAll: its size; MaxDepth: its nesting, with
// work linear in the input) and reports what is wrong the way a person
// reads a file: line and column, the field, and what was expected, in
// words (never a Go type name), quoting at most a bounded prefix of any
// value it names (Quote).
package jsonpos

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// MaxDepth bounds the nesting of arrays and objects in a JSON input: the
// deepest debredist writes or reads is about ten levels.
const MaxDepth = 64

// Error is a JSON input that could not be decoded.
type Error struct {
	File   string // as given by the caller; "" when decoding a value of no file
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based, in bytes; 0 when unknown
	Msg    string // what is wrong, and what was expected
}

func (e *Error) Error() string {
	switch {
	case e.Line == 0 && e.File == "":
		return e.Msg
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.File == "":
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// Option changes what Decode accepts.
type Option int

// AllowUnknown makes Decode ignore object keys the Go type has no field
// for (formats whose later versions add fields: the provenance sidecar,
// SBOM documents); everything else stays strict.
const AllowUnknown Option = 1

// ReadAll reads r, the content of file, whole: at most max bytes. A longer
// input is an *Error saying so, never a JSON value cut short.
func ReadAll(file string, r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	if int64(len(b)) > max {
		return nil, TooLarge(file, max)
	}
	return b, nil
}

// TooLarge is the *Error of a file larger than max bytes.
func TooLarge(file string, max int64) *Error {
	return &Error{File: file, Msg: fmt.Sprintf("too large: more than %d bytes (%s), not read", max, humanBytes(max))}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Decode decodes data, the content of file, into v: keys matched
// case-sensitively, a key twice in one object, invalid UTF-8, nesting
// deeper than MaxDepth, anything after the value and (without
// AllowUnknown) unknown keys are errors. A failure is an *Error locating
// it; an error of v's own UnmarshalJSON is located at the value it read.
func Decode(file string, data []byte, v any, opts ...Option) error {
	if err := scan(file, data); err != nil {
		return err
	}
	err := json.Unmarshal(data, v, json.RejectUnknownMembers(!slices.Contains(opts, AllowUnknown)))
	if err != nil {
		return describe(file, data, reflect.TypeOf(v), err)
	}
	return nil
}

// Unmarshal decodes a part of a file that an UnmarshalJSON method reads,
// as strictly as Decode: its error is returned unwrapped by the method,
// and the Decode of the whole file locates it.
func Unmarshal(data []byte, v any, opts ...Option) error {
	return json.Unmarshal(data, v, json.RejectUnknownMembers(!slices.Contains(opts, AllowUnknown)))
}

// scan checks the syntax of data, with no key twice in one object, and
// its depth, in one pass linear in its length.
func scan(file string, data []byte) error {
	if len(bytes.TrimLeft(data, " \t\r\n")) == 0 {
		return &Error{File: file, Msg: "the file is empty (want a JSON object)"}
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		before := dec.InputOffset()
		_, err := dec.ReadToken()
		if err != nil {
			return describe(file, data, nil, err)
		}
		if dec.StackDepth() > MaxDepth {
			return At(file, data, before+int64(len(data[before:])-len(bytes.TrimLeft(data[before:], " \t\r\n,:"))),
				"nested deeper than %d arrays and objects", MaxDepth)
		}
		if dec.StackDepth() == 0 {
			break
		}
	}
	end := dec.InputOffset()
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		return At(file, data, int64(len(data)-len(rest)), "unexpected data after the JSON value (want one value per file)")
	}
	return nil
}

// At returns an *Error at byte offset off of data.
func At(file string, data []byte, off int64, format string, a ...any) *Error {
	line, col := position(data, off)
	return &Error{File: file, Line: line, Column: col, Msg: fmt.Sprintf(format, a...)}
}

// describe turns an error of the library decoding data into a value of
// type t into an *Error. Errors that are not about the JSON are returned
// as they are.
func describe(file string, data []byte, t reflect.Type, err error) error {
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.As(err, &syn):
		off := syn.ByteOffset
		switch {
		case errors.Is(syn.Err, io.ErrUnexpectedEOF) || errors.Is(syn.Err, io.EOF):
			return At(file, data, int64(len(data)), "the JSON ends before the value is complete (the file is cut short?)")
		case errors.Is(syn.Err, jsontext.ErrDuplicateName):
			return At(
				file,
				data,
				off,
				"duplicate key %s in %s",
				Quote(syn.JSONPointer.LastToken()),
				objectName(t, syn.JSONPointer.Parent()),
			)
		case strings.Contains(syn.Err.Error(), "invalid UTF-8"):
			return At(file, data, off, "invalid UTF-8 (the file must be UTF-8 text)")
		}
		msg := strings.TrimPrefix(syn.Err.Error(), "jsontext: ")
		if rest, ok := strings.CutPrefix(msg, "invalid character "); ok && off < int64(len(data)) {
			// the library quotes one byte; show the whole character
			if _, tail, ok := strings.Cut(rest[1:], "' "); ok {
				r, _ := utf8.DecodeRune(data[off:])
				msg = fmt.Sprintf("invalid character %q %s", r, tail)
			}
		}
		return At(file, data, off, "%s", msg)
	case errors.As(err, &sem):
		off := sem.ByteOffset
		switch {
		case errors.Is(sem.Err, json.ErrUnknownName):
			name := sem.JSONPointer.LastToken()
			msg := "unknown field " + Quote(name)
			if where := pathOf(t, sem.JSONPointer.Parent()); where != "" {
				msg += " in " + where
			}
			if fields := Fields(reflect.New(deref(sem.GoType)).Interface()); len(fields) > 0 {
				msg += " (known here: " + strings.Join(fields, ", ") + ")"
			}
			return At(file, data, off, "%s", msg)
		case sem.Err != nil && (sem.JSONKind == 0 || sem.GoType == nil || !isSyntaxOfNumber(sem.Err)):
			// an UnmarshalJSON method's own error: its words, located
			var inner *Error
			if errors.As(sem.Err, &inner) {
				return At(file, data, off, "%s", inner.Msg)
			}
			return At(file, data, off, "%s", sem.Err)
		case sem.GoType != nil: // a value of the wrong kind (a malformed number included)
			return At(
				file,
				data,
				off,
				"%s: want %s, got %s",
				fieldName(t, sem.JSONPointer),
				Kind(sem.GoType),
				kindOf(sem.JSONKind, sem.JSONValue),
			)
		}
		return At(file, data, off, "%s", strings.TrimPrefix(sem.Error(), "json: "))
	}
	return err
}

// isSyntaxOfNumber reports an error of parsing a JSON number into a Go
// number (a fraction into an integer, an integer out of range).
func isSyntaxOfNumber(err error) bool {
	return errors.Is(err, strconv.ErrSyntax) || errors.Is(err, strconv.ErrRange) ||
		strings.Contains(err.Error(), "invalid syntax") || strings.Contains(err.Error(), "out of range")
}

// kindOf words a JSON kind (and a number's value) as a noun.
func kindOf(k jsontext.Kind, v jsontext.Value) string {
	switch k {
	case '"':
		return "a string"
	case '0':
		if len(v) > 0 && len(v) <= 32 {
			return "the number " + string(v)
		}
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "something else"
}

// fieldName words where a value is: `field "rules.rules[1].match"`, or
// the top-level value.
func fieldName(t reflect.Type, p jsontext.Pointer) string {
	if p == "" {
		return "the top-level value"
	}
	return "field " + strconv.Quote(pathOf(t, p))
}

// objectName words the object at p: `object rules.rules[1]`, or the
// top-level object.
func objectName(t reflect.Type, p jsontext.Pointer) string {
	if p == "" {
		return "the top-level object"
	}
	return "object " + pathOf(t, p)
}

var plainKeyRE = regexp.MustCompile(`^[A-Za-z0-9_+-]+$`)

// pathOf writes a JSON pointer the way the files are read: keys joined by
// dots, array indexes in brackets ("rules.rules[1]"). Whether a number is
// an index or a key is told by t, the Go type decoded into, where it
// says; else by the token's shape. Odd keys are quoted, bounded.
func pathOf(t reflect.Type, p jsontext.Pointer) string {
	var b strings.Builder
	t = deref(t)
	for tok := range p.Tokens() {
		index := false
		var next reflect.Type
		switch {
		case t == nil || t.Kind() == reflect.Interface:
			_, err := strconv.Atoi(tok)
			index = err == nil && !strings.HasPrefix(tok, "+") && !strings.HasPrefix(tok, "-")
		case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
			index, next = true, t.Elem()
		case t.Kind() == reflect.Map:
			next = t.Elem()
		case t.Kind() == reflect.Struct:
			next = fieldByKey(t, tok)
		}
		switch {
		case index:
			b.WriteString("[" + tok + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			if plainKeyRE.MatchString(tok) && len(tok) <= 64 {
				b.WriteString(tok)
			} else {
				b.WriteString(Quote(tok))
			}
		}
		t = deref(next)
	}
	return b.String()
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// fieldByKey returns the type of t's field whose JSON key is key (the
// fields of embedded structs included), nil when none is.
func fieldByKey(t reflect.Type, key string) reflect.Type {
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || f.Anonymous && name == "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Type
		}
	}
	return nil
}

// Kind says in words what JSON a Go type is read from.
func Kind(t reflect.Type) string {
	t = deref(t)
	if t == nil {
		return "a value"
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

// Fields lists the JSON field names of the struct v points to (top level).
func Fields(v any) []string {
	t := deref(reflect.TypeOf(v))
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	out := jsonNames(nil, t, 0)
	slices.Sort(out)
	return slices.Compact(out)
}

// jsonNames appends the JSON names of struct type t's fields as they are
// read: a tagged name, else the Go name; an embedded struct without a tag
// name is inlined (its fields are t's), at most a few levels deep.
func jsonNames(out []string, t reflect.Type, depth int) []string {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		ft := deref(f.Type)
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

// MaxQuote is how much of a value an error message quotes.
const MaxQuote = 200

// Quote quotes a value read from input for an error message (Go syntax,
// so that control characters and odd bytes show as escapes): the whole
// value when it is at most MaxQuote bytes, else its first MaxQuote bytes
// (cut at a character boundary) followed by "… (N bytes)".
func Quote(s string) string {
	if len(s) <= MaxQuote {
		return strconv.Quote(s)
	}
	cut := MaxQuote
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
}
