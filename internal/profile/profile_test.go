package profile

import (
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
		if p.Suite != w.suite || p.CUDA != w.cuda || p.Platform != w.platform || p.Target != w.target || p.ReleaseDate == "" {
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
	if _, err := (Profile{Suite: "r36.9"}).Resolve(nil); err == nil {
		t.Errorf("no cuda-cudart: want an error")
	}
	for _, bad := range []string{"r40.1", "36.5", "r36"} {
		if _, err := ForSuite(bad); err == nil {
			t.Errorf("ForSuite(%q): want an error", bad)
		}
	}
}

func TestLoadUserProfile(t *testing.T) {
	src := `{"name": "mine", "l4t": "r36.5", "rules": {"rules": [{"match": "opt/nvidia/**", "drop": "not redist content"}]}}`
	p, err := Load(strings.NewReader(src), "mine.json")
	if err != nil {
		t.Fatal(err)
	}
	if p.CUDA != "12.6" || p.Target != "aarch64-linux" || len(p.Repos) != 2 {
		t.Errorf("user profile did not inherit from jetpack6: %+v", p)
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
