package layout

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
)

func engine(t testing.TB, jetpack string) *Engine {
	t.Helper()
	p, err := profile.ForJetPack(jetpack)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func file(deb, p, digest string) Input {
	return Input{
		Header: entry.Header{Path: p, Type: entry.Regular, Mode: 0o644, Size: int64(len(digest))},
		Deb:    deb,
		Digest: digest,
		Ref:    deb + ":" + p,
	}
}
func link(deb, p, target string) Input {
	return Input{Header: entry.Header{Path: p, Type: entry.Symlink, Link: target}, Deb: deb}
}
func dir(deb, p string) Input {
	return Input{Header: entry.Header{Path: p, Type: entry.Dir, Mode: 0o755}, Deb: deb}
}

// contents serves license texts by Ref.
type contents map[string]string

func (c contents) read(ref string) ([]byte, error) {
	s, ok := c[ref]
	if !ok {
		return nil, fmt.Errorf("no content for %s", ref)
	}
	return []byte(s), nil
}

func treeMap(tr *Tree) map[string]Node {
	m := map[string]Node{}
	for _, n := range tr.Nodes {
		m[n.Path] = n
	}
	return m
}

func TestCudartJetPack6(t *testing.T) {
	e := engine(t, "6")
	tg := "usr/local/cuda-12.6/targets/aarch64-linux/"
	ins := []Input{
		dir("cuda-cudart-12-6", "usr"), dir("cuda-cudart-12-6", "usr/local"), dir("cuda-cudart-12-6", tg+"lib"),
		file("cuda-cudart-12-6", tg+"lib/libcudart.so.12.6.68", "A"),
		link("cuda-cudart-12-6", tg+"lib/libcudart.so.12", "libcudart.so.12.6.68"),
		link("cuda-cudart-12-6", "usr/local/cuda-12.6/lib64", "targets/aarch64-linux/lib"),
		link("cuda-cudart-dev-12-6", "usr/local/cuda-12.6/lib64", "targets/aarch64-linux/lib"),
		link("cuda-cudart-12-6", "usr/local/cuda-12.6/include", "targets/aarch64-linux/include"),
		file("cuda-cudart-dev-12-6", tg+"include/cuda_runtime.h", "H"),
		link("cuda-cudart-dev-12-6", tg+"lib/libcudart.so", "libcudart.so.12"),
		file("cuda-cudart-dev-12-6", tg+"lib/libcudart_static.a", "S"),
		file("cuda-cudart-dev-12-6", "usr/lib/pkgconfig/cudart-12.6.pc", "P"),
		file("cuda-driver-dev-12-6", tg+"lib/stubs/libcuda.so", "STUB"),
		// a deb with a real lib64 dir where another ships the symlink: dpkg follows the link
		dir("cuda-driver-dev-12-6", "usr/local/cuda-12.6/lib64"),
		file("cuda-driver-dev-12-6", "usr/local/cuda-12.6/lib64/libextra.so", "X"),
		// an absolute link into the targets tree
		link(
			"cuda-driver-dev-12-6",
			tg+"lib/libcuda-abs.so",
			"/usr/local/cuda-12.6/targets/aarch64-linux/lib/stubs/libcuda.so",
		),
		file("cuda-cudart-12-6", "usr/share/doc/cuda-cudart-12-6/copyright", "c1"),
		file("cuda-cudart-dev-12-6", "usr/share/doc/cuda-cudart-dev-12-6/copyright", "c1"),
		file("cuda-driver-dev-12-6", "usr/share/doc/cuda-driver-dev-12-6/copyright", "c2"),
		file("cuda-cudart-12-6", "usr/share/doc/cuda-cudart-12-6/changelog.Debian.gz", "cl"),
	}
	txt := contents{
		"cuda-cudart-12-6:usr/share/doc/cuda-cudart-12-6/copyright":         "CUDA license\n",
		"cuda-cudart-dev-12-6:usr/share/doc/cuda-cudart-dev-12-6/copyright": "CUDA license\r\n",
		"cuda-driver-dev-12-6:usr/share/doc/cuda-driver-dev-12-6/copyright": "Driver license",
	}
	tr, err := e.Build("cuda_cudart", ins, txt.read)
	if err != nil {
		t.Fatal(err)
	}
	m := treeMap(tr)
	want := map[string]string{ // path -> link target ("" for files)
		"lib/libcudart.so.12.6.68":  "",
		"lib/libcudart.so.12":       "libcudart.so.12.6.68",
		"lib/libcudart.so":          "libcudart.so.12",
		"lib/libcudart_static.a":    "",
		"include/cuda_runtime.h":    "",
		"pkg-config/cudart-12.6.pc": "",
		"lib/stubs/libcuda.so":      "",
		"lib/libextra.so":           "",
		"lib/libcuda-abs.so":        "stubs/libcuda.so",
		"LICENSE":                   "",
	}
	for p, target := range want {
		n, ok := m[p]
		if !ok {
			t.Errorf("missing %s", p)
			continue
		}
		if n.Link != target {
			t.Errorf("%s -> %q, want %q", p, n.Link, target)
		}
	}
	for p := range m {
		if strings.HasPrefix(p, "usr") || strings.HasPrefix(p, "targets") || strings.HasPrefix(p, "lib64") {
			t.Errorf("unnormalized path %s in tree", p)
		}
	}
	lic := string(m["LICENSE"].Data)
	if strings.Count(lic, "CUDA license") != 1 || !strings.Contains(lic, "Driver license") ||
		!strings.Contains(lic, "cuda-cudart-12-6, cuda-cudart-dev-12-6") {
		t.Errorf("LICENSE not merged and deduplicated:\n%s", lic)
	}
	if got := m["lib/libcudart.so.12.6.68"].Origins; len(got) != 1 || got[0].Deb != "cuda-cudart-12-6" {
		t.Errorf("origin = %v", got)
	}
	dropped := map[string]bool{}
	for _, d := range tr.Dropped {
		dropped[d.Path] = true
	}
	if !dropped["usr/local/cuda-12.6/lib64"] || !dropped["usr/share/doc/cuda-cudart-12-6/changelog.Debian.gz"] {
		t.Errorf("dropped = %v", tr.Dropped)
	}
}

func TestUnplacedPathIsAnError(t *testing.T) {
	e := engine(t, "6")
	ins := []Input{
		file("libcublas-12-6", "usr/local/cuda-12.6/targets/aarch64-linux/lib/libcublas.so.12", "A"),
		file("libcublas-12-6", "opt/nvidia/stray.bin", "B"),
		file("libcublas-dev-12-6", "usr/local/cuda-12.8/include/x.h", "C"),
	}
	_, err := e.Build("libcublas", ins, nil)
	var ue *fault.UnplacedError
	if !errors.As(err, &ue) {
		t.Fatalf("want UnplacedError, got %v", err)
	}
	if len(ue.Paths) != 2 || !strings.Contains(err.Error(), "libcublas-12-6: opt/nvidia/stray.bin") ||
		!strings.Contains(err.Error(), "libcublas-dev-12-6: usr/local/cuda-12.8/include/x.h") {
		t.Errorf("error does not list every unplaced path with its deb: %v", err)
	}
}

func TestConflicts(t *testing.T) {
	e := engine(t, "6")
	tg := "usr/local/cuda-12.6/targets/aarch64-linux/"
	same := []Input{file("a", tg+"include/x.h", "1"), file("b", tg+"include/x.h", "1")}
	tr, err := e.Build("cuda_nvcc", same, nil)
	if err != nil {
		t.Fatalf("identical content must be fine: %v", err)
	}
	if n := treeMap(tr)["include/x.h"]; len(n.Origins) != 2 {
		t.Errorf("both origins must be recorded: %v", n.Origins)
	}
	diff := []Input{file("a", tg+"include/x.h", "1"), file("b", "usr/local/cuda-12.6/include/x.h", "2")}
	_, err = e.Build("cuda_nvcc", diff, nil)
	var ce *fault.ConflictError
	if !errors.As(err, &ce) || ce.A.Deb != "a" || ce.B.Deb != "b" || ce.Path != "include/x.h" {
		t.Fatalf("want ConflictError naming both debs, got %v", err)
	}
	parent := []Input{file("a", tg+"lib/stubs", "1"), file("b", tg+"lib/stubs/libcuda.so", "2")}
	if _, err := e.Build("cuda_cudart", parent, nil); !errors.As(err, &ce) {
		t.Fatalf("file where a dir is needed: want ConflictError, got %v", err)
	}
}

func TestSymlinkOutsideTree(t *testing.T) {
	e := engine(t, "6")
	ins := []Input{link("x", "usr/lib/aarch64-linux-gnu/libfoo.so", "/etc/passwd")}
	_, err := e.Build("libfoo", ins, nil)
	var le *fault.LinkError
	if !errors.As(err, &le) || le.Link.Deb != "x" {
		t.Fatalf("want LinkError, got %v", err)
	}
	ins = []Input{link("x", "usr/lib/aarch64-linux-gnu/libfoo.so", "../../../../etc/passwd")}
	if _, err := e.Build("libfoo", ins, nil); !errors.As(err, &le) {
		t.Fatalf("escaping link: want LinkError, got %v", err)
	}
}

func TestCudnnAlternativesAndTensorRT(t *testing.T) {
	e := engine(t, "6")
	lib := "usr/lib/aarch64-linux-gnu/"
	ins := []Input{
		file("libcudnn9-cuda-12", lib+"libcudnn.so.9.3.0", "1"),
		link("libcudnn9-cuda-12", lib+"libcudnn.so.9", "libcudnn.so.9.3.0"),
		file("libcudnn9-cuda-12", lib+"libcudnn_ops.so.9.3.0", "2"),
		file("libcudnn9-dev-cuda-12", "usr/include/aarch64-linux-gnu/cudnn_v9.h", "3"),
		file("libcudnn9-dev-cuda-12", "usr/include/aarch64-linux-gnu/cudnn_ops_v9.h", "4"),
		file("libcudnn9-static-cuda-12", lib+"libcudnn_ops_static_v9.a", "5"),
	}
	tr, err := e.Build("cudnn", ins, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := treeMap(tr)
	for p, target := range map[string]string{
		"lib/libcudnn.so.9":         "libcudnn.so.9.3.0",
		"lib/libcudnn.so":           "libcudnn.so.9",
		"lib/libcudnn_ops.so.9":     "libcudnn_ops.so.9.3.0",
		"lib/libcudnn_ops.so":       "libcudnn_ops.so.9",
		"include/cudnn.h":           "cudnn_v9.h",
		"include/cudnn_ops.h":       "cudnn_ops_v9.h",
		"lib/libcudnn_ops_static.a": "libcudnn_ops_static_v9.a",
	} {
		if n, ok := m[p]; !ok || n.Type != entry.Symlink || n.Link != target {
			t.Errorf("%s: got %+v, want symlink to %s", p, n, target)
		}
	}
	if m["lib/libcudnn.so.9"].Origins[0].Deb != "libcudnn9-cuda-12" {
		t.Errorf("the deb's own link must not be replaced by a generated one")
	}

	trt := []Input{
		file("libnvinfer-bin", "usr/src/tensorrt/bin/trtexec", "1"),
		file("libnvinfer-samples", "usr/src/tensorrt/samples/sampleOnnxMNIST/main.cpp", "2"),
		file("libnvinfer-samples", "usr/src/tensorrt/data/mnist/digits.pgm", "3"),
		file("libnvinfer10", lib+"libnvinfer.so.10.3.0", "4"),
		file("python3-libnvinfer", "usr/lib/python3.10/dist-packages/tensorrt/__init__.py", "5"),
	}
	tr, err = e.Build("tensorrt", trt, nil)
	if err != nil {
		t.Fatal(err)
	}
	m = treeMap(tr)
	for _, p := range []string{
		"bin/trtexec",
		"samples/sampleOnnxMNIST/main.cpp",
		"data/mnist/digits.pgm",
		"lib/libnvinfer.so.10.3.0",
		"lib/libnvinfer.so.10",
		"lib/python3.10/dist-packages/tensorrt/__init__.py",
	} {
		if _, ok := m[p]; !ok && p != "lib/libnvinfer.so.10" {
			t.Errorf("missing %s", p)
		}
	}
	if _, ok := m["lib/libnvinfer.so.10"]; ok {
		t.Errorf("link rules for cudnn must not apply to tensorrt")
	}
}

func TestDirVersusSymlinkTegra(t *testing.T) {
	e := engine(t, "6")
	lib := "usr/lib/aarch64-linux-gnu/"
	ins := []Input{
		link("nvidia-l4t-core", lib+"tegra", "nvidia"),
		file("nvidia-l4t-core", lib+"nvidia/libnvrm.so", "1"),
		dir("nvidia-l4t-cudadebuggingsupport", lib+"tegra"),
		file("nvidia-l4t-cudadebuggingsupport", lib+"tegra/libcuda-debugger.so", "2"),
	}
	tr, err := e.Build("l4t_core", ins, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := treeMap(tr)
	if _, ok := m["lib/libcuda-debugger.so"]; !ok {
		t.Errorf("file under a dir that another deb ships as a symlink must follow the symlink: %v", m)
	}
}

func BenchmarkBuild(b *testing.B) {
	e := engine(b, "6")
	var ins []Input
	tg := "usr/local/cuda-12.6/targets/aarch64-linux/"
	for i := range 20000 {
		ins = append(ins, file("libnpp-dev-12-6", fmt.Sprintf("%sinclude/npp/sub%d/h%d.h", tg, i%50, i), fmt.Sprint(i)))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Build("libnpp", ins, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHardlinks: a hardlinked copyright file feeds LICENSE with its
// target's content; a hardlink through a symlinked directory is resolved
// like its target's path.
func TestHardlinks(t *testing.T) {
	e := engine(t, "6")
	lib := "usr/lib/aarch64-linux-gnu/"
	ins := []Input{
		file("libnvinfer10", "usr/share/doc/libnvinfer10/copyright", "c"),
		{
			Header: entry.Header{
				Path: "usr/share/doc/libnvinfer10/copyright.hard",
				Type: entry.Hardlink,
				Link: "usr/share/doc/libnvinfer10/copyright",
			},
			Deb: "libnvinfer10",
		},
		{
			Header: entry.Header{
				Path: "usr/share/doc/libnvinfer-dev/copyright",
				Type: entry.Hardlink,
				Link: "usr/share/doc/libnvinfer10/copyright",
			},
			Deb: "libnvinfer-dev",
		},
		link("libnvinfer10", lib+"tegra", "nvidia"),
		file("libnvinfer10", lib+"nvidia/libx.so.1", "x"),
		{
			Header: entry.Header{Path: lib + "libx-hard.so.1", Type: entry.Hardlink, Link: lib + "tegra/libx.so.1"},
			Deb:    "libnvinfer10",
		},
	}
	txt := contents{"libnvinfer10:usr/share/doc/libnvinfer10/copyright": "TensorRT license"}
	_, err := e.Build("tensorrt", ins, txt.read)
	var le *fault.LinkError
	if !errors.As(err, &le) || le.Link.Deb != "libnvinfer-dev" {
		t.Fatalf("a hardlink into another deb must be a LinkError naming the deb, got %v", err)
	}
	tr, err := e.Build("tensorrt", ins[:2:2], txt.read)
	if err != nil {
		t.Fatal(err)
	}
	if lic := string(treeMap(tr)["LICENSE"].Data); !strings.Contains(lic, "TensorRT license") {
		t.Errorf("LICENSE = %q", lic)
	}
	tr, err = e.Build("tensorrt", append(ins[:1:1], ins[3:]...), txt.read)
	if err != nil {
		t.Fatal(err)
	}
	if n := treeMap(tr)["lib/libx-hard.so.1"]; n.Type != entry.Hardlink || n.Link != "lib/libx.so.1" {
		t.Errorf("hardlink through tegra -> nvidia: %+v", n)
	}
}
