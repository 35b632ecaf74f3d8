package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyNixpkgsCLI: `verify --nixpkgs` reports per archive, exits 0 when
// only nixpkgs' own problems remain (JetPack 6) or outputs the debs leave
// empty, which the overlay of `debredist nix` overrides (JetPack 7: the debs
// ship no TensorRT samples), each named with its archive.
func TestVerifyNixpkgsCLI(t *testing.T) {
	mirror := filepath.Join("..", "..", "testdata", "sample-mirror")
	cache := t.TempDir()
	for _, tc := range []struct {
		jp       string
		code     int
		contains []string
	}{
		{"6", exitOK, []string{"nixpkgs-broken cudnn/redist/cudnn_samples/source/", "nixpkgs: nixpkgs marks cudnn_samples broken itself",
			"ok    tensorrt/redist/tensorrt/linux-aarch64/tensorrt-linux-aarch64-10.3.0.30_cuda12-archive.tar.xz [bin:1", "nixpkgs' buildRedist rules hold"}},
		{"7", exitOK, []string{"override tensorrt/redist/tensorrt/linux-sbsa/", `declared output "samples" would be empty: the debs carry nothing for it`, "nixpkgs' buildRedist rules hold",
			`nixpkgs: declared output "lib" would be empty (checkCudaNonEmptyOutputs): NVTX is header-only from CUDA 13`}},
	} {
		out := t.TempDir()
		if code, _, stderr := cli(t, "convert", "--jetpack", tc.jp, "--mirror", mirror, "--cache", cache, "--out", out); code != exitOK {
			t.Fatalf("convert: %d %s", code, stderr)
		}
		code, stdout, stderr := cli(t, "verify", "--nixpkgs", out)
		if code != tc.code {
			t.Errorf("JetPack %s: exit %d, want %d\n%s\n%s", tc.jp, code, tc.code, stdout, stderr)
		}
		for _, c := range tc.contains {
			if !strings.Contains(stdout, c) {
				t.Errorf("JetPack %s: output lacks %q:\n%s", tc.jp, c, stdout)
			}
		}
	}
}
