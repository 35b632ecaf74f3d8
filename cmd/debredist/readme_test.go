package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/hostile"
)

// TestReadmeClaims (issue 31 item 7): what the README says about the Go
// version, the exit status and the examples holds: the version is go.mod's
// go line, the exit status table is exitTable (issue 39), and
// every public package (debredist and its subpackages, not internal/) has
// a runnable Example. The numbers it gives of the sample mirror and the
// hostile corpus are TestReadmeNumbers'.
func TestReadmeClaims(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	if want := "Go " + string(m[1]) + " or newer"; !strings.Contains(string(readme), want) {
		t.Errorf("README does not say %q (go.mod: go %s)", want, m[1])
	}
	// The exit status table is the one the commands use (exitTable).
	for _, e := range exitTable {
		if row := fmt.Sprintf("\n| %d | %s |\n", e.code, e.what); !strings.Contains(string(readme), row) {
			t.Errorf("README lacks the exit status row %q", strings.TrimSpace(row))
		}
	}
	if strings.Contains(string(readme), "runnable examples (`go doc") {
		t.Error("README says go doc shows the examples: it prints none")
	}
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "),
		"Every one of these packages has runnable examples (`Example` functions in its tests") {
		t.Error("README no longer says every public package has Example functions in its tests: " +
			"the check below is that claim's")
	}
	err = filepath.WalkDir(filepath.Join(root, "debredist"), func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		srcs, _ := filepath.Glob(filepath.Join(p, "*.go"))
		hasCode, hasExample := false, false
		for _, f := range srcs {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if !strings.HasSuffix(f, "_test.go") {
				hasCode = true
			} else if regexp.MustCompile(`(?m)^func Example`).Match(b) {
				hasExample = true
			}
		}
		if hasCode && !hasExample {
			t.Errorf("public package %s has no runnable Example (the README says every one has)", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadmeNumbers (issue 38 item 4): the numbers the README gives of
// the sample mirror (JetPack 6's debs, archives, derivations and SBOM
// packages; JetPack 5's and 7's archives) and of the hostile corpus are
// computed here, from a conversion of the sample mirror and from the
// corpus. Each claim is a phrase of the README with its numbers: a number
// that changes, or a phrase reworded, fails until both agree.
func TestReadmeNumbers(t *testing.T) {
	root := filepath.Join("..", "..")
	readFlat := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(string(b)), " ")
	}
	dir, cache := t.TempDir(), t.TempDir()
	archives := map[string]int{}
	var out6 string
	for _, jp := range []string{"5", "6", "7"} {
		out := filepath.Join(dir, "out"+jp)
		code, stdout, stderr := cli(t, "convert", "--jetpack", jp, "--mirror", sampleMirror, "--cache", cache,
			"--out", out, "--json")
		if code != exitOK {
			t.Fatalf("convert --jetpack %s: %d %s", jp, code, stderr)
		}
		var res struct{ Packages []json.RawMessage }
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatal(err)
		}
		archives[jp] = len(res.Packages)
		if jp == "6" {
			out6 = out
		}
	}
	// What the Nix derivations of JetPack 6 fetch and build.
	code, stdout, stderr := cli(t, "nix", "--derivations", "--json", out6)
	if code != exitOK {
		t.Fatalf("nix: %d %s", code, stderr)
	}
	var nix struct {
		Debs        map[string]json.RawMessage
		Derivations []json.RawMessage
	}
	if err := json.Unmarshal([]byte(stdout), &nix); err != nil {
		t.Fatal(err)
	}
	if len(nix.Derivations) != archives["6"] {
		t.Errorf("nix --derivations: %d archive derivations, convert wrote %d archives", len(nix.Derivations), archives["6"])
	}
	debs := len(nix.Debs)
	// The bill of materials: SPDX packages, CycloneDX components.
	sbomCount := func(format string) int {
		code, stdout, stderr := cli(t, "sbom", "--format", format, out6)
		if code != exitOK {
			t.Fatalf("sbom --format %s: %d %s", format, code, stderr)
		}
		var doc struct{ Packages, Components []json.RawMessage }
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatal(err)
		}
		return len(doc.Packages) + len(doc.Components)
	}
	spdx, cdx := sbomCount("spdx"), sbomCount("cyclonedx")
	if spdx != cdx {
		t.Errorf("SBOM of JetPack 6: %d SPDX packages, %d CycloneDX components "+
			"(the README says all in either format)", spdx, cdx)
	}
	cases, err := hostile.Load(filepath.Join(root, "testdata", "hostile"))
	if err != nil {
		t.Fatal(err)
	}
	// nixpkgs' per-package rules whose file was not re-read.
	b, err := os.ReadFile(filepath.Join(root, "internal", "nixcheck", "nixpkgs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Packages map[string]struct{ Source string }
	}
	if err := json.Unmarshal(b, &rules); err != nil {
		t.Fatal(err)
	}
	var notReread []string
	for name, p := range rules.Packages {
		if strings.HasPrefix(p.Source, "not re-read") {
			notReread = append(notReread, name)
		}
	}
	claims := []struct {
		file, format string
		args         []any
	}{
		{"README.md", "(%d of %d packages kept for JetPack 6)", []any{archives["6"], spdx}},
		{"README.md", "keeps all %d packages of JetPack 6 in either format", []any{spdx}},
		{"README.md", "the sample mirror's %d JetPack 6 archives, through Nix", []any{archives["6"]}},
		{"README.md", "the Nix build of all %d derivations (%d debs fetched by the builtin fetchurl",
			[]any{archives["6"], debs}},
		{"README.md", "the sample mirror's %d derivations (%d debs, %d archives)",
			[]any{debs + archives["6"], debs, archives["6"]}},
		{"README.md", "it fetches the %d archives in under a second", []any{archives["6"]}},
		{"README.md", "| 48, 2, 2 (%d archives built in Nix) |", []any{archives["5"]}},
		{"README.md", "| 29, 1 (%d archives) |", []any{archives["6"]}},
		{"README.md", "| 77, 1, 2 (%d archives) |", []any{archives["7"]}},
		{"README.md", "hostile-input corpus (testdata/hostile, %d labelled cases)", []any{len(cases)}},
		{"testdata/hostile/README.md", "%d labelled cases", []any{len(cases)}},
		{"README.md", "except %d packages whose file was not re-read:", []any{len(notReread)}},
	}
	flat := readFlat("README.md")
	if _, list, ok := strings.Cut(flat, "packages whose file was not re-read:"); ok {
		list, _, _ = strings.Cut(list, ".")
		for _, name := range notReread {
			if !regexp.MustCompile(`\b` + name + `\b`).MatchString(list) {
				t.Errorf("README's list of packages whose file was not re-read lacks %s", name)
			}
		}
	}
	// The README's diff of the sample's r36.4 and r36.5 is the output of
	// the command it shows, indented.
	code, stdout, stderr = cli(t, "diff", "--quiet", "--mirror", sampleMirror, "--cache", cache,
		"r36.4", "r36.5", "--files")
	if code != exitOK {
		t.Fatalf("diff: %d %s", code, stderr)
	}
	block := regexp.MustCompile(`(?m)^(.)`).ReplaceAllString(stdout, "    $1")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), block) {
		t.Errorf("README lacks the output of diff --mirror $M r36.4 r36.5 --files, indented:\n%s", block)
	}
	texts := map[string]string{}
	for _, c := range claims {
		if texts[c.file] == "" {
			texts[c.file] = readFlat(c.file)
		}
		want := fmt.Sprintf(c.format, c.args...)
		if strings.Contains(texts[c.file], want) {
			continue
		}
		pat := strings.ReplaceAll(regexp.QuoteMeta(c.format), "%d", `\d+`)
		if got := regexp.MustCompile(pat).FindString(texts[c.file]); got != "" {
			t.Errorf("%s says %q; the sample conversion and the corpus give %q", c.file, got, want)
		} else {
			t.Errorf("%s no longer says %q: reword the claim here as it is there", c.file, want)
		}
	}
}
