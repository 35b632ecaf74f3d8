package depcheck

import (
	"sort"
	"strings"
	"testing"
)

// The layers of docs/architecture.md ("Direction of imports"), by path
// relative to the module. A package not named here is internal machinery
// (internal/...), the CLI (cmd/...) or a tool (bench/...).
var (
	// facade composes the stages; the CLI alone imports it.
	facade = "debredist"
	// work are the public packages that do work of their own (read and
	// decode OUT, compare releases): the facade, the CLI and the release
	// pipeline the facade runs (internal/convert) call them, nothing
	// below does.
	work = set("debredist/verify", "debredist/reldiff")
	// pipeline is the release-level pipeline: plan, fetch, build, publish.
	pipeline = "internal/convert"
	// entryPoints are the stages the facade calls, each through its entry
	// point: it translates options, calls one and reports what it did.
	// Anything else internal (layout, publish, the codecs, ...) is a
	// stage's own machinery, which the facade never reaches into.
	entryPoints = set(pipeline, "internal/fetch", "internal/build", "internal/deb", "internal/archive",
		"internal/nixoverlay", "internal/sbom")
	// leaves are the public types every layer shares: they import the
	// standard library, each other and the small utilities only.
	leaves = set("debredist/entry", "debredist/event", "debredist/fault", "debredist/profile", "debredist/redist")
	// utils are small internal utilities with no project imports.
	utils = set("internal/jsonpos", "internal/safepath", "internal/files")
)

// known lists the violations of today, by rule: each one fixed must be
// removed here (the test fails on a listed violation that no longer
// occurs), and a new one fails the test.
var known = map[string][]string{}

func set(s ...string) map[string]bool {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return m
}

func TestLayering(t *testing.T) {
	mod, pkgs, err := Module("../..")
	if err != nil {
		t.Fatal(err)
	}
	rel := func(path string) (string, bool) {
		if path == mod {
			return ".", true
		}
		r, ok := strings.CutPrefix(path, mod+"/")
		return r, ok
	}
	// How a doc may name a package of the module: by its name, its path
	// in the module or its import path.
	mentionable := map[string]string{}
	for _, p := range pkgs {
		r, _ := rel(p.ImportPath)
		mentionable[p.ImportPath], mentionable[r] = p.ImportPath, p.ImportPath
		if _, twice := mentionable[p.Name]; twice || p.Name == "main" {
			mentionable[p.Name] = "" // ambiguous: not a name a doc can use
		} else {
			mentionable[p.Name] = p.ImportPath
		}
	}
	got := map[string][]string{}
	add := func(rule, what string) { got[rule] = append(got[rule], what) }
	for _, p := range pkgs {
		from, _ := rel(p.ImportPath)
		for _, imp := range p.Imports {
			to, ours := rel(imp)
			edge := from + " -> " + to
			switch {
			case !ours:
				// the standard library and modules: no rule
			case to == facade && from != "cmd/debredist":
				add("facade imported by the CLI alone", edge)
			case work[to] && from != facade && from != pipeline && !strings.HasPrefix(from, "cmd/"):
				add("public work packages imported by the facade, the CLI and the pipeline alone", edge)
			}
			if !ours {
				continue
			}
			if leaves[from] && !leaves[to] && !utils[to] {
				add("leaves import only the standard library, leaves and utils", edge)
			}
			if utils[from] {
				add("utils import nothing of the project", edge)
			}
			if strings.HasPrefix(from, "cmd/debredist") && strings.HasPrefix(to, "internal/") {
				add("the CLI imports no internal package", edge)
			}
			if from == facade && strings.HasPrefix(to, "internal/") && !entryPoints[to] && !utils[to] {
				add("the facade imports only the stages' entry points (and utils)", edge)
			}
		}
		if pub := strings.HasPrefix(from, "debredist"); pub {
			m, err := ExportedMentions(p.Dir, p.GoFiles, mentionable, func(path string) bool {
				r, ours := rel(path)
				return ours && strings.HasPrefix(r, "internal/")
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range m {
				add("public API and its docs name no internal package", from+"/"+s)
			}
		}
	}
	rules := map[string]bool{}
	for r := range got {
		rules[r] = true
	}
	for r := range known {
		rules[r] = true
	}
	var names []string
	for r := range rules {
		names = append(names, r)
	}
	sort.Strings(names)
	for _, r := range names {
		g, k := set(got[r]...), set(known[r]...)
		for _, v := range sorted(g) {
			if !k[v] {
				t.Errorf("%s: %s", r, v)
			}
		}
		for _, v := range sorted(k) {
			if !g[v] {
				t.Errorf("%s: %s no longer occurs: remove it from known", r, v)
			}
		}
	}
	n := 0
	for _, v := range known {
		n += len(v)
	}
	if n > 0 {
		t.Logf("%d known violations left", n)
	}
}

func sorted(m map[string]bool) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}
