package mirrorgen

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ulikunitz/xz"

	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/testutil"
)

var update = flag.Bool("update", false, "regenerate the committed sample mirror (testdata/sample-mirror)")

const sampleMirror = "../../testdata/sample-mirror"

// TestSampleMirrorUpToDate regenerates the sample mirror and compares it
// file by file with the committed one.
func TestSampleMirrorUpToDate(t *testing.T) {
	if *update {
		for _, repo := range []string{"common", "t234", "som"} {
			if err := os.RemoveAll(filepath.Join(sampleMirror, repo)); err != nil {
				t.Fatal(err)
			}
		}
		if err := Generate(context.Background(), sampleMirror, Options{Suites: SampleSuites()}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(sampleMirror); err != nil {
		t.Fatalf("committed sample mirror missing (run go generate ./internal/mirrorgen): %v", err)
	}
	got := treeHashes(t, generate(t, Options{Suites: SampleSuites()}))
	want := treeHashes(t, sampleMirror)
	diffTrees(t, want, got)
	var size int64
	filepath.Walk(sampleMirror, func(_ string, fi os.FileInfo, err error) error { //nolint:errcheck
		if err == nil && !fi.IsDir() {
			size += fi.Size()
		}
		return nil
	})
	if size > 5<<20 {
		t.Errorf("sample mirror is %d bytes, want < 5 MiB", size)
	}
}

// TestDeterministic: same Options, different concurrency -> same bytes.
func TestDeterministic(t *testing.T) {
	opts := Options{Suites: []string{"r35.6"}, Indexes: []string{"Packages", "Packages.gz", "Packages.xz", "Release"}}
	opts.Jobs = 1
	a := treeHashes(t, generate(t, opts))
	opts.Jobs = 7
	b := treeHashes(t, generate(t, opts))
	if len(a) == 0 {
		t.Fatal("nothing generated")
	}
	diffTrees(t, a, b)
}

// TestInventoryCoverage checks that every default-selected package of the
// real inventory is in the index with its real Filename, Version and Source,
// that index entries describe the files on disk, and (generating all
// suites into one mirror) that suites sharing pool files agree on them.
func TestInventoryCoverage(t *testing.T) {
	suites := Suites()
	dir := generate(t, Options{Suites: suites, Indexes: []string{"Packages"}})
	for _, name := range suites {
		s, err := loadSuite(name)
		if err != nil {
			t.Fatal(err)
		}
		for repo := range s.repos {
			idx := map[string]stanza{}
			for _, st := range readIndex(t, dir, repo, name) {
				idx[st["Package"]] = st
			}
			sel := s.defaultSelection(repo)
			if len(sel) != len(idx) {
				t.Errorf("%s/%s: %d stanzas, %d selected", name, repo, len(idx), len(sel))
			}
			for pkg := range sel {
				e := s.repos[repo][pkg]
				st, ok := idx[pkg]
				if !ok {
					t.Errorf("%s/%s: %s missing from index", name, repo, pkg)
					continue
				}
				if st["Filename"] != e.Filename || st["Version"] != e.Version || st["Source"] != e.Source {
					t.Errorf("%s/%s %s: index has Filename %q Version %q Source %q, inventory %q %q %q",
						name, repo, pkg, st["Filename"], st["Version"], st["Source"], e.Filename, e.Version, e.Source)
				}
				if e.synthetic != (e.SHA256 == "") {
					t.Errorf("%s: synthetic=%v but sha256=%q", pkg, e.synthetic, e.SHA256)
				}
				b, err := os.ReadFile(filepath.Join(dir, repo, filepath.FromSlash(e.Filename)))
				if err != nil {
					t.Error(err)
					continue
				}
				sum := sha256.Sum256(b)
				if hex.EncodeToString(sum[:]) != st["SHA256"] || st["Size"] != strconv.Itoa(len(b)) {
					t.Errorf("%s: index Size/SHA256 do not match the pool file", pkg)
				}
				if meta := strings.Contains(st["Description"], "meta-package"); meta != isMeta(pkg) {
					t.Errorf("%s: Description %q, isMeta %v", pkg, st["Description"], isMeta(pkg))
				}
			}
		}
	}
	// r36.4 and r36.5 share most pool files (same Filename): both indexes
	// must describe the same bytes.
	a, b := readIndex(t, dir, "common", "r36.4"), readIndex(t, dir, "common", "r36.5")
	byFile := map[string]string{}
	for _, st := range a {
		byFile[st["Filename"]] = st["SHA256"]
	}
	shared := 0
	for _, st := range b {
		if h, ok := byFile[st["Filename"]]; ok {
			shared++
			if h != st["SHA256"] {
				t.Errorf("%s: SHA256 differs between r36.4 and r36.5 indexes", st["Filename"])
			}
		}
	}
	if shared < 50 {
		t.Errorf("only %d shared pool files", shared)
	}
}

// TestSelection pins packages that must (not) be in the default selection.
func TestSelection(t *testing.T) {
	tests := []struct {
		suite, repo, pkg string
		want             bool
	}{
		{"r35.6", "common", "cuda-cccl-11-4", true}, // Source cuda-thrust
		{"r35.6", "common", "libcudnn8-dev", true},
		{"r35.6", "common", "libcudnn8-samples", true},
		{"r35.6", "common", "cuda-toolkit-config-common", true},
		{"r35.6", "common", "tensorrt", true}, // meta with versioned Source
		{"r35.6", "common", "uff-converter-tf", true},
		{"r35.6", "common", "vpi2-dev", true},
		{"r35.6", "common", "vpi2-samples", false},
		{"r35.6", "common", "nvidia-container", false},
		{"r35.6", "t234", "nvidia-l4t-core", true},
		{"r35.6", "t234", "nvidia-l4t-kernel", false},
		{"r36.5", "common", "nvidia-l4t-dla-compiler", true},
		{"r36.5", "common", "cuda-crt-12-6", true},
		{"r36.5", "common", "gds-tools-12-6", true}, // Source libcufile
		{"r36.5", "common", "cudnn9-cuda-12-6", true},
		{"r36.5", "common", "cuda-toolkit-12-6", true}, // synthetic meta
		{"r36.5", "common", "nvidia-jetpack", true},
		{"r36.5", "common", "holoscan-cuda-12", false},
		{"r36.5", "common", "libnvidia-container1", false},
		{"r36.5", "common", "nvidia-l4t-cudadebuggingsupport", false},
		{"r36.5", "common", "libopencv", true},
		{"r36.5", "common", "libopencv-dev", false},
		{"r38.4", "common", "cuda-compat-13-0", true}, // Source nvidia-graphics-drivers-580
		{"r38.4", "common", "libnvidia-compute-580", false},
		{"r38.4", "common", "cuda-culibos-dev-13-0", true},
		{"r38.4", "common", "nsight-systems-2025.3.2", true},
		{"r38.4", "common", "nsight-systems-2025.6.1", false}, // only one noise nsight
		{"r39.2", "common", "cuda-compat-orin-13-2", true},
		{"r39.2", "common", "libcudnn9-cuda-13", true},
		{"r39.2", "common", "libcudnn9-cuda-12", true},
		{"r39.2", "common", "libcudnn9-headers-cuda-13", true},
		{"r39.2", "common", "libnvptxcompiler-13-2", true},
		{"r39.2", "common", "libcuobjclient-dev-13-2", true},
		{"r39.2", "common", "cuda-tileiras-13-2", true},
		{"r39.2", "common", "nvidia-driver", false},
		{"r39.2", "common", "dkms", false},
		{"r39.2", "som", "nvidia-l4t-cuda-nvgpu", true},
		{"r39.2", "som", "nvidia-l4t-cuda-openrm", false},
	}
	for _, tt := range tests {
		s, err := loadSuite(tt.suite)
		if err != nil {
			t.Fatal(err)
		}
		if !s.has(tt.repo, tt.pkg) {
			t.Errorf("%s/%s: inventory has no %s", tt.suite, tt.repo, tt.pkg)
			continue
		}
		if got := s.defaultSelection(tt.repo)[tt.pkg]; got != tt.want {
			t.Errorf("%s/%s %s selected = %v, want %v", tt.suite, tt.repo, tt.pkg, got, tt.want)
		}
	}
}

func fileMap(t *testing.T, suite, repo, pkg string) map[string]debtest.File {
	t.Helper()
	fs, err := Files(suite, repo, pkg)
	if err != nil {
		t.Fatalf("Files(%s, %s, %s): %v", suite, repo, pkg, err)
	}
	m := map[string]debtest.File{}
	for _, f := range fs {
		m[f.Name] = f
	}
	return m
}

// TestFiles pins the domain facts the later stages rely on.
func TestFiles(t *testing.T) {
	const (
		c126 = "usr/local/cuda-12.6/"
		t126 = c126 + "targets/aarch64-linux/"
		c132 = "usr/local/cuda-13.2/"
		t132 = c132 + "targets/sbsa-linux/"
		gnu  = "usr/lib/aarch64-linux-gnu/"
		inc  = "usr/include/aarch64-linux-gnu/"
	)
	type want struct {
		path string
		typ  byte   // 0: must be absent
		link string // symlink target, or a substring of the file content
	}
	reg, sym, dir := byte(tar.TypeReg), byte(tar.TypeSymlink), byte(tar.TypeDir)
	tests := []struct {
		suite, repo, pkg string
		want             []want
	}{
		{"r36.5", "common", "cuda-cudart-12-6", []want{
			{t126 + "lib/libcudart.so.12.6.68", reg, ""},
			{t126 + "lib/libcudart.so.12", sym, "libcudart.so.12.6.68"},
			{c126 + "lib64", sym, "targets/aarch64-linux/lib"},
			{t126 + "lib", dir, ""},
			{"usr/share/doc/cuda-cudart-12-6/copyright", reg, "NVIDIA CUDA Toolkit License"},
			{"usr/share/doc/cuda-cudart-12-6/changelog.Debian.gz", reg, ""},
		}},
		{"r36.5", "common", "cuda-cudart-dev-12-6", []want{
			{t126 + "include/cuda_runtime.h", reg, ""},
			{t126 + "include/cuda_runtime_api.h", reg, ""},
			{t126 + "lib/libcudart.so", sym, "libcudart.so.12"},
			{t126 + "lib/libcudart_static.a", reg, "!<arch>"},
			{t126 + "lib/libculibos.a", reg, ""},
			{c126 + "include", sym, "targets/aarch64-linux/include"},
			{
				"usr/lib/pkgconfig/cudart-12.6.pc",
				reg,
				"cudaroot=/usr/local/cuda-12.6\nlibdir=${cudaroot}/targets/aarch64-linux/lib\n" +
					"includedir=${cudaroot}/targets/aarch64-linux/include\n",
			},
		}},
		{"r36.5", "common", "cuda-driver-dev-12-6", []want{
			{t126 + "lib/stubs/libcuda.so", reg, ""},
			{"usr/lib/pkgconfig/cuda-12.6.pc", reg, "Libs: -L${libdir} -lcuda"},
		}},
		{"r36.5", "common", "cuda-toolkit-12-6-config-common", []want{
			{"etc/ld.so.conf.d/cuda-12-6.conf", reg, "/usr/local/cuda-12.6/targets/aarch64-linux/lib"},
			{"usr/local", 0, ""},
		}},
		{"r36.5", "common", "cuda-nvcc-12-6", []want{
			{c126 + "bin/nvcc", reg, "ELF"},
			{c126 + "bin/nvcc.profile", reg, "NVVMIR_LIBRARY_DIR"},
			{t126 + "lib/libnvptxcompiler_static.a", reg, ""},
			{t126 + "include/crt/host_config.h", 0, ""}, // in cuda-crt-12-6
			{c126 + "nvvm/bin/cicc", 0, ""},             // in cuda-nvvm-12-6
		}},
		{"r36.5", "common", "cuda-nvvm-12-6", []want{
			{c126 + "nvvm/lib64/libnvvm.so.4.0.0", reg, ""},
			{c126 + "nvvm/lib64/libnvvm.so", sym, "libnvvm.so.4"},
			{c126 + "nvvm/libdevice/libdevice.10.bc", reg, ""},
		}},
		{"r35.6", "common", "cuda-nvcc-11-4", []want{
			{"usr/local/cuda-11.4/targets/aarch64-linux/include/crt/host_config.h", reg, ""},
			{"usr/local/cuda-11.4/nvvm/bin/cicc", reg, ""},
		}},
		{"r36.5", "common", "cuda-cupti-12-6", []want{
			{c126 + "extras/CUPTI/lib64/libcupti.so.2024.3.1", reg, ""},
			{c126 + "extras/CUPTI/lib64/libcupti.so.12", sym, "libcupti.so.2024.3.1"},
		}},
		{"r36.5", "common", "libcublas-dev-12-6", []want{
			{t126 + "include/cublas_v2.h", reg, ""},
			{t126 + "lib/libcublasLt.so", sym, "libcublasLt.so.12"},
			{t126 + "lib/libcublas_static.a", reg, ""},
			{"usr/lib/pkgconfig/cublas-12.6.pc", reg, "-lcublas"},
		}},
		{"r36.5", "common", "libcublas-12-6", []want{
			{t126 + "lib/libcublas.so.12.6.1.4", reg, ""},
			{t126 + "lib/libcublas.so.12", sym, "libcublas.so.12.6.1.4"},
		}},
		{"r36.5", "common", "libcudnn9-cuda-12", []want{
			{gnu + "libcudnn.so.9.3.0", reg, ""},
			{gnu + "libcudnn.so.9", sym, "libcudnn.so.9.3.0"},
			{gnu + "libcudnn.so", 0, ""}, // made by update-alternatives
		}},
		{"r36.5", "common", "libcudnn9-dev-cuda-12", []want{
			{inc + "cudnn_v9.h", reg, ""},
			{"usr/include/cudnn.h", 0, ""},
		}},
		{"r36.5", "common", "libcudnn9-static-cuda-12", []want{
			{gnu + "libcudnn_ops_static_v9.a", reg, ""},
		}},
		{"r35.6", "common", "libcudnn8", []want{
			{gnu + "libcudnn_cnn_infer.so.8.6.0", reg, ""},
		}},
		{"r35.6", "common", "libcudnn8-dev", []want{
			{inc + "cudnn_v8.h", reg, ""},
			{gnu + "libcudnn_static_v8.a", reg, ""},
		}},
		{"r39.2", "common", "libcudnn9-headers-cuda-13", []want{
			{inc + "cudnn_graph_v9.h", reg, ""},
		}},
		{"r39.2", "common", "libcudnn9-dev-cuda-13", []want{
			{inc + "cudnn_graph_v9.h", 0, ""}, // moved to -headers- in 9.12+
		}},
		{"r36.5", "common", "libnvinfer10", []want{
			{gnu + "libnvinfer.so.10.3.0", reg, ""},
			{gnu + "libnvinfer.so.10", sym, "libnvinfer.so.10.3.0"},
		}},
		{"r36.5", "common", "libnvinfer-headers-dev", []want{{inc + "NvInfer.h", reg, ""}}},
		{"r36.5", "common", "libnvonnxparsers-dev", []want{{inc + "NvOnnxParser.h", reg, ""}}},
		{"r36.5", "common", "libnvinfer-bin", []want{{"usr/src/tensorrt/bin/trtexec", reg, ""}, {"usr/bin/trtexec", 0, ""}}},
		{"r39.2", "common", "libnvinfer-bin", []want{{"usr/bin/trtexec", reg, ""}, {"usr/src/tensorrt/bin/trtexec", 0, ""}}},
		{
			"r36.5",
			"common",
			"libnvinfer-samples",
			[]want{
				{"usr/src/tensorrt/samples/sampleOnnxMNIST/sampleOnnxMNIST.cpp", reg, ""},
				{"usr/src/tensorrt/data/mnist/mnist.onnx", reg, ""},
			},
		},
		{"r36.5", "common", "python3-libnvinfer", []want{{"usr/lib/python3.10/dist-packages/tensorrt/__init__.py", reg, ""}}},
		{"r35.6", "common", "libnvinfer-dev", []want{{inc + "NvInfer.h", reg, ""}}}, // no headers-dev in 8.5
		{"r36.5", "common", "cuda-compat-12-6", []want{
			{c126 + "compat/libcuda.so.1.1", reg, ""},
			{c126 + "compat/libcuda.so.1", sym, "libcuda.so.1.1"},
			{c126 + "compat/libcuda.so", sym, "libcuda.so.1"},
			{c126 + "compat/libnvidia-ptxjitcompiler.so.1", reg, ""},
		}},
		{"r39.2", "common", "cuda-compat-orin-13-2", []want{{c132 + "compat_orin/libcuda.so.1.1", reg, ""}}},
		{
			"r39.2",
			"common",
			"cuda-compat-13-2",
			[]want{{c132 + "compat/libcuda.so.595.58.03", reg, ""}, {c132 + "compat/libcuda.so.1", sym, "libcuda.so.595.58.03"}},
		},
		{
			"r39.2",
			"common",
			"cuda-cudart-13-2",
			[]want{{t132 + "lib/libcudart.so.13.2.75", reg, ""}, {c132 + "lib64", sym, "targets/sbsa-linux/lib"}},
		},
		{
			"r39.2",
			"common",
			"cuda-cudart-dev-13-2",
			[]want{{t132 + "lib/libculibos.a", 0, ""}},
		}, // own source cuda-culibos in 13.x
		{"r39.2", "common", "cuda-culibos-dev-13-2", []want{{t132 + "lib/libculibos.a", reg, ""}}},
		{"r39.2", "common", "cuda-cccl-13-2", []want{{t132 + "include/cccl/thrust/version.h", reg, ""}}},
		{"r39.2", "common", "cuda-documentation-13-2", []want{{c132 + "EULA.txt", reg, "License"}}},
		{"r36.5", "common", "nvidia-l4t-dla-compiler", []want{{gnu + "nvidia/libnvdla_compiler.so", reg, ""}}},
		{
			"r36.5",
			"t234",
			"nvidia-l4t-core",
			[]want{{gnu + "tegra", sym, "nvidia"}, {gnu + "nvidia/libnvrm_gpu.so", reg, ""}},
		},
		{"r35.6", "t234", "nvidia-l4t-core", []want{{gnu + "tegra/libnvdla_compiler.so", reg, ""}}},
		{"r39.2", "som", "nvidia-l4t-cuda-nvgpu", []want{{"opt/nvidia/l4t-gpu-libs/nvgpu/libcuda.so.1.1", reg, ""}}},
		{
			"r36.5",
			"common",
			"cuda-toolkit-12-6",
			[]want{{"usr/share/doc/cuda-toolkit-12-6/copyright", reg, ""}, {"usr/local", 0, ""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.suite+"/"+tt.pkg, func(t *testing.T) {
			m := fileMap(t, tt.suite, tt.repo, tt.pkg)
			for _, w := range tt.want {
				f, ok := m[w.path]
				switch {
				case w.typ == 0:
					if ok {
						t.Errorf("%s present, want absent", w.path)
					}
				case !ok:
					t.Errorf("%s missing", w.path)
				case f.Type != w.typ:
					t.Errorf("%s: type %q, want %q", w.path, f.Type, w.typ)
				case w.typ == sym && f.Linkname != w.link:
					t.Errorf("%s -> %s, want -> %s", w.path, f.Linkname, w.link)
				case w.typ == reg && !bytes.Contains(f.Body, []byte(w.link)):
					t.Errorf("%s: content %q does not contain %q", w.path, f.Body, w.link)
				}
			}
		})
	}
}

// TestFilesInvariants checks every generated package of every suite.
func TestFilesInvariants(t *testing.T) {
	for _, name := range Suites() {
		s, err := loadSuite(name)
		if err != nil {
			t.Fatal(err)
		}
		for repo := range s.repos {
			for _, pkg := range s.selection(repo, Options{}) {
				fs, err := Files(name, repo, pkg)
				if err != nil {
					t.Fatal(err)
				}
				seen := map[string]bool{}
				for _, f := range fs {
					if seen[f.Name] || strings.HasPrefix(f.Name, "/") || strings.Contains(f.Name, "..") ||
						strings.HasSuffix(f.Name, "/") {
						t.Errorf("%s %s: bad or duplicate entry %q", name, pkg, f.Name)
					}
					seen[f.Name] = true
					if d := filepath.Dir(f.Name); d != "." && !seen[d] {
						t.Errorf("%s %s: %q before its parent", name, pkg, f.Name)
					}
					switch f.Type {
					case tar.TypeDir:
						if f.Mode != 0o755 {
							t.Errorf("%s %s: dir %s mode %o", name, pkg, f.Name, f.Mode)
						}
					case tar.TypeSymlink:
						if f.Linkname == "" || strings.HasPrefix(f.Linkname, "/") {
							t.Errorf("%s %s: symlink %s -> %q", name, pkg, f.Name, f.Linkname)
						}
					case tar.TypeReg:
						so := strings.Contains(filepath.Base(f.Name), ".so")
						if so && f.Mode != 0o755 {
							t.Errorf("%s %s: shared object %s mode %o, want 755", name, pkg, f.Name, f.Mode)
						}
						if len(f.Body) == 0 {
							t.Errorf("%s %s: %s is empty", name, pkg, f.Name)
						}
					default:
						t.Errorf("%s %s: %s has type %q", name, pkg, f.Name, f.Type)
					}
				}
				if !sort.SliceIsSorted(fs, func(i, j int) bool {
					li, lj := fs[i].Type == tar.TypeSymlink, fs[j].Type == tar.TypeSymlink
					return (!li && lj) || (li == lj && fs[i].Name < fs[j].Name)
				}) {
					t.Errorf("%s %s: entries not in dpkg-deb order", name, pkg)
				}
				cl := "usr/share/doc/" + pkg + "/changelog.Debian.gz"
				if !seen["usr/share/doc/"+pkg+"/copyright"] || !seen[cl] {
					t.Errorf("%s %s: missing copyright or changelog", name, pkg)
				}
				for _, f := range fs {
					if f.Name == cl {
						zr, err := gzip.NewReader(bytes.NewReader(f.Body))
						if err != nil {
							t.Errorf("%s: %v", cl, err)
							break
						}
						b, _ := io.ReadAll(zr)
						if !bytes.HasPrefix(b, []byte(pkg+" (")) {
							t.Errorf("%s: changelog starts %q", cl, b)
						}
					}
				}
				if isMeta(pkg) && len(fs) != 6 { // usr, usr/share, usr/share/doc, <pkg>, 2 files
					t.Errorf("%s %s: meta-package has %d entries, want docs only", name, pkg, len(fs))
				}
			}
		}
	}
}

// TestPayloadOptions: custom Payload/SizeOf reach synthetic files only.
func TestPayloadOptions(t *testing.T) {
	s, err := loadSuite("r36.5")
	if err != nil {
		t.Fatal(err)
	}
	pi, err := s.info("common", "cuda-cudart-dev-12-6")
	if err != nil {
		t.Fatal(err)
	}
	var calls int
	fs := pi.build().files(func(pkg, p string, size int64) []byte {
		calls++
		if pkg != "cuda-cudart-dev-12-6" {
			t.Errorf("payload called with pkg %q", pkg)
		}
		return bytes.Repeat([]byte{'x'}, int(size))
	}, func(pkg, p string) int64 { return 4096 })
	if calls == 0 {
		t.Fatal("Payload never called")
	}
	for _, f := range fs {
		switch {
		case strings.HasSuffix(f.Name, ".pc"):
			if !bytes.HasPrefix(f.Body, []byte("cudaroot=")) {
				t.Errorf("%s: fixed content replaced: %q", f.Name, f.Body)
			}
		case strings.HasSuffix(f.Name, ".h"):
			if len(f.Body) != 4096 || f.Body[0] != 'x' {
				t.Errorf("%s: payload not used (%d bytes)", f.Name, len(f.Body))
			}
		}
	}
	// The default payload is deterministic and honours the size.
	for _, size := range []int64{0, 5, 100, 1 << 16} {
		a, b := DefaultPayload("p", "usr/lib/x.so", size), DefaultPayload("p", "usr/lib/x.so", size)
		if int64(len(a)) != size || !bytes.Equal(a, b) {
			t.Errorf("DefaultPayload size %d: got %d bytes, equal=%v", size, len(a), bytes.Equal(a, b))
		}
	}
	if bytes.Equal(DefaultPayload("p", "a.h", 64), DefaultPayload("p", "b.h", 64)) {
		t.Error("DefaultPayload ignores the path")
	}
}

func TestIndexes(t *testing.T) {
	dir := generate(
		t,
		Options{Suites: []string{"r36.5"}, Indexes: []string{"Packages", "Packages.gz", "Packages.xz", "Release"},
			Only: func(repo, pkg string) bool { return strings.HasPrefix(pkg, "libcublas") || pkg == "nvidia-l4t-core" }},
	)
	for _, repo := range []string{"common", "t234"} {
		base := filepath.Join(dir, repo, "dists", "r36.5")
		plain, err := os.ReadFile(filepath.Join(base, "main/binary-arm64/Packages"))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(parsePackages(t, plain)); (repo == "common" && n != 2) || (repo == "t234" && n != 1) {
			t.Errorf("%s: %d stanzas", repo, n)
		}
		gz, _ := os.ReadFile(filepath.Join(base, "main/binary-arm64/Packages.gz"))
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		ungz, _ := io.ReadAll(zr)
		xzb, _ := os.ReadFile(filepath.Join(base, "main/binary-arm64/Packages.xz"))
		xr, err := xz.NewReader(bytes.NewReader(xzb))
		if err != nil {
			t.Fatal(err)
		}
		unxz, _ := io.ReadAll(xr)
		if !bytes.Equal(ungz, plain) || !bytes.Equal(unxz, plain) {
			t.Errorf("%s: compressed indexes differ from Packages", repo)
		}
		rel, err := os.ReadFile(filepath.Join(base, "Release"))
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{"Packages": plain, "Packages.gz": gz, "Packages.xz": xzb} {
			sum := sha256.Sum256(b)
			if !bytes.Contains(rel, []byte(hex.EncodeToString(sum[:]))) ||
				!bytes.Contains(rel, []byte("main/binary-arm64/"+name+"\n")) {
				t.Errorf("%s Release lacks the SHA256 of %s", repo, name)
			}
		}
	}
	// Only the requested index files are written.
	dir = generate(
		t,
		Options{
			Suites:  []string{"r36.5"},
			Indexes: []string{"Packages.xz"},
			Only:    func(string, string) bool { return false },
		},
	)
	ents, err := os.ReadDir(filepath.Join(dir, "common/dists/r36.5/main/binary-arm64"))
	if err != nil || len(ents) != 1 || ents[0].Name() != "Packages.xz" {
		t.Errorf("Indexes {Packages.xz}: got %v, %v", ents, err)
	}
}

// TestCompressOption: Options.Compress compresses every member of every
// deb with the package's kind, its suffix and bytes make the member, and the
// index describes the result; nil is the package function Compress.
func TestCompressOption(t *testing.T) {
	want := map[string]string{
		"cuda-12-6":               "gzip",
		"libnpp-12-6":             "xz",
		"nsight-systems-2024.5.4": "none",
		"nvidia-l4t-core":         "zstd",
	}
	opts := Options{Suites: []string{"r36.5"}, Only: func(_, pkg string) bool { return want[pkg] != "" }}
	def := generate(t, opts)
	opts.Compress = Compress
	diffTrees(t, treeHashes(t, def), treeHashes(t, generate(t, opts)))

	// A hook that stores every member uncompressed under a suffix naming
	// the kind it was asked for.
	var mu sync.Mutex
	calls := map[string]int{}
	opts.Compress = func(kind string, b []byte) (string, []byte, error) {
		mu.Lock()
		calls[kind]++
		mu.Unlock()
		return "." + kind, b, nil
	}
	dir := generate(t, opts)
	for _, repo := range []string{"common", "t234"} {
		for _, st := range readIndex(t, dir, repo, "r36.5") {
			kind := want[st["Package"]]
			deb, err := os.ReadFile(filepath.Join(dir, repo, st["Filename"]))
			if err != nil {
				t.Fatal(err)
			}
			if strconv.Itoa(len(deb)) != st["Size"] {
				t.Errorf("%s: Size %s, file %d bytes", st["Package"], st["Size"], len(deb))
			}
			if sum := sha256.Sum256(deb); hex.EncodeToString(sum[:]) != st["SHA256"] {
				t.Errorf("%s: SHA256 does not match the deb", st["Package"])
			}
			old, _ := os.ReadFile(filepath.Join(def, repo, st["Filename"]))
			if bytes.Equal(deb, old) {
				t.Errorf("%s: the hook's deb equals the default compressor's", st["Package"])
			}
			members := arMembers(t, deb)
			for _, m := range []string{"control.tar." + kind, "data.tar." + kind} {
				body, ok := members[m]
				if !ok {
					t.Errorf("%s: no member %s in %v", st["Package"], m, slices.Sorted(maps.Keys(members)))
					continue
				}
				if _, err := tar.NewReader(bytes.NewReader(body)).Next(); err != nil {
					t.Errorf("%s %s: not a stored tar: %v", st["Package"], m, err)
				}
			}
		}
	}
	if len(calls) != len(want) {
		t.Errorf("hook called for kinds %v, want each of %v", calls, want)
	}
	for k, n := range calls {
		if n != 2 {
			t.Errorf("hook called %d times for %s, want 2 (control.tar, data.tar)", n, k)
		}
	}
	err := Generate(context.Background(), t.TempDir(), Options{
		Suites:     []string{"r36.5"},
		UseDpkgDeb: true,
		Compress:   Compress,
	})
	if err == nil {
		t.Error("Compress with UseDpkgDeb accepted")
	}
}

// arMembers returns an ar archive's members by name.
func arMembers(t testing.TB, b []byte) map[string][]byte {
	t.Helper()
	const magic = "!<arch>\n"
	if !bytes.HasPrefix(b, []byte(magic)) {
		t.Fatal("not an ar archive")
	}
	out := map[string][]byte{}
	for off := len(magic); off < len(b); {
		if off+60 > len(b) {
			t.Fatalf("ar header cut at %d", off)
		}
		name := strings.TrimRight(strings.TrimSpace(string(b[off:off+16])), "/")
		size, err := strconv.Atoi(strings.TrimSpace(string(b[off+48 : off+58])))
		if err != nil || off+60+size > len(b) {
			t.Fatalf("ar member %s: size %d: %v", name, size, err)
		}
		out[name] = b[off+60 : off+60+size]
		off += 60 + size + size%2
	}
	return out
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	var use *UnknownSuiteError
	if err := Generate(ctx, t.TempDir(), Options{Suites: []string{"r99.1"}}); !errors.As(err, &use) ||
		use.Suite != "r99.1" {
		t.Errorf("unknown suite: %v", err)
	}
	if _, err := Files("r36.5", "common", "no-such-package"); !errors.As(err, new(*UnknownPackageError)) {
		t.Errorf("unknown package: %v", err)
	}
	if err := Generate(ctx, t.TempDir(), Options{Suites: []string{"r36.5"}, Indexes: []string{"Sources"}}); err == nil {
		t.Error("unknown index accepted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := Generate(cctx, t.TempDir(), Options{Suites: []string{"r36.5"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: %v", err)
	}
	for _, bad := range []string{"../x.deb", "/abs/x.deb", "pool/../../x.deb", "pool/x.txt", "pool//x.deb"} {
		if _, err := poolPath("common", bad); err == nil {
			t.Errorf("poolPath(%q) accepted", bad)
		}
	}
}

// TestDpkgScanpackages: the real dpkg-scanpackages over the generated pool
// writes exactly our stanzas.
func TestDpkgScanpackages(t *testing.T) {
	tool := testutil.RequireTool(t, "dpkg-scanpackages")
	// r39.2 has the most varied control data (Conflicts, alternatives,
	// Architecture all, epochless metas); one suite keeps the test short.
	// Without DEBREDIST_LONG_TESTS=1 (CI sets it) a sample of every kind of
	// stanza: a meta-package without Source, Architecture all, an
	// alternative dependency, Conflicts, plain libraries and the SoC repo.
	var only func(repo, pkg string) bool
	var sample map[string]bool
	if !testutil.Long() {
		sample = map[string]bool{
			"cuda-13-2":                       true,
			"cuda-cccl-13-2":                  true,
			"cuda-cudart-13-2":                true,
			"cuda-toolkit-13-2-config-common": true,
			"libcudnn9-samples":               true,
			"libcudnn9-cuda-13":               true,
			"libcudnn9-dev-cuda-13":           true,
			"libnvinfer10":                    true,
		}
		only = func(repo, pkg string) bool { return repo == "som" || sample[pkg] }
	}
	for _, suite := range []string{"r39.2"} {
		dir := generate(t, Options{Suites: []string{suite}, Indexes: []string{"Packages"}, Only: only})
		for _, repo := range []string{"common", "som"} {
			cmd := exec.Command(tool, "-m", "pool")
			cmd.Dir = filepath.Join(dir, repo)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("dpkg-scanpackages: %v: %s", err, stderr.String())
			}
			theirs := map[string]string{}
			for _, para := range strings.Split(strings.TrimSpace(string(out)), "\n\n") {
				theirs[strings.SplitN(para, "\n", 2)[0]] = para
			}
			b, _ := os.ReadFile(filepath.Join(dir, repo, "dists", suite, "main/binary-arm64/Packages"))
			ours := strings.Split(strings.TrimSpace(string(b)), "\n\n")
			if len(ours) != len(theirs) || only != nil && repo == "common" && len(ours) != len(sample) {
				t.Errorf("%s/%s: %d stanzas, dpkg-scanpackages %d", suite, repo, len(ours), len(theirs))
			}
			for _, para := range ours {
				key := strings.SplitN(para, "\n", 2)[0]
				if theirs[key] != para {
					t.Errorf("%s/%s %s:\nours:\n%s\ndpkg-scanpackages:\n%s", suite, repo, key, para, theirs[key])
				}
			}
		}
	}
}

// TestDpkgDeb: dpkg-deb reads our debs (every compression) and sees exactly
// Files(); building with the real dpkg-deb gives the same file lists and
// control data.
func TestDpkgDeb(t *testing.T) {
	dpkgDeb := testutil.RequireTool(t, "dpkg-deb")
	pick := map[string]bool{
		"cuda-cudart-12-6": true, "cuda-toolkit-12-6-config-common": true, "libcudnn9-cuda-12": true, // xz
		"cuda-toolkit-12-6": true, "libopencv": true, // gzip
		"nvidia-l4t-core": true, "nvidia-l4t-dla-compiler": true, // zstd
		"nsight-systems-2024.5.4": true, // none
	}
	only := func(_, pkg string) bool { return pick[pkg] }
	ours := generate(t, Options{Suites: []string{"r36.5"}, Only: only, Indexes: []string{"Packages"}})
	real := generate(t, Options{Suites: []string{"r36.5"}, Only: only, Indexes: []string{"Packages"}, UseDpkgDeb: true})
	n := 0
	for _, repo := range []string{"common", "t234"} {
		idxOurs, idxReal := readIndex(t, ours, repo, "r36.5"), readIndex(t, real, repo, "r36.5")
		if len(idxOurs) != len(idxReal) {
			t.Fatalf("%s: %d vs %d stanzas", repo, len(idxOurs), len(idxReal))
		}
		for i, st := range idxOurs {
			n++
			pkg := st["Package"]
			for _, k := range []string{"Package", "Version", "Source", "Depends", "Installed-Size", "Description",
				"Architecture", "Filename"} {
				if st[k] != idxReal[i][k] {
					t.Errorf("%s: %s %q vs dpkg-deb %q", pkg, k, st[k], idxReal[i][k])
				}
			}
			debOurs := filepath.Join(ours, repo, st["Filename"])
			debReal := filepath.Join(real, repo, st["Filename"])
			// dpkg-deb -I/-f parse our control member.
			out, err := exec.Command(dpkgDeb, "-f", debOurs, "Package").Output()
			if err != nil || strings.TrimSpace(string(out)) != pkg {
				t.Errorf("dpkg-deb -f %s: %q %v", pkg, out, err)
			}
			if out, err := exec.Command(dpkgDeb, "-I", debOurs, "md5sums").Output(); err != nil || len(out) == 0 {
				t.Errorf("dpkg-deb -I %s md5sums: %v", pkg, err)
			}
			a, b := dpkgDataEntries(t, dpkgDeb, debOurs), dpkgDataEntries(t, dpkgDeb, debReal)
			if len(a) != len(b) {
				t.Errorf("%s: %d entries vs dpkg-deb %d", pkg, len(a), len(b))
				continue
			}
			for j := range a {
				if a[j] != b[j] {
					t.Errorf("%s entry %d: %+v vs dpkg-deb %+v", pkg, j, a[j], b[j])
				}
			}
			// And both match Files().
			fs, err := Files("r36.5", repo, pkg)
			if err != nil {
				t.Fatal(err)
			}
			if len(a) != len(fs)+1 || a[0].Name != "./" {
				t.Errorf("%s: %d tar entries for %d Files", pkg, len(a), len(fs))
				continue
			}
			for j, f := range fs {
				e := a[j+1]
				name := "./" + f.Name
				if f.Type == tar.TypeDir {
					name += "/"
				}
				sum := sha256.Sum256(f.Body)
				if f.Type != tar.TypeReg {
					sum = sha256.Sum256(nil)
				}
				if e.Name != name || e.Type != f.Type || e.Mode != f.Mode || e.Link != f.Linkname ||
					e.Sum != hex.EncodeToString(sum[:]) {
					t.Errorf("%s: tar %+v vs Files %s", pkg, e, f.Name)
				}
			}
		}
	}
	if n != len(pick) {
		t.Errorf("checked %d debs, want %d", n, len(pick))
	}
}
