package profile

import (
	"strings"
	"testing"
)

// TestStubRules: the built-in stub rules compile and cover the components
// NVIDIA ships lib/stubs for and the debs do not; a profile's stub rules are
// validated and come first.
func TestStubRules(t *testing.T) {
	d := Defaults()
	covered := map[string]bool{}
	for _, r := range d.Stubs {
		if r.Name == "" || !strings.HasPrefix(r.Name, "lib/stubs/") {
			t.Errorf("stub rule %q: name %q", r.Match, r.Name)
		}
		for _, p := range r.Packages {
			covered[p] = true
		}
	}
	for _, p := range []string{"libcublas", "libcufft", "libcurand", "libcusolver", "libcusparse", "libnpp", "libnvjpeg",
		"cuda_nvrtc", "libnvjitlink", "libcudla", "tensorrt"} {
		if !covered[p] {
			t.Errorf("no stub rule for %s", p)
		}
	}
	for _, bad := range []string{
		`{"name": "x", "l4t": "r36.5", "rules": {"stubs": [{"match": "(", "name": "lib/stubs/x.so"}]}}`,
		`{"name": "x", "l4t": "r36.5", "rules": {"stubs": [{"match": "^lib/x$"}]}}`,
	} {
		if _, err := Load(strings.NewReader(bad), "bad.json"); err == nil || !strings.Contains(err.Error(), "stub rule") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	p, err := Load(
		strings.NewReader(
			`{"name": "x", "l4t": "r36.5", "rules": {"stubs": [{"packages": ["mine"], "match": "^lib/(libmine)\\.so\\.1$", `+
				`"name": "lib/stubs/${1}.so"}]}}`,
		),
		"x.json",
	)
	if err != nil {
		t.Fatal(err)
	}
	if m := p.Merged().Stubs; len(m) != len(d.Stubs)+1 || m[0].Packages[0] != "mine" {
		t.Errorf("merged stub rules: %+v", m)
	}
}
