package nixcheck

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/testutil"
)

type ent struct {
	path, link, content string
	dir                 bool
}

func run(t *testing.T, pname, platform, cuda string, es []ent) *Result {
	return runV(t, pname, platform, cuda, "", es)
}

func runV(t *testing.T, pname, platform, cuda, version string, es []ent) *Result {
	t.Helper()
	c := Default().NewChecker(Target{PName: pname, Platform: platform, CUDA: cuda, Version: version})
	for _, e := range es {
		var err error
		switch {
		case e.dir:
			err = c.Add(entry.Header{Path: e.path, Type: entry.Dir}, nil)
		case e.link != "":
			err = c.Add(entry.Header{Path: e.path, Type: entry.Symlink, Link: e.link}, nil)
		default:
			err = c.Add(entry.Header{Path: e.path, Type: entry.Regular}, strings.NewReader(e.content))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return c.Finish()
}

const pc = "cudaroot=/usr/local/cuda-12.6\nlibdir=${cudaroot}/targets/aarch64-linux/lib\n" +
	"includedir=${cudaroot}/targets/aarch64-linux/include\n\nName: x\nLibs: -L${libdir} -lx\nCflags: -I${includedir}\n"

func TestCheck(t *testing.T) {
	lib := []ent{
		{path: "LICENSE", content: "see /usr/share/doc"},
		{path: "include/cublas.h", content: "x"},
		{path: "lib/libcublas.so.12.6.1", content: "elf"},
		{path: "lib/libcublas.so.12", link: "libcublas.so.12.6.1"},
		{path: "lib/libcublas.so", link: "libcublas.so.12"},
		{path: "lib/libcublas_static.a", content: "ar"},
		{path: "pkg-config/cublas-12.6.pc", content: pc},
	}
	stubs := ent{path: "lib/stubs/libcublas.so", content: "elf"}
	cases := []struct {
		name, pname, platform, cuda string
		es                          []ent
		want                        []string // substrings of failures, in order; nil: none
		own                         int
	}{
		{"complete library", "libcublas", "linux-aarch64", "12.6", append(append([]ent{}, lib...), stubs), nil, 0},
		{"no stubs", "libcublas", "linux-aarch64", "12.6", lib, []string{`output "stubs" would be empty`}, 0},
		{
			"usr reference",
			"libcublas",
			"linux-aarch64",
			"12.6",
			append(append([]ent{}, lib...), stubs, ent{path: "include/x.h", content: "#include </usr/include/y.h>"}),
			[]string{"mention /usr/", "include/x.h"},
			0,
		},
		{
			"pc without Cflags",
			"libcublas",
			"linux-aarch64",
			"12.6",
			append(
				append([]ent{}, lib[:6]...),
				stubs,
				ent{path: "pkg-config/cublas-12.6.pc", content: "libdir=/usr/local/cuda/lib\n"},
			),
			[]string{`lacks "Cflags:"`},
			0,
		},
		{
			"pc left with /usr after rewrite",
			"libcublas",
			"linux-aarch64",
			"12.6",
			append(
				append([]ent{}, lib[:6]...),
				stubs,
				ent{path: "pkg-config/cublas-12.6.pc", content: "prefix=/usr/local\nCflags: -I${prefix}\n"},
			),
			[]string{"mention /usr/", "pkg-config/cublas-12.6.pc"},
			0,
		},
		{
			"unversioned pc exists",
			"libcublas",
			"linux-aarch64",
			"12.6",
			append(append([]ent{}, lib...), stubs, ent{path: "pkg-config/cublas.pc", content: "Cflags: x\n"}),
			[]string{"ln -s for the unversioned link"},
			0,
		},
		{
			"dangling link",
			"libcublas",
			"linux-aarch64",
			"12.6",
			append(append([]ent{}, lib...), stubs, ent{path: "lib/libfoo.so", link: "libfoo.so.1"}),
			[]string{"lib/libfoo.so -> libfoo.so.1: dangling"},
			0,
		},
		{
			"link across outputs dangles",
			"libcublas",
			"linux-aarch64",
			"12.6",
			append(append([]ent{}, lib...), stubs, ent{path: "include/libcublas.so", link: "../lib/libcublas.so"}),
			[]string{`include/libcublas.so -> ../lib/libcublas.so: dangling in output "include"`},
			0,
		},
		{"link through a link and ..", "libcublas", "linux-aarch64", "12.6", append(append([]ent{}, lib...), stubs,
			ent{path: "lib/d", link: "../include"}, ent{path: "lib/libx.so", link: "d/../libcublas.so.12.6.1"}),
			// lexically lib/libcublas.so.12.6.1; really include/../libcublas.so.12.6.1 = libcublas.so.12.6.1 at the root: absent
			[]string{"lib/d -> ../include: dangling", "lib/libx.so -> d/../libcublas.so.12.6.1: dangling"}, 0},
		{"link through a link that resolves", "libcublas", "linux-aarch64", "12.6", append(append([]ent{}, lib...), stubs,
			ent{path: "lib/same", link: "."}, ent{path: "lib/liby.so", link: "same/libcublas.so.12"}), nil, 0},
		{
			"absolute link",
			"libcublas",
			"linux-aarch64",
			"12.6",
			append(append([]ent{}, lib...), stubs, ent{path: "lib/libz.so", link: "/usr/lib/libz.so"}),
			[]string{"absolute link"},
			0,
		},
		{
			"lib/<major> promoted",
			"cuda_nvtx",
			"linux-aarch64",
			"12.6",
			[]ent{
				{path: "include/nvtx3/a.h", content: "x"},
				{path: "lib/12/libnvToolsExt.so", content: "x"},
				{path: "lib/11/libold.so", content: "x"},
			},
			nil,
			0,
		},
		{
			"nvtx 13 header only: nixpkgs' own",
			"cuda_nvtx",
			"linux-sbsa",
			"13.2",
			[]ent{{path: "include/nvtx3/a.h", content: "x"}},
			nil,
			1,
		},
		{
			"nvtx 12 without lib fails",
			"cuda_nvtx",
			"linux-aarch64",
			"12.6",
			[]ent{{path: "include/nvtx3/a.h", content: "x"}},
			[]string{`output "lib" would be empty`},
			0,
		},
		{
			"tensorrt requirements",
			"tensorrt",
			"linux-aarch64",
			"10.3",
			[]ent{
				{path: "include/NvInfer.h", content: "/usr/ ok: allowFHSReferences"},
				{path: "lib/libnvinfer.so.10", content: "x"},
				{path: "bin/trtexec", content: "x"},
				{path: "samples/Makefile", content: "x"},
				{path: "lib/libnvinfer_static.a", content: "x"},
			},
			[]string{"no python/*.whl", "no lib/stubs", "no include/NvOnnx*.h"},
			0,
		},
		{
			"tensorrt complete",
			"tensorrt",
			"linux-aarch64",
			"10.3",
			[]ent{
				{path: "include/NvInfer.h"},
				{path: "include/NvOnnxParser.h"},
				{path: "lib/libnvinfer.so.10"},
				{path: "lib/stubs/libnvinfer.so"},
				{path: "bin/trtexec"},
				{path: "samples/Makefile"},
				{path: "lib/libnvinfer_static.a"},
				{path: "python/tensorrt-10.3.0-cp310-none-linux_aarch64.whl"},
			},
			nil,
			0,
		},
		{
			"nvml pc libdir",
			"cuda_nvml_dev",
			"linux-aarch64",
			"12.6",
			[]ent{
				{path: "include/nvml.h"},
				{path: "lib/stubs/libnvidia-ml.so"},
				{path: "pkg-config/nvidia-ml-12.6.pc", content: "libdir=${prefix}/lib64\n"},
			},
			[]string{"no line matching ^libdir"},
			0,
		},
		{
			"cupti static on sbsa",
			"cuda_cupti",
			"linux-sbsa",
			"13.2",
			[]ent{{path: "include/cupti.h"}, {path: "lib/libcupti.so"}, {path: "samples/a/Makefile"}},
			[]string{`output "static" would be empty`},
			0,
		},
		{
			"cupti no static on aarch64",
			"cuda_cupti",
			"linux-aarch64",
			"12.6",
			[]ent{{path: "include/cupti.h"}, {path: "lib/libcupti.so"}, {path: "samples/a/Makefile"}},
			nil,
			0,
		},
		{
			"nvcc 12 needs nvvm/lib64",
			"cuda_nvcc",
			"linux-aarch64",
			"12.6",
			[]ent{{path: "bin/nvcc.profile", content: "$(TOP)/$(_TARGET_DIR_)/include $(_TARGET_SIZE_)"}},
			[]string{"no nvvm/lib64"},
			0,
		},
		{
			"nvcc 13 does not",
			"cuda_nvcc",
			"linux-sbsa",
			"13.2",
			[]ent{{path: "bin/nvcc.profile", content: "$(TOP)/$(_TARGET_DIR_)/include $(_TARGET_SIZE_)"}},
			nil,
			0,
		},
		{
			"unknown package: generic checks",
			"cuda_foo",
			"linux-aarch64",
			"12.6",
			[]ent{{path: "share/x", content: "/usr/bin/env"}},
			[]string{"mention /usr/"},
			0,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.pname, tc.platform, tc.cuda, tc.es)
			got := strings.Join(r.Failures, "\n")
			if len(tc.want) == 0 && len(r.Failures) > 0 {
				t.Errorf("want no failures, got:\n%s", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("failures lack %q:\n%s", w, got)
				}
			}
			if len(r.NixpkgsOwn) != tc.own {
				t.Errorf("nixpkgs' own: got %v, want %d", r.NixpkgsOwn, tc.own)
			}
		})
	}
}

func TestOutputsOfUnknownAndOrder(t *testing.T) {
	tb := Default()
	if o, ok := tb.Outputs("cuda_foo", "linux-aarch64", "12.6", "1"); ok || len(o) != 1 || o[0] != "out" {
		t.Errorf("unknown package: %v %v", o, ok)
	}
	o, _ := tb.Outputs("tensorrt", "linux-aarch64", "12.6", "10.3.0.30")
	if strings.Join(o, " ") != "out samples bin dev include lib static" {
		t.Errorf("tensorrt outputs in nixpkgs' expected order: %v", o)
	}
	for name, p := range tb.Packages {
		for _, o := range p.Outputs {
			if _, ok := tb.Patterns[o]; !ok && o != "out" {
				t.Errorf("%s: output %q has no pattern", name, o)
			}
		}
	}
}

func TestIsEmptyOutput(t *testing.T) {
	for f, want := range map[string]bool{
		fmt.Sprintf(emptyOutputFormat, "samples"): true,
		fmt.Sprintf(emptyOutputFormat, "lib"):     true,
		"unsafe relative_path":                    false,
		`declared output "lib" is odd`:            false,
	} {
		if got := IsEmptyOutput(f); got != want {
			t.Errorf("IsEmptyOutput(%q) = %v, want %v", f, got, want)
		}
	}
}

// TestHasPackageSet: nixpkgs has package sets of its own from CUDA 12.0
// on; JetPack 5's 11.4 needs one built the jetpack-nixos way.
func TestHasPackageSet(t *testing.T) {
	tab := Default()
	for cuda, want := range map[string]bool{"11.4": false, "11.8": false, "12.0": true, "12.6": true, "13.0": true} {
		if got := tab.HasPackageSet(cuda); got != want {
			t.Errorf("HasPackageSet(%s) = %v, want %v", cuda, got, want)
		}
	}
}

// TestVersionRules: the rules of the pinned files that depend on the
// package version, the devices and the stubs hook.
func TestVersionRules(t *testing.T) {
	tb := Default()
	for _, tc := range []struct{ version, want string }{
		{"8.5.2", "out samples bin dev include lib static"},
		{"10.3.0.30", "out samples bin dev include lib static"},
		{"10.16.2.10", "out bin dev include lib static"}, // samples only below 10.14.1
		{"11.1.0", "out bin dev include lib"},            // static only below 11.0
	} {
		if o, _ := tb.Outputs("tensorrt", "linux-sbsa", "13.2", tc.version); strings.Join(o, " ") != tc.want {
			t.Errorf("tensorrt %s outputs %v, want %s", tc.version, o, tc.want)
		}
	}
	trt := []ent{
		{path: "include/NvInfer.h"},
		{path: "include/NvOnnxParser.h"},
		{path: "lib/libnvinfer.so.10"},
		{path: "lib/stubs/libnvinfer.so"},
		{
			path: "bin/trtexec",
		},
		{path: "lib/libnvinfer_static.a"},
		{path: "python/tensorrt-10.16.2-cp312-none-linux_aarch64.whl"},
	}
	r := runV(t, "tensorrt", "linux-sbsa", "13.2", "10.16.2.10", trt)
	if len(r.Failures) > 0 || len(r.Insecure) > 0 {
		t.Errorf("tensorrt 10.16.2 (no samples declared, secure): %v %v", r.Failures, r.Insecure)
	}
	r = runV(t, "tensorrt", "linux-aarch64", "12.6", "10.3.0.30", append(trt, ent{path: "samples/Makefile"}))
	if len(r.Failures) > 0 || len(r.Insecure) != 1 || !strings.Contains(r.Insecure[0], "CVE-2026-24188") ||
		!strings.Contains(r.Insecure[0], "below 10.16.1") {
		t.Errorf("tensorrt 10.3: failures %v, insecure %v", r.Failures, r.Insecure)
	}
	if r.Source == "" || !strings.Contains(r.Source, "packages/tensorrt/package.nix@1ac181a1") {
		t.Errorf("tensorrt rules name no file@revision: %q", r.Source)
	}

	check := func(tg Target, es []ent) *Result {
		c := tb.NewChecker(tg)
		for _, e := range es {
			testutil.Must(t, c.Add(entry.Header{Path: e.path, Type: entry.Regular}, strings.NewReader("")))
		}
		return c.Finish()
	}
	cudla := []ent{{path: "include/cudla.h"}, {path: "lib/libcudla.so.1"}, {path: "lib/stubs/libcudla.so"}}
	r = check(
		Target{
			PName:        "libcudla",
			Platform:     "linux-sbsa",
			CUDA:         "13.2",
			Version:      "13.2.75",
			Capabilities: []string{"8.7", "11.0"},
			Platforms:    []string{"linux-aarch64", "linux-sbsa"},
		},
		cudla,
	)
	if len(r.Failures) > 0 ||
		strings.Join(
			r.Devices,
			"|",
		) != "8.7: evaluates|11.0: unavailable (platformAssertions: Only Xavier (7.2) and Orin (8.7) Jetson devices are "+
			"supported)" {
		t.Errorf("libcudla on Orin and Thor: %v %v", r.Failures, r.Devices)
	}
	r = check(
		Target{PName: "libcudla", Platform: "linux-sbsa", CUDA: "13.0", Version: "13.0.48", Capabilities: []string{"11.0"}},
		cudla,
	)
	if len(r.Failures) != 1 || !strings.Contains(r.Failures[0], "unavailable for every device") {
		t.Errorf("libcudla for Thor alone: %v", r.Failures)
	}
	r = check(
		Target{
			PName:        "tensorrt",
			Platform:     "linux-aarch64",
			CUDA:         "12.6",
			Version:      "10.3.0.30",
			Capabilities: []string{"7.2"},
		},
		append(trt, ent{path: "samples/Makefile"}),
	)
	if len(r.Failures) != 1 || !strings.Contains(strings.Join(r.Devices, ""), `cudaCapabilities == [ "8.7" ]`) {
		t.Errorf("tensorrt 10 for Xavier: %v %v", r.Failures, r.Devices)
	}

	// The stubs hook: libnvfatbin sets the flag at the pinned generation
	// (NVIDIA's archive ships lib/stubs), so an archive without stubs
	// fails and one with them passes; so does cuda_cudart's.
	r = run(
		t,
		"libnvfatbin",
		"linux-aarch64",
		"12.6",
		[]ent{{path: "lib/libnvfatbin.so.12"}, {path: "lib/stubs/libnvfatbin.so"}},
	)
	if len(r.Failures) > 0 {
		t.Errorf("libnvfatbin with stubs, as NVIDIA ships it: %v", r.Failures)
	}
	r = run(t, "libnvfatbin", "linux-aarch64", "12.6", []ent{{path: "lib/libnvfatbin.so.12"}})
	if !strings.Contains(
		strings.Join(r.Failures, "\n"),
		`output "out" gets the stubs hook (includeRemoveStubsFromRunpathHook) but holds no stubs directory`,
	) {
		t.Errorf("libnvfatbin without stubs: %v", r.Failures)
	}
	r = run(
		t,
		"cuda_cudart",
		"linux-aarch64",
		"12.6",
		[]ent{{path: "include/cuda_runtime.h"}, {path: "lib/libcudart.so.12"}},
	)
	if f := strings.Join(r.Failures, "\n"); !strings.Contains(f, "no lib/stubs") ||
		!strings.Contains(
			f,
			`output "out" gets the stubs hook (includeRemoveStubsFromRunpathHook) but holds no stubs directory`,
		) {
		t.Errorf("cuda_cudart without stubs: %v", r.Failures)
	}
	// cuDNN 8's postFixup patchelfs two libraries by name.
	r = runV(
		t,
		"cudnn",
		"linux-aarch64",
		"11.4",
		"8.6.0.166",
		[]ent{{path: "include/cudnn.h"}, {path: "lib/libcudnn.so.8"}, {path: "lib/libcudnn_static.a"}},
	)
	if f := strings.Join(r.Failures, "\n"); !strings.Contains(f, "no lib/libcudnn.so:") ||
		!strings.Contains(f, "no lib/libcudnn_ops_infer.so:") {
		t.Errorf("cudnn 8 without the patched libraries: %v", r.Failures)
	}
}

// TestEveryRuleHasASource: every package rule names the file and revision
// it was read from, and the revisions are named.
func TestEveryRuleHasASource(t *testing.T) {
	tb := Default()
	for _, k := range []string{"pin", "read", "newest", "jetpack-nixos", "cuda-legacy"} {
		if s := tb.Sources[k]; len(s.Rev) != 40 || s.Repo == "" {
			t.Errorf("source %q: %+v", k, s)
		}
	}
	for name, p := range tb.Packages {
		if !strings.Contains(p.Source, "@") && !strings.HasPrefix(p.Source, "not re-read: packages/"+name+".nix") {
			t.Errorf("%s: no file@revision, and not marked as not re-read: %q", name, p.Source)
		}
	}
}

// TestDropInputsLibcusolver: at 2973b267 libcusolver.nix, like
// libcusparse.nix, takes libnvjitlink on every CUDA version, so on CUDA 11.4
// (no libnvjitlink) the overlay must drop it; from 12.0 it stays.
func TestDropInputsLibcusolver(t *testing.T) {
	for _, pname := range []string{"libcusparse", "libcusolver"} {
		if got := Shared().DropInputs(pname, "11.4"); !slices.Equal(got, []string{"libnvjitlink"}) {
			t.Errorf("%s on 11.4 drops %v, want [libnvjitlink]", pname, got)
		}
		if got := Shared().DropInputs(pname, "12.6"); len(got) != 0 {
			t.Errorf("%s on 12.6 drops %v", pname, got)
		}
	}
}
