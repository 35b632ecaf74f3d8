package debredist

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// debGaps are the declared outputs nixpkgs' rules find empty that no
// conversion can fill: the release's debs lack the content (r39.2 has no
// libnvinfer-samples). Each is warned about by convert and overridden by the
// snippet `debredist nix` prints; any other empty output is a failure here.
var debGaps = map[string][]string{
	"7": {`tensorrt/linux-sbsa/tensorrt-linux-sbsa-10.16.2.10_cuda13-archive.tar.xz: samples`},
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
			convert(t, Options{JetPack: jp, Mirror: filepath.Join("..", "testdata", "sample-mirror"), Out: out, CacheDir: cache})
			rep, err := VerifyNixpkgs(context.Background(), out)
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
				for _, p := range e.(*VerifyError).Problems {
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
			if len(unexpected) > 0 {
				t.Errorf("nixpkgs' buildRedist would fail on %d archive(s):\n  %s", len(unexpected), strings.Join(unexpected, "\n  "))
			}
		})
	}
}
