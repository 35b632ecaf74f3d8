package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/json-schemas.txt from the current --json outputs")

// dynamicKeys are objects whose keys are data (sha256s, output names,
// product names), not fields: their values' shape is described once as "*".
var dynamicKeys = regexp.MustCompile(
	`^(\.nix\.manifests(\.\*)*|\.nix\.(archives|packages|debs|provenance)|\.nix\.packages\.\*\.releases|\.fetch\.paths|` +
		`.*\.outputs|.*\.rules\.products|.*\.nixpkgs\.components\[\]\.outputs)$`,
)

// shape lists every path of a JSON value with its type, e.g.
// ".packages[].debs[].sha256 string"; arrays merge their elements.
func shape(v any, path string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		out[path+" object"] = true
		if dynamicKeys.MatchString(path) {
			for _, e := range x {
				shape(e, path+".*", out)
			}
			return
		}
		for k, e := range x {
			shape(e, path+"."+k, out)
		}
	case []any:
		out[path+" array"] = true
		for _, e := range x {
			shape(e, path+"[]", out)
		}
	case string:
		out[path+" string"] = true
	case float64:
		out[path+" number"] = true
	case bool:
		out[path+" bool"] = true
	case nil:
		out[path+" null"] = true
	}
}

// keySets records, per object path (arrays merged as in shape), the key
// set of every object found there.
func keySets(v any, path string, out map[string][]map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if dynamicKeys.MatchString(path) {
			for _, e := range x {
				keySets(e, path+".*", out)
			}
			return
		}
		keys := map[string]bool{}
		for k, e := range x {
			keys[k] = true
			keySets(e, path+"."+k, out)
		}
		out[path] = append(out[path], keys)
	case []any:
		for _, e := range x {
			keySets(e, path+"[]", out)
		}
	}
}

// optionalKeys are the fields docs/json.md documents as optional (absent
// when empty): every other field is in every object of its kind, whatever
// the flags and inputs. Profiles (and their rules) are in the --profile
// format, whose unset fields are absent.
var optionalKeys = map[string]bool{
	"cuda_variant": true, "from_cuda_variant": true, "to_cuda_variant": true, "from_platform": true, "to_platform": true,
	"architecture": true, "md5sum": true, "sha1": true, "description": true, "depends": true, "source_version": true,
	"provides": true, "nixpkgs_broken": true, "nar_hash": true, "repo": true, "problem": true, "from_problem": true,
}

// TestJSONSchemas pins the shape of every --json output (and that it
// names its schema first): a change of shape fails here until
// testdata/json-schemas.txt and docs/json.md say so (go test -update).
func TestJSONSchemas(t *testing.T) {
	dir := t.TempDir()
	cache, out, out7 := filepath.Join(dir, "cache"), filepath.Join(dir, "out"), filepath.Join(dir, "out7")
	m := sampleMirror
	idx := filepath.Join(m, "common/dists/r36.5/main/binary-arm64/Packages")
	for _, args := range [][]string{
		{"convert", "--jetpack", "6", "--mirror", m, "--cache", cache, "--out", out},
		{"convert", "--jetpack", "7", "--mirror", m, "--cache", cache, "--out", out7},
	} {
		if code, _, stderr := cli(t, args...); code != exitOK {
			t.Fatalf("%v: %d %s", args, code, stderr)
		}
	}
	runs := []struct {
		schema string
		args   []string
	}{
		{"profiles", []string{"profiles", "--json"}},
		{"profile", []string{"profiles", "--json", "jetpack7"}},
		{"index", []string{"index", "--json", idx}},
		{"plan", []string{"plan", "--jetpack", "6", "--mirror", m, "--cache", cache, "--json"}},
		{"fetch", []string{"fetch", "--jetpack", "6", "--mirror", m, "--cache", cache, "--json"}},
		{"convert", []string{"convert", "--jetpack", "6", "--mirror", m, "--cache", cache, "--out", out, "--json"}},
		{"verify", []string{"verify", "--json", out}},
		{"verify", []string{"verify", "--json", out7}},
		{"verify", []string{"verify", "--json", "--nixpkgs", out7}},
		{"nix", []string{"nix", "--json", out7}},
		{"diff", []string{"diff", "--mirror", m, "--cache", cache, "--json", "r36.4", "r36.5", "--files"}},
		{"diff", []string{"diff", "--mirror", m, "--cache", cache, "--json", "r36.4", "r36.5"}},
		{"diff", []string{"diff", "--mirror", m, "--cache", cache, "--json", "r36.4", out}},
		{"inventory", []string{"inventory", "--l4t", "r36.5", "--mirror", m, "--cache", cache, "--json"}},
	}
	got := map[string]map[string]bool{}
	emitted := map[string]bool{}              // the "schema" values the outputs carry
	objects := map[string][]map[string]bool{} // "schema path" -> key sets
	variants := map[string][]string{}         // cuda_variant value -> where seen
	for _, r := range runs {
		code, stdout, stderr := cli(t, r.args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", r.args, code, stderr)
		}
		want := fmt.Sprintf("{\n  \"schema\": %q", schemaName(r.schema))
		if !strings.HasPrefix(stdout, want) {
			t.Errorf("%v: output does not start with %s", r.args, want)
		}
		var v any
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatalf("%v: %v", r.args, err)
		}
		if m, ok := v.(map[string]any); ok {
			if name, ok := m["schema"].(string); ok {
				emitted[name] = true
			}
		}
		if got[r.schema] == nil {
			got[r.schema] = map[string]bool{}
		}
		shape(v, "."+r.schema, got[r.schema])
		keySets(v, "."+r.schema, objects)
		valuesOf(v, "cuda_variant", variants, r.schema)
	}
	// Every schema name the README, docs/, the help, the man page and the
	// Go docs write is one the commands emit.
	for name, where := range documentedSchemas(t) {
		if !emitted[name] {
			t.Errorf("%s names schema %s: the commands emit %v",
				strings.Join(where, ", "), name, slices.Sorted(maps.Keys(emitted)))
		}
	}
	// One spelling of cuda_variant everywhere (issue 31 item 3): the
	// provenance's, as plan, convert and verify (with --nixpkgs) print it.
	for _, o := range []string{out, out7} {
		for _, p := range []string{"cudnn/redist/debredist-provenance_9.3.0.json",
			"cudnn/redist/debredist-provenance_9.20.0.json"} {
			if b, err := os.ReadFile(filepath.Join(o, p)); err == nil {
				var v any
				if err := json.Unmarshal(b, &v); err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				valuesOf(v, "cuda_variant", variants, "provenance")
			}
		}
	}
	for val, where := range variants {
		if strings.HasPrefix(val, "cuda") {
			t.Errorf("cuda_variant %q (in %v): spelled with the manifest key's prefix", val, where)
		}
	}
	for _, w := range []string{"plan", "convert", "verify", "provenance"} {
		if !slices.ContainsFunc(
			slices.Collect(maps.Values(variants)),
			func(ws []string) bool { return slices.Contains(ws, w) && slices.Contains(ws, "provenance") },
		) {
			t.Errorf("no cuda_variant value is shared by %s and the provenance: %v", w, variants)
		}
	}
	// Flags and inputs do not change the shape: an object lacks a field
	// that another object of its kind has only when the field is optional.
	for path, sets := range objects {
		all := map[string]bool{}
		for _, s := range sets {
			for k := range s {
				all[k] = true
			}
		}
		for k := range all {
			if optionalKeys[k] || strings.Contains(path, "profile") || strings.Contains(path, ".rules") {
				continue
			}
			for _, s := range sets {
				if !s[k] {
					t.Errorf("%s.%s is absent from some objects (not documented as optional)", path, k)
					break
				}
			}
		}
	}
	// Lists are always lists: no path that is an array elsewhere is null.
	for s, paths := range got {
		for p := range paths {
			if base, ok := strings.CutSuffix(p, " null"); ok && paths[base+" array"] {
				t.Errorf("%s: %s is sometimes null, sometimes an array", s, base)
			}
		}
	}
	var lines []string
	for _, paths := range got {
		for p := range paths {
			lines = append(lines, p)
		}
	}
	sort.Strings(lines)
	text := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "json-schemas.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != text {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(text, "\n")
		for _, l := range gl {
			if !slices.Contains(wl, l) {
				t.Errorf("new in the --json output: %s", l)
			}
		}
		for _, l := range wl {
			if !slices.Contains(gl, l) {
				t.Errorf("gone from the --json output: %s", l)
			}
		}
		t.Errorf(
			"the --json formats changed: document the change in docs/json.md (a new schema version if a field changed or " +
				"went), then go test ./cmd/debredist -run JSONSchemas -update",
		)
	}
	// docs/json.md documents every top-level field of every format.
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "json.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		path, _, _ := strings.Cut(l, " ")
		parts := strings.Split(strings.TrimPrefix(path, "."), ".")
		if len(parts) != 2 {
			continue
		}
		if !strings.Contains(string(doc), schemaName(parts[0])) ||
			!strings.Contains(string(doc), "`"+strings.TrimSuffix(parts[1], "[]")+"`") {
			t.Errorf("docs/json.md does not document %s of %s", parts[1], schemaName(parts[0]))
		}
	}
}

// valuesOf records, for every string value of key anywhere in v, where it
// was seen.
func valuesOf(v any, key string, out map[string][]string, where string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == key && !slices.Contains(out[s], where) {
				out[s] = append(out[s], where)
			}
			valuesOf(e, key, out, where)
		}
	case []any:
		for _, e := range x {
			valuesOf(e, key, out, where)
		}
	}
}

// schemaRef is a --json schema name as the docs write it.
var schemaRef = regexp.MustCompile(`debredist\.[a-z][a-z-]*/v[0-9]+`)

// documentedSchemas returns every schema name written in README.md,
// docs/*.md (but the history, docs/CHANGES.md), the rendered help of every
// command and the man page, and the Go sources of the CLI and the public
// packages (help texts, flag usages, doc comments), with where each is.
func documentedSchemas(t *testing.T) map[string][]string {
	t.Helper()
	found := map[string][]string{}
	add := func(where, text string) {
		for _, m := range schemaRef.FindAllString(text, -1) {
			if !slices.Contains(found[m], where) {
				found[m] = append(found[m], where)
			}
		}
	}
	root := filepath.Join("..", "..")
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	for _, dir := range []string{".", filepath.Join(root, "debredist")} {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if d != nil && d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if err == nil && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		if filepath.Base(f) == "CHANGES.md" {
			continue // names the versions of its day
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		add(filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator))), string(b))
	}
	render := func(args ...string) {
		code, stdout, stderr := cli(t, args...)
		if code != exitOK || stdout == "" {
			t.Fatalf("%v: exit %d, %d bytes: %s", args, code, len(stdout), stderr)
		}
		add("debredist "+strings.Join(args, " "), stdout)
	}
	render("man")
	render("help")
	for _, c := range commands {
		render("help", c.name)
	}
	if len(found) < 5 {
		t.Fatalf("found only %v: the pattern no longer matches how the docs write schemas", found)
	}
	return found
}
