package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVerifyNixpkgsCLI: `verify --nixpkgs` reports per archive and exits 0
// when what remains is nixpkgs' own doing or the user's choice, each line
// under its archive: on JetPack 6, cudnn_samples, which nixpkgs marks
// broken itself, and TensorRT 10.3, which nixpkgs marks insecure; on
// JetPack 7, TensorRT passes, NVTX's "lib" output, which nixpkgs declares
// though CUDA 13 ships NVTX headers only, is nixpkgs' own, and libcudla is
// unavailable on Thor (11.0) by its platformAssertions. No output here is
// one the debs leave empty (an override of the overlay): at the pinned
// rules there are none (debGaps in debredist/nixverify_test.go).
func TestVerifyNixpkgsCLI(t *testing.T) {
	mirror := filepath.Join("..", "..", "testdata", "sample-mirror")
	cache := t.TempDir()
	for _, tc := range []struct {
		jp       string
		code     int
		contains []string
	}{
		{"6", exitOK, []string{
			"nixpkgs-broken cudnn/redist/cudnn_samples/source/",
			"nixpkgs: nixpkgs marks cudnn_samples broken itself",
			"insecure tensorrt/redist/tensorrt/linux-aarch64/tensorrt-linux-aarch64-10.3.0.30_cuda12-archive.tar.xz [bin:1",
			"        insecure: tensorrt 10.3.0.30 is below 10.16.1: CVE-2026-24188: OOB write",
			"nixpkgs' buildRedist rules for 30 archives: 28 ok, 1 insecure, 1 nixpkgs-broken",
		}},
		{"7", exitOK, []string{
			"ok    tensorrt/redist/tensorrt/linux-sbsa/tensorrt-linux-sbsa-10.16.2.10_cuda13-archive.tar.xz [bin:1",
			"nixpkgs' buildRedist rules for 40 archives: 39 ok, 1 nixpkgs-broken",
			`nixpkgs: declared output "lib" would be empty (checkCudaNonEmptyOutputs): NVTX is header-only from CUDA 13`,
			"        device 11.0: unavailable (platformAssertions: Only Xavier (7.2) and Orin (8.7) Jetson devices are " +
				"supported)",
		}},
	} {
		out := t.TempDir()
		code, _, stderr := cli(t, "convert", "--jetpack", tc.jp, "--mirror", mirror, "--cache", cache, "--out", out)
		if code != exitOK {
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

// TestVerifyCounts: plain and --nixpkgs verify count the same archives, and
// say what they leave out; a damaged archive is a sha256 mismatch first.
func TestVerifyCounts(t *testing.T) {
	cache := t.TempDir()
	for _, tc := range []struct {
		jp           string
		plain, nixOK string
		skip         string
	}{
		{
			"6",
			"31 archives in 4 manifests: all ok",
			"nixpkgs' buildRedist rules for 30 archives: 28 ok, 1 insecure, 1 nixpkgs-broken (see the lines above); " +
				"1 not read by nixpkgs (skip lines above)",
			"skip  l4t/redist/nvidia_l4t_dla_compiler/linux-aarch64/" +
				"nvidia_l4t_dla_compiler-linux-aarch64-36.5.0-archive.tar.xz: l4t is not one of nixpkgs' CUDA redists",
		},
		{
			"7",
			"40 archives (79 manifest entries: some archives are listed under several platforms) in 3 manifests: all ok",
			"nixpkgs' buildRedist rules for 40 archives: 39 ok, 1 nixpkgs-broken (see the lines above)\n",
			"",
		},
	} {
		out := t.TempDir()
		code, _, stderr := cli(t, "convert", "--jetpack", tc.jp, "--mirror", sampleMirror, "--cache", cache, "--out", out)
		if code != exitOK {
			t.Fatalf("convert: %d %s", code, stderr)
		}
		code, stdout, _ := cli(t, "verify", out)
		if code != exitOK || !strings.Contains(stdout, tc.plain) {
			t.Errorf("JetPack %s verify: exit %d\n%s", tc.jp, code, stdout)
		}
		code, stdout, _ = cli(t, "verify", "--nixpkgs", out)
		if code != exitOK || !strings.Contains(stdout, tc.plain) || !strings.Contains(stdout, tc.nixOK) ||
			!strings.Contains(stdout, tc.skip) {
			t.Errorf("JetPack %s verify --nixpkgs: exit %d\n%s", tc.jp, code, stdout)
		}
		// "hold" only when no archive's line says otherwise (issue 31 item 7).
		notOK := regexp.MustCompile(`(?m)^(insecure|nixpkgs-broken|override) `).MatchString(stdout)
		if notOK == strings.Contains(stdout, "rules hold for") {
			t.Errorf("JetPack %s verify --nixpkgs: the closing line contradicts the archive lines:\n%s", tc.jp, stdout)
		}
		if tc.jp != "6" {
			continue
		}
		// One byte flipped in the middle of an archive.
		rel := "cuda/redist/cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz"
		p := filepath.Join(out, rel)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x55
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"verify", out}, {"verify", "--nixpkgs", out}} {
			code, stdout, _ := cli(t, args...)
			want := "FAIL  " + rel + ": sha256 is "
			if code != exitFailure || !strings.Contains(stdout, want) ||
				!strings.Contains(stdout, "the archive is damaged or was replaced") {
				t.Errorf("%v of a damaged archive: exit %d, want a line %q:\n%s", args, code, want, stdout)
			}
			if strings.Contains(stdout, "no package rules") {
				t.Errorf("%v: a damaged cuda_cudart is said to have no package rules:\n%s", args, stdout)
			}
		}
	}
}
