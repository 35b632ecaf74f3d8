package profile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinProfiles(t *testing.T) {
	want := map[string]struct{ suite, cuda, platform, target string }{
		"5":   {"r35.6", "11.4", "linux-aarch64", "aarch64-linux"},
		"6":   {"r36.5", "12.6", "linux-aarch64", "aarch64-linux"},
		"7":   {"r39.2", "13.2", "linux-sbsa", "sbsa-linux"},
		"7.0": {"r38.4", "13.0", "linux-sbsa", "sbsa-linux"},
	}
	for jp, w := range want {
		p, err := ForJetPack(jp)
		if err != nil {
			t.Fatal(err)
		}
		if p.L4T != w.suite || p.CUDA != w.cuda || p.Platform != w.platform || p.Target != w.target || p.ReleaseDate == "" {
			t.Errorf("jetpack %s: %+v", jp, p)
		}
		if err := p.validate(p.Name); err != nil {
			t.Errorf("jetpack %s: %v", jp, err)
		}
	}
	if _, err := ForJetPack("4"); err == nil || !strings.Contains(err.Error(), "known:") {
		t.Errorf("unknown JetPack must list the known ones: %v", err)
	}
	if len(Defaults().Components) < 30 || len(Defaults().Paths) < 20 {
		t.Errorf("embedded defaults look empty")
	}
}

func TestForSuiteDerives(t *testing.T) {
	p, err := ForSuite("r36.4")
	if err != nil {
		t.Fatal(err)
	}
	if p.CUDA != "" || p.ReleaseDate != "" || p.Platform != "linux-aarch64" || p.Name != "l4t-r36.4" {
		t.Fatalf("derived profile: %+v", p)
	}
	// r36.3 (CUDA 12.2) has no libnvfatbin, which r36.5 expects: a derived
	// suite expects nothing rather than its template's list.
	if p.Expect != nil || len(p.Capabilities) == 0 {
		t.Errorf("derived profile: expect %v (want none), capabilities %v (want the template's)", p.Expect, p.Capabilities)
	}
	p, err = p.Resolve([]Binary{
		{Name: "cuda-cudart-12-6", Version: "12.6.68-1"},
		{Name: "cuda-cudart-12-2", Version: "12.2.140-1"},
		{Name: "nvidia-l4t-core", Version: "36.4.4-20250616085344"},
		{Name: "nvidia-l4t-core", Version: "36.4.3-20250107174145"},
		{Name: "nvidia-l4t-x", Version: "35.6.0-20990101000000"}, // another suite's build: ignored
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.CUDA != "12.6" || p.ReleaseDate != "2025-06-16" {
		t.Errorf("resolved CUDA %s date %s, want 12.6 2025-06-16", p.CUDA, p.ReleaseDate)
	}
	if _, err := (Profile{L4T: "r36.9"}).Resolve(nil); err == nil {
		t.Errorf("no cuda-cudart: want an error")
	}
	for _, bad := range []string{"r40.1", "36.5", "r36"} {
		if _, err := ForSuite(bad); err == nil {
			t.Errorf("ForSuite(%q): want an error", bad)
		}
	}
}

func TestLoadUserProfile(t *testing.T) {
	src := `{"name": "mine", "l4t": "r36.5", "rules": {"rules": [{"match": "opt/nvidia/**", "drop": "not redist ` +
		`content"}]}}`
	p, err := Load(strings.NewReader(src), "mine.json")
	if err != nil {
		t.Fatal(err)
	}
	if p.CUDA != "12.6" || p.Target != "aarch64-linux" || len(p.Repos) != 2 || len(p.Expect) == 0 {
		t.Errorf("user profile did not inherit from jetpack6: %+v", p)
	}
	if other, err := Load(strings.NewReader(`{"l4t": "r36.3"}`), "old.json"); err != nil || other.Expect != nil {
		t.Errorf("a profile of another suite inherits expect %v (%v), want none", other.Expect, err)
	}
	m := p.Merged()
	if m.Paths[0].Match != "opt/nvidia/**" {
		t.Errorf("user rules must come first: %+v", m.Paths[0])
	}
	for _, bad := range []string{
		`{"l4t": "r36.5", "unknown": 1}`,
		`{"l4t": "36.5"}`,
		`{"l4t": "r36.5", "cuda": "twelve"}`,
		`{"l4t": "r36.5", "target": "../x"}`,
		`{"l4t": "r50.1"}`,
	} {
		if _, err := Load(strings.NewReader(bad), "bad.json"); err == nil || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("Load(%s): want an error naming the file, got %v", bad, err)
		}
	}
}

// TestLoadRefusesAList: the list 'debredist profiles --json' prints (or an
// array of profiles) where one profile is expected is refused with the
// command that prints one.
func TestLoadRefusesAList(t *testing.T) {
	for _, list := range []string{
		`{"schema": "` + ListSchema + `", "profiles": [{"name": "jetpack6", "l4t": "r36.5"}]}`,
		`{"schema": "` + ListSchema + `"}`,
		`{"l4t": "r36.5", "profiles": []}`,
		` [{"l4t": "r36.5"}]`,
	} {
		_, err := Load(strings.NewReader(list), "list.json")
		var ie *InvalidError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "list.json:1:") ||
			!strings.Contains(err.Error(), "a profile file holds one profile: one of Profiles' entries encoded as JSON") {
			t.Errorf("Load(%s): %v, want an *InvalidError at its line hinting at one of the built-in profiles", list, err)
		}
	}
}

// TestDefaultsPassTheGrammar: the built-in data obeys the rules user
// profiles must obey.
func TestDefaultsPassTheGrammar(t *testing.T) {
	p, err := ForJetPack("6")
	if err != nil {
		t.Fatal(err)
	}
	p.Rules = Defaults()
	if err := p.validate("defaults.json"); err != nil {
		t.Fatal(err)
	}
}

// TestHostileProfileFields: every name that reaches a path is refused,
// with an *InvalidError naming the field.
func TestHostileProfileFields(t *testing.T) {
	comp := func(field, value string) string {
		return `{"l4t": "r36.5", "rules": {"components": [{"source": "cuda-cudart", "product": "cuda", "name": "x", ` +
			`"license": "x", ` +
			field + `: ` + value + `}]}}`
	}
	long := `"` + strings.Repeat("a", 65) + `"`
	for _, c := range []struct{ src, field string }{
		{
			`{"l4t": "r36.5", "rules": {"components": [{"source": "cuda-cudart", "product": "../../../../PRODUCT-ESCAPE", ` +
				`"name": "x", "license": "x"}]}}`,
			"rules.components[0].product",
		},
		{comp(`"pname"`, `"../../../../../PNAME-ESCAPE"`), "rules.components[0].pname"},
		{comp(`"pname"`, `"/tmp/abs"`), "rules.components[0].pname"},
		{comp(`"pname"`, `"cuda\u0000x"`), "rules.components[0].pname"},
		{comp(`"pname"`, long), "rules.components[0].pname"},
		{comp(`"pname"`, `"cuda_cudаrt"`), "rules.components[0].pname"}, // Cyrillic а
		{comp(`"pname"`, `"CUDA"`), "rules.components[0].pname"},
		{comp(`"platform"`, `"linux-../x"`), "rules.components[0].platform"},
		{
			`{"l4t": "r36.5", "rules": {"components": [{"source": "cuda.cudart", "product": "cuda", "name": "x", "license": ` +
				`"x"}]}}`,
			"rules.components[0].pname (derived from source; set one)",
		},
		{
			`{"l4t": "r36.5", "rules": {"components": [{"source": "", "product": "cuda", "name": "x", "license": "x"}]}}`,
			"rules.components[0].source",
		},
		{`{"l4t": "r36.5", "platform": "../linux"}`, "platform"},
		{`{"l4t": "r36.5", "platform": "linux-aarch64/x"}`, "platform"},
		{`{"l4t": "r36.5", "target": "../x"}`, "target"},
		{`{"l4t": "r36.5", "triple": "a b"}`, "triple"},
		{`{"l4t": "r36.5", "repos": ["../common"]}`, "repos[0]"},
		{`{"l4t": "r36.5", "name": "` + strings.Repeat("n", 65) + `"}`, "name"},
		{`{"l4t": "r36.5", "rules": {"products": {"../p": {"label_from": "x"}}}}`, "rules.products key"},
		{`{"l4t": "r36.5", "rules": {"products": {"cuda": {"label_from": "../x"}}}}`, "rules.products.cuda.label_from"},
		{`{"l4t": "r36.5", "rules": {"rules": [{"match": "usr/**", "to": "../../x"}]}}`, "rules.rules[0].to"},
		{`{"l4t": "r36.5", "rules": {"rules": [{"match": "usr/**", "to": "/etc"}]}}`, "rules.rules[0].to"},
		{`{"l4t": "r36.5", "rules": {"links": [{"match": "x", "name": "lib/../../x"}]}}`, "rules.links[0].name"},
		{`{"l4t": "r36.5", "rules": {"links": [{"match": "(", "name": "lib/x"}]}}`, "rules.links[0].match"},
		{`{"l4t": "r36.5", "cuda": "12.6/.."}`, "cuda"},
	} {
		_, err := Load(strings.NewReader(c.src), "hostile.json")
		var ie *InvalidError
		if !errors.As(err, &ie) || ie.Field != c.field {
			t.Errorf("Load(%s): got %v, want an *InvalidError for field %s", c.src, err, c.field)
			continue
		}
		if !strings.Contains(err.Error(), "hostile.json") || !strings.Contains(err.Error(), c.field) {
			t.Errorf("message %q must name the file and the field", err)
		}
	}
	// Placeholders in rule targets and link names are fine.
	ok := `{"l4t": "r36.5", "rules": {"rules": [{"match": "usr/**", "to": "lib/cuda-{cuda}"}], "links": [{"match": "x", ` +
		`"name": "lib/${1}.so"}]}}`
	if _, err := Load(strings.NewReader(ok), "ok.json"); err != nil {
		t.Errorf("placeholders: %v", err)
	}
}

func TestCompareDotted(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"12.6", "13.0", -1}, {"13.2.1", "13.2", 1}, {"13.2", "13.2.0", 0}, {"10.16.1", "10.3.0.30", 1},
		{"11.4", "11.4", 0}, {"9", "10", -1},
	} {
		if got := CompareDotted(c.a, c.b); got != c.want {
			t.Errorf("CompareDotted(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestLoadFileNestedUnknownKey (issue 31 item 4): an unknown key inside
// "rules" (or one of its rules) names that object and its own keys, not the
// top level's.
func TestLoadFileNestedUnknownKey(t *testing.T) {
	for body, want := range map[string]string{
		`{"name": "x", "l4t": "r36.5", "rules": {"dorp": 1}}`: `:1:41: unknown field "dorp" in rules ` +
			`(known here: components, cuda_majors, drop_binaries, links, meta_packages, products, rules, stubs, wheels)`,
		`{"name": "x", "l4t": "r36.5", "rules": {"rules": [{"match": "a/**", "to": "bin"}, ` +
			`{"match": "b", "dorp": "x"}]}}`: `:1:98: unknown field "dorp" in rules.rules[1] ` +
			`(known here: drop, license, match, packages, to, types)`,
	} {
		f := filepath.Join(t.TempDir(), "p.json")
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadFile(f)
		if err == nil || !strings.HasSuffix(err.Error(), f+want) {
			t.Errorf("%s:\n got  %v\n want %s%s", body, err, f, want)
		}
	}
}

// TestLoadStrictKeys: a profile's keys match case-sensitively and appear
// once, and it is UTF-8: what encoding/json took silently (a "L4T" beside
// "l4t" planned r36.4, "Release_Date" overrode release_date, the second of
// two "l4t" won, invalid bytes became U+FFFD) is an error naming the file,
// line and column (issue 37).
func TestLoadStrictKeys(t *testing.T) {
	p, err := ForJetPack("6")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	good := string(b)
	if _, err := Load(strings.NewReader(good), "p.json"); err != nil {
		t.Fatalf("the built-in profile as a file: %v", err)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"L4T", strings.Replace(good, `"l4t":"r36.5"`, `"l4t":"r36.5","L4T":"r36.4"`, 1), `unknown field "L4T"`},
		{
			"Release_Date",
			strings.Replace(good, `"l4t":"r36.5"`, `"l4t":"r36.5","Release_Date":"2020-01-01"`, 1),
			`unknown field "Release_Date"`,
		},
		{
			"l4t twice",
			strings.Replace(good, `"l4t":"r36.5"`, `"l4t":"r36.5","l4t":"r36.4"`, 1),
			`duplicate key "l4t" in the top-level object`,
		},
		{"invalid UTF-8", strings.Replace(good, `"description":"`, "\"description\":\"\xff", 1), "invalid UTF-8"},
		{
			"deep",
			`{"rules": {"rules": [` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `]}}`,
			"nested deeper than 64",
		},
	} {
		_, err := Load(strings.NewReader(tc.in), "p.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "p.json:1:") {
			t.Errorf("%s: %v, want an error at p.json:1:… saying %q", tc.name, err, tc.want)
		}
	}
}

// TestErrorQuotesBounded: an error quotes at most a bounded prefix of the
// value it names (issue 37: a 300 KB field gave a 300 KB line).
func TestErrorQuotesBounded(t *testing.T) {
	long := strings.Repeat("x", 300<<10)
	_, err := Load(strings.NewReader(`{"name": "ok", "l4t": "`+long+`"}`), "p.json")
	if err == nil || len(err.Error()) > 1024 || !strings.Contains(err.Error(), "… (307200 bytes)") {
		t.Errorf("a 300 KB l4t: %d-byte error %.300q", len(fmt.Sprint(err)), fmt.Sprint(err))
	}
}
