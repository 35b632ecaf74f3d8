package mirrorgen

import (
	"regexp"
	"sort"
	"strings"
)

var metaREs = []*regexp.Regexp{
	regexp.MustCompile(
		`^cuda(-toolkit|-libraries|-libraries-dev|-runtime|-compiler|-minimal-build|-command-line-tools|-visual-tools|` +
			`-tools|-nsight-compute|-nsight-systems)?-\d+-\d+$`,
	),
	regexp.MustCompile(`^cudnn\d*(-jit)?(-cuda-\d+(-\d+)?)?$`),
	regexp.MustCompile(`^tensorrt(-dev|-libs)?$`),
	regexp.MustCompile(`^nvidia-(jetpack|cuda|cudnn\d*|tensorrt)(-dev|-runtime)?$`),
}

// isMeta reports whether a package is one of the meta-packages mirrorgen
// knows (its deb then holds only docs and its Description says
// "meta-package").
func isMeta(pkg string) bool {
	for _, re := range metaREs {
		if re.MatchString(pkg) {
			return true
		}
	}
	return false
}

// cudaLibSources are the Source names of the lib* CUDA toolkit components.
var cudaLibSources = map[string]bool{
	"libcublas": true, "libcufft": true, "libcurand": true, "libcusolver": true,
	"libcusparse": true, "libnpp": true, "libnvjitlink": true, "libnvjpeg": true,
	"libcufile": true, "libcudla": true, "libnvfatbin": true, "libnvptxcompiler": true,
	"libnvvm": true, "libcuobjclient": true,
}

// isCUDAFamily reports whether a common-repo package belongs to a CUDA,
// cuDNN or TensorRT redistributable (by its Source name).
func isCUDAFamily(pkg string, e invEntry) bool {
	src := e.sourceName()
	switch {
	case src == "":
		return pkg == "nvidia-l4t-dla-compiler"
	case strings.HasPrefix(src, "cuda-"), cudaLibSources[src]:
		return true
	case src == "cudnn", src == "cudnn-samples", src == "tensorrt":
		return true
	case strings.HasPrefix(src, "nvidia-graphics-drivers"):
		return strings.HasPrefix(pkg, "cuda-compat-")
	}
	return false
}

var socPackages = map[string]bool{
	"nvidia-l4t-core": true, "nvidia-l4t-cuda": true, "nvidia-l4t-3d-core": true,
	"nvidia-l4t-cuda-nvgpu": true,
}

var (
	vpiDevRE = regexp.MustCompile(`^vpi\d+-dev$`)
)

// defaultSelection returns the default selection of one repo of a suite:
// for common every CUDA-family package, the meta-packages and three
// non-CUDA packages as noise; for the SoC repo a few L4T driver debs.
func (s *suite) defaultSelection(repo string) map[string]bool {
	sel := map[string]bool{}
	pkgs := s.repos[repo]
	if repo != "common" {
		for p := range pkgs {
			if socPackages[p] {
				sel[p] = true
			}
		}
		return sel
	}
	var nsight []string
	for p, e := range pkgs {
		switch {
		case isMeta(p), isCUDAFamily(p, e):
			sel[p] = true
		case p == "libopencv", vpiDevRE.MatchString(p):
			sel[p] = true
		case strings.HasPrefix(p, "nsight-systems-"):
			nsight = append(nsight, p)
		}
	}
	if len(nsight) > 0 {
		sort.Strings(nsight)
		sel[nsight[0]] = true
	}
	return sel
}
