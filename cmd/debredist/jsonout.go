package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
)

// Every --json output is one JSON object whose first key, "schema", names
// its format and version ("debredist.plan/v1"); the formats are documented
// in docs/json.md and pinned by TestJSONSchemas. Within a version, fields
// are only ever added. Lists are always present ([] when empty), and
// optional flags never change the shape: what they do not compute is null.

// schemaVersions are the formats past v1: convert/v2 has warnings as
// objects with codes, verify/v2 spells cuda_variant "12" as plan, convert
// and the provenance do (issue 31).
var schemaVersions = map[string]string{"convert": "v2", "verify": "v2"}

// schemaName is the "schema" value of a command's --json output.
func schemaName(command string) string {
	v := schemaVersions[command]
	if v == "" {
		v = "v1"
	}
	return "debredist." + command + "/" + v
}

// writeDoc prints v (a struct, or a pointer to one) as a JSON object with
// "schema" first, nil slices and maps as [] and {}, indented.
func writeDoc(w io.Writer, command string, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return fmt.Errorf("writeDoc %s: nil result", command)
		}
	}
	body, err := marshal(fillNil(rv).Interface())
	if err != nil {
		return err
	}
	if len(body) < 2 || body[0] != '{' {
		return fmt.Errorf("writeDoc %s: %T is not a JSON object", command, v)
	}
	head, _ := marshal(schemaName(command))
	var doc bytes.Buffer
	doc.WriteString(`{"schema":`)
	doc.Write(head)
	if !bytes.Equal(bytes.TrimSpace(body), []byte("{}")) {
		doc.WriteByte(',')
	}
	doc.Write(body[1:])
	var out bytes.Buffer
	if err := json.Indent(&out, doc.Bytes(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

// fillNil returns a copy of v in which every nil slice is empty and every
// nil map is empty, at any depth (through structs, pointers, slices and
// maps), so that lists are [] and never null.
func fillNil(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(fillNil(v.Elem()))
		return p
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(fillNil(v.Elem()))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if f := out.Field(i); f.CanSet() {
				f.Set(fillNil(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			if v.Type().Elem().Kind() == reflect.Uint8 {
				return v // []byte is a string in JSON
			}
			return reflect.MakeSlice(v.Type(), 0, 0)
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(fillNil(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return reflect.MakeMap(v.Type())
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			out.SetMapIndex(it.Key(), fillNil(it.Value()))
		}
		return out
	}
	return v
}
