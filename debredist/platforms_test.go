package debredist

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/redist"
)

// redistSystem is nixpkgs' choice of redist system for aarch64-linux
// (_cuda/lib/redist.nix): before 1dbbce67 linux-sbsa only when every
// capability is >= 10.1; from 1dbbce67, for CUDA >= 13, when every
// capability is >= 8.7.
func redistSystem(newRule bool, cuda string, caps ...float64) string {
	threshold := 10.1
	if major, _ := strconv.Atoi(strings.Split(cuda, ".")[0]); newRule && major >= 13 {
		threshold = 8.7
	}
	for _, c := range caps {
		if c < threshold {
			return "linux-aarch64"
		}
	}
	return "linux-sbsa"
}

// TestJetPack7PlatformKeys: every JetPack 7.2 archive is found by both
// generations of nixpkgs' rule for both devices the release supports
// (Orin 8.7, Thor 11.0), and JetPack 6 lists only linux-aarch64.
func TestJetPack7PlatformKeys(t *testing.T) {
	t.Parallel()
	mirror := filepath.Join("..", "testdata", "sample-mirror")
	cache := t.TempDir()
	for _, tc := range []struct {
		jp, cuda, label string
		devices         map[string]float64
		keys            string
	}{
		{"7", "13.2", "13.2.75", map[string]float64{"Orin": 8.7, "Thor": 11.0}, "linux-aarch64 linux-sbsa"},
		{"6", "12.6", "12.6.68", map[string]float64{"Orin": 8.7}, "linux-aarch64"},
	} {
		out := t.TempDir()
		mustConvert(
			t,
			Options{
				Source:  Source{Mirror: mirror, CacheDir: cache},
				Release: Release{JetPack: tc.jp},
				Build:   Build{Out: out, Only: []string{"cuda_cudart", "cudnn", "cudnn_samples"}},
			},
		)
		for _, mf := range []string{filepath.Join(out, "cuda", "redist", "redistrib_"+tc.label+".json")} {
			f, err := os.Open(mf)
			if err != nil {
				t.Fatal(err)
			}
			m, err := redist.ReadManifest(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			for name, c := range m.Components {
				keys := strings.Join(slices.Sorted(maps.Keys(c.Platforms)), " ")
				if keys != tc.keys {
					t.Errorf("JetPack %s: %s lists %q, want %q", tc.jp, name, keys, tc.keys)
				}
				var paths []string
				for _, pa := range c.Artifacts() {
					paths = append(paths, pa.Artifact.RelativePath+" "+pa.Artifact.SHA256)
				}
				for _, p := range paths[1:] {
					if p != paths[0] {
						t.Errorf("%s: the keys name different archives: %v", name, paths)
					}
				}
				for dev, cap := range tc.devices {
					for _, newRule := range []bool{false, true} {
						if sys := redistSystem(newRule, tc.cuda, cap); c.Platforms[sys] == nil {
							t.Errorf("JetPack %s on %s: nixpkgs (new rule %v) picks %s, which %s lacks", tc.jp, dev, newRule, sys, name)
						}
					}
				}
			}
		}
	}
	// cudnn_samples is a source archive: no platform duplicates.
	out := t.TempDir()
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: mirror, CacheDir: cache},
			Release: Release{JetPack: "7"},
			Build:   Build{Out: out, Only: []string{"cudnn_samples"}},
		},
	)
	b, err := os.ReadFile(filepath.Join(out, "cudnn", "redist", "redistrib_9.20.0.json"))
	if err != nil || strings.Contains(string(b), "linux-") {
		t.Errorf("cudnn_samples (source) got platform keys: %v\n%s", err, b)
	}
}
