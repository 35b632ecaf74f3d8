package debredist

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/verify"
)

// debGaps are the declared outputs nixpkgs' rules find empty that no
// conversion can fill (the release's debs lack the content). At the pinned
// rules there are none: r39.2 has no libnvinfer-samples, and tensorrt.nix
// declares samples only below 10.14.1.
var debGaps = map[string][]string{}

// insecure and unavailable pin, per JetPack, what verify --nixpkgs reports
// from the pinned packages/tensorrt/package.nix (meta.knownVulnerabilities
// below 10.16.1) and the platformAssertions for the release's devices.
var (
	insecure = map[string][]string{
		"5": {"tensorrt 8.5.2 is below 10.16.1: CVE-2026-24188: OOB write"},
		"6": {"tensorrt 10.3.0.30 is below 10.16.1: CVE-2026-24188: OOB write"},
	}
	unavailable = map[string][]string{
		"7": {
			"libcudla 11.0: unavailable (platformAssertions: Only Xavier (7.2) and Orin (8.7) Jetson devices are supported)",
		},
	}
)

// generationsWant are, per JetPack, packages whose verdict differs between
// nixpkgs revisions and a revision the report must name.
var generationsWant = map[string]map[string]string{
	"5": {"libcusparse": "2973b267"},
	"6": {"libnvfatbin": "6a088f5b", "libcusparse": "4aa6836a"},
	"7": {
		"cuda_compat":      "4aa6836a",
		"cudnn_jit":        "no packages/cudnn_jit.nix",
		"cuda_compat_orin": "4aa6836a",
		"libnvfatbin":      "b18526a2",
	},
}

// TestVerifyNixpkgsJetPacks converts JetPack 5, 6 and 7 from the sample
// mirror and applies nixpkgs' buildRedist rules to every archive: nothing
// may fail but nixpkgs' own problems (cudnn_samples is marked broken by
// nixpkgs) and the listed gaps of the debs.
func TestVerifyNixpkgsJetPacks(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	for _, jp := range []string{"5", "6", "7"} {
		t.Run("jetpack"+jp, func(t *testing.T) {
			out := t.TempDir()
			mustConvert(
				t,
				Options{
					Source:  Source{Mirror: filepath.Join("..", "testdata", "sample-mirror"), CacheDir: cache},
					Release: Release{JetPack: jp},
					Build:   Build{Out: out},
				},
			)
			rep, err := verify.Nixpkgs(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Components) < 20 {
				t.Fatalf("only %d archives checked", len(rep.Components))
			}
			broken := 0
			for _, c := range rep.Components {
				if c.Broken != "" {
					broken++
					if c.Component != "cudnn_samples" {
						t.Errorf("%s reported broken by nixpkgs: %s", c.Component, c.Broken)
					}
				}
			}
			if broken != 1 {
				t.Errorf("want cudnn_samples as nixpkgs' own broken package, got %d", broken)
			}
			var unexpected []string
			if e := rep.Err(); e != nil {
				for _, p := range e.(*verify.Error).Problems {
					unexpected = append(unexpected, p.Error())
				}
			}
			var empty []string
			for _, c := range rep.Components {
				for _, o := range c.EmptyOutputs {
					empty = append(empty, c.Path+": "+o)
				}
				for _, f := range c.Failures {
					if strings.Contains(f, "would be empty") {
						t.Errorf("%s: an empty output counted as a failure: %s", c.Path, f)
					}
				}
			}
			if !slices.Equal(empty, debGaps[jp]) {
				t.Errorf("empty declared outputs %q, want exactly the debs' gaps %q", empty, debGaps[jp])
			}
			var ins, unav []string
			for _, c := range rep.Components {
				ins = append(ins, c.Insecure...)
				for _, d := range c.Devices {
					if !strings.HasSuffix(d, ": evaluates") && !strings.Contains(d, "not listed for it") {
						unav = append(unav, c.Component+" "+d)
					}
				}
			}
			if !slices.Equal(ins, insecure[jp]) {
				t.Errorf("insecure %q, want %q", ins, insecure[jp])
			}
			if !slices.Equal(unav, unavailable[jp]) {
				t.Errorf("unavailable devices %q, want %q", unav, unavailable[jp])
			}
			if len(unexpected) > 0 {
				t.Errorf(
					"nixpkgs' buildRedist would fail on %d archive(s):\n  %s",
					len(unexpected),
					strings.Join(unexpected, "\n  "),
				)
			}
			// Where the revisions users have differ, the report says so,
			// naming them, and every package names its rules' revision.
			differ := map[string]string{}
			for _, c := range rep.Components {
				if len(c.Generations) > 0 {
					differ[c.Component] = strings.Join(c.Generations, "; ")
				}
				if c.Known && !strings.Contains(c.Source, "@") && !strings.HasPrefix(c.Source, "not re-read") {
					t.Errorf("%s: rules without a revision: %q", c.Component, c.Source)
				}
			}
			for pname, rev := range generationsWant[jp] {
				if !strings.Contains(differ[pname], rev) {
					t.Errorf("%s: generations %q do not name %s", pname, differ[pname], rev)
				}
			}
		})
	}
}
