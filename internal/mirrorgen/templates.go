package mirrorgen

import (
	"archive/tar"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// family names the upstream product a package belongs to; it selects the
// license text, compression, maintainer and section.
type family string

const (
	famCUDA     family = "cuda"
	famCUDNN    family = "cudnn"
	famTensorRT family = "tensorrt"
	famDriver   family = "driver"
	famL4T      family = "l4t"
	famOpenCV   family = "opencv"
	famVPI      family = "vpi"
	famNsight   family = "nsight"
	famJetPack  family = "jetpack"
	famOther    family = "other"
)

const triple = "aarch64-linux-gnu"

// pkgInfo is the resolved description of one binary package.
type pkgInfo struct {
	s       *suite
	repo    string
	name    string
	e       invEntry
	fam     family
	meta    bool
	base    string // name without the "-X-Y" CUDA suffix
	short   string // first Description line
	upVer   string // upstream version
	cudaLib string // for lib* CUDA sources: the Source name
}

func (s *suite) info(repo, name string) (*pkgInfo, error) {
	e, ok := s.repos[repo][name]
	if !ok {
		return nil, &UnknownPackageError{Suite: s.name, Repo: repo, Package: name}
	}
	pi := &pkgInfo{s: s, repo: repo, name: name, e: e, meta: isMeta(name), upVer: upstream(e.Version)}
	pi.base = strings.TrimSuffix(name, "-"+s.cudaDash)
	src := e.sourceName()
	switch {
	case pi.meta && (strings.HasPrefix(name, "nvidia-jetpack")):
		pi.fam = famJetPack
	case pi.meta && strings.HasPrefix(name, "cudnn"),
		src == "cudnn",
		src == "cudnn-samples",
		strings.HasPrefix(name, "nvidia-cudnn"):
		pi.fam = famCUDNN
	case pi.meta && strings.HasPrefix(name, "tensorrt"), src == "tensorrt", strings.HasPrefix(name, "nvidia-tensorrt"):
		pi.fam = famTensorRT
	case strings.HasPrefix(src, "nvidia-graphics-drivers"):
		pi.fam = famDriver
	case strings.HasPrefix(name, "nvidia-l4t-"):
		pi.fam = famL4T
	case strings.HasPrefix(name, "libopencv") || strings.HasPrefix(name, "opencv"):
		pi.fam = famOpenCV
	case strings.Contains(name, "vpi"):
		pi.fam = famVPI
	case strings.HasPrefix(name, "nsight-"):
		pi.fam = famNsight
	case pi.meta, strings.HasPrefix(src, "cuda-"), cudaLibSources[src], strings.HasPrefix(name, "cuda-"):
		pi.fam = famCUDA
		if cudaLibSources[src] {
			pi.cudaLib = src
		}
	default:
		pi.fam = famOther
	}
	pi.short = pi.describe()
	if pi.meta && !e.synthetic {
		// The real repository words these meta-packages so that their
		// first Description line does not say "meta-package": that is
		// why jetpack-nixos' inventories (which drop debs whose first
		// line says it) keep them while dropping cuda-toolkit-X-Y & co.
		pi.short = strings.Replace(pi.short, "meta-package", "meta package", 1)
	}
	return pi, nil
}

// cudaPaths are the CUDA toolkit directories of a suite.
type cudaPaths struct {
	root, tgt, lib, inc string
}

func (s *suite) paths() cudaPaths {
	root := "usr/local/cuda-" + s.cudaXY
	tgt := root + "/targets/" + s.target
	return cudaPaths{root: root, tgt: tgt, lib: tgt + "/lib", inc: tgt + "/include"}
}

// pc returns a CUDA pkg-config file.
func (s *suite) pc(name, desc, libs string) string {
	return fmt.Sprintf(`cudaroot=/usr/local/cuda-%[1]s
libdir=${cudaroot}/targets/%[2]s/lib
includedir=${cudaroot}/targets/%[2]s/include

Name: %[3]s
Description: %[4]s
Version: %[1]s
Libs: -L${libdir} %[5]s
Cflags: -I${includedir}
`, s.cudaXY, s.target, name, desc, libs)
}

func (t *tree) pcFile(s *suite, name, desc, libs string) {
	t.text("usr/lib/pkgconfig/"+name+"-"+s.cudaXY+".pc", s.pc(name, desc, libs))
}

// cudaLibSpec describes a lib* CUDA component: runtime libraries, headers,
// static archives and pkg-config names.
type cudaLibSpec struct {
	libs    []string
	soname  string // "" -> first component of the version
	headers []string
	static  []string
	pcs     []string
	desc    string
}

var nppLibs = []string{
	"libnppc",
	"libnppial",
	"libnppicc",
	"libnppidei",
	"libnppif",
	"libnppig",
	"libnppim",
	"libnppist",
	"libnppisu",
	"libnppitc",
	"libnpps",
}

func cudaLibSpecs(major int) map[string]cudaLibSpec {
	solver := []string{"libcusolver_static.a"}
	if major >= 12 {
		solver = append(solver, "libcusolver_lapack_static.a", "libmetis_static.a")
	}
	var nppStatic, nppPC []string
	for _, l := range nppLibs {
		nppStatic = append(nppStatic, l+"_static.a")
		nppPC = append(nppPC, strings.TrimPrefix(l, "lib"))
	}
	return map[string]cudaLibSpec{
		"libcublas": {libs: []string{"libcublas", "libcublasLt", "libnvblas"},
			headers: []string{"cublas.h", "cublas_api.h", "cublas_v2.h", "cublasLt.h", "cublasXt.h", "nvblas.h"},
			static:  []string{"libcublas_static.a", "libcublasLt_static.a"}, pcs: []string{"cublas"}, desc: "cuBLAS"},
		"libcufft": {libs: []string{"libcufft", "libcufftw"},
			headers: []string{"cufft.h", "cufftXt.h", "cufftw.h"},
			static: []string{
				"libcufft_static.a",
				"libcufft_static_nocallback.a",
				"libcufftw_static.a",
			}, pcs: []string{"cufft", "cufftw"}, desc: "cuFFT"},
		"libcurand": {libs: []string{"libcurand"},
			headers: []string{"curand.h", "curand_discrete.h", "curand_kernel.h", "curand_mtgp32.h"},
			static:  []string{"libcurand_static.a"}, pcs: []string{"curand"}, desc: "cuRAND"},
		"libcusolver": {libs: []string{"libcusolver", "libcusolverMg"},
			headers: []string{"cusolverDn.h", "cusolverMg.h", "cusolverRf.h", "cusolverSp.h", "cusolver_common.h"},
			static:  solver, pcs: []string{"cusolver"}, desc: "cuSOLVER"},
		"libcusparse": {libs: []string{"libcusparse"},
			headers: []string{"cusparse.h", "cusparse_v2.h"},
			static:  []string{"libcusparse_static.a"}, pcs: []string{"cusparse"}, desc: "cuSPARSE"},
		"libnpp": {libs: nppLibs,
			headers: []string{"npp.h", "nppcore.h", "nppdefs.h", "nppi.h", "nppi_color_conversion.h", "npps.h"},
			static:  nppStatic, pcs: nppPC, desc: "NPP"},
		"libnvjpeg": {libs: []string{"libnvjpeg"}, headers: []string{"nvjpeg.h"},
			static: []string{"libnvjpeg_static.a"}, pcs: []string{"nvjpeg"}, desc: "nvJPEG"},
		"libnvjitlink": {libs: []string{"libnvJitLink"}, headers: []string{"nvJitLink.h"},
			static: []string{"libnvJitLink_static.a"}, pcs: []string{"nvjitlink"}, desc: "nvJitLink"},
		"libnvfatbin": {libs: []string{"libnvfatbin"}, headers: []string{"nvFatbin.h"},
			static: []string{"libnvfatbin_static.a"}, pcs: []string{"nvfatbin"}, desc: "nvFatbin"},
		"libcudla": {libs: []string{"libcudla"}, soname: "1", headers: []string{"cudla.h"},
			pcs: []string{"cudla"}, desc: "cuDLA"},
		"libcuobjclient": {libs: []string{"libcuobjclient"}, soname: "1", headers: []string{"cuobjclient.h"},
			static: []string{"libcuobjclient_static.a"}, pcs: []string{"cuobjclient"}, desc: "cuObject client"},
	}
}

var (
	cudnnRE = regexp.MustCompile(`^libcudnn(\d+)(-jit)?(-dev|-static|-headers|-samples)?(-cuda-(\d+))?$`)
	trtRE   = regexp.MustCompile(`^libnv(infer|onnxparsers|parsers)(-[a-z-]+)?(\d+)?$`)
)

// build returns the file tree of one binary package.
func (pi *pkgInfo) build() *tree {
	s := pi.s
	t := newTree(pi.name, s.elfDir())
	if !pi.meta {
		switch pi.fam {
		case famCUDA, famDriver:
			pi.buildCUDA(t)
		case famCUDNN:
			pi.buildCUDNN(t)
		case famTensorRT:
			pi.buildTensorRT(t)
		case famL4T:
			pi.buildL4T(t)
		case famOpenCV:
			v := strings.SplitN(pi.e.Version, "-", 2)[0]
			d := "usr/lib/" + triple
			so := strings.ReplaceAll(firstN(v, 2), ".", "0")
			for _, l := range []string{"libopencv_core", "libopencv_imgproc"} {
				t.lib(d, l, v, so)
			}
		case famVPI:
			n := strings.TrimSuffix(strings.TrimPrefix(pi.name, "vpi"), "-dev")
			root := "opt/nvidia/vpi" + n
			t.blobs(root+"/include/vpi", "Image.h", "Stream.h", "Version.h")
			t.text(root+"/lib/"+triple+"/cmake/vpi/vpi-config.cmake", "# synthetic vpi-config.cmake\n")
		case famNsight:
			ver := strings.TrimPrefix(pi.name, "nsight-systems-")
			root := "opt/nvidia/nsight-systems/" + ver
			t.bin(root + "/bin/nsys")
			t.bin(root + "/target-linux-tegra-armv8/nsys")
		default:
			t.blob("usr/share/" + pi.name + "/README")
		}
	}
	// Every deb carries its copyright and Debian changelog.
	doc := "usr/share/doc/" + pi.name
	t.text(doc+"/copyright", licenseText(pi.fam))
	t.nodes[doc+"/changelog.Debian.gz"] = &node{typ: tar.TypeReg, mode: 0o644, body: gzipBytes([]byte(pi.changelog()))}
	// CUDA debs ship the lib64 and include convenience links next to
	// targets/ (the same links in many debs).
	if pi.fam == famCUDA && !pi.meta {
		p := s.paths()
		if t.hasPrefix(p.lib) {
			t.link(p.root+"/lib64", "targets/"+s.target+"/lib")
		}
		if t.hasPrefix(p.inc) {
			t.link(p.root+"/include", "targets/"+s.target+"/include")
		}
	}
	return t
}

func (pi *pkgInfo) changelog() string {
	return fmt.Sprintf(
		"%s (%s) stable; urgency=medium\n\n  * Synthetic release generated by debredist mirrorgen.\n\n"+
			" -- %s  Mon, 01 Jan 2024 00:00:00 +0000\n",
		pi.name,
		pi.e.Version,
		pi.maintainer(),
	)
}

// buildCUDA fills the tree of a CUDA toolkit package (or of a cuda-compat
// driver package) by its name; a package it does not know gets a README.
func (pi *pkgInfo) buildCUDA(t *tree) {
	if pi.cudaLib != "" {
		pi.buildCUDALib(t)
		return
	}
	if pi.buildCUDAConfig(t) {
		return
	}
	p := pi.s.paths()
	if pi.buildCUDARuntime(t, p) || pi.buildCUDACompiler(t, p) || pi.buildCUDATools(t, p) ||
		pi.buildCUDADocs(t, p) || pi.buildCUDACompat(t, p) {
		return
	}
	t.blob(p.root + "/share/" + pi.name + "/README")
}

// buildCUDAConfig fills the cuda-toolkit*-config-common packages (an
// ld.so.conf.d snippet each), and reports whether pi is one of them.
func (pi *pkgInfo) buildCUDAConfig(t *tree) bool {
	s := pi.s
	major := strconv.Itoa(s.cudaMajor)
	switch pi.name {
	case "cuda-toolkit-" + s.cudaDash + "-config-common":
		t.text("etc/ld.so.conf.d/cuda-"+s.cudaDash+".conf", "/usr/local/cuda-"+s.cudaXY+"/targets/"+s.target+"/lib\n")
	case "cuda-toolkit-" + major + "-config-common":
		t.text("etc/ld.so.conf.d/988_cuda-"+major+".conf", "/usr/local/cuda-"+major+"/targets/"+s.target+"/lib\n")
	case "cuda-toolkit-config-common":
		t.text("etc/ld.so.conf.d/000_cuda.conf", "/usr/local/cuda/targets/"+s.target+"/lib\n")
	default:
		return false
	}
	return true
}

// buildCUDARuntime fills the runtime libraries and their development
// packages (cudart, the driver stub, culibos, nvrtc), header-only packages
// (cccl, profiler-api, sandbox-dev), and reports whether pi.base is one of
// them.
func (pi *pkgInfo) buildCUDARuntime(t *tree, p cudaPaths) bool {
	s := pi.s
	v := pi.upVer
	switch pi.base {
	case "cuda-cudart":
		t.lib(p.lib, "libcudart", v, cudartSoname(s))
	case "cuda-cudart-dev":
		t.blobs(p.inc, "cuda.h", "cudaEGL.h", "cuda_egl_interop.h", "cuda_runtime.h", "cuda_runtime_api.h",
			"cuda_device_runtime_api.h", "driver_types.h", "vector_types.h", "cooperative_groups.h",
			"cooperative_groups/details/helpers.h")
		t.devlink(p.lib, "libcudart", cudartSoname(s))
		t.blobs(p.lib, "libcudart_static.a", "libcudadevrt.a")
		if !s.has("common", "cuda-culibos-dev-"+s.cudaDash) {
			t.blob(p.lib + "/libculibos.a")
		}
		t.pcFile(s, "cudart", "CUDA Runtime Library", "-lcudart")
	case "cuda-driver-dev":
		t.stub(p.lib+"/stubs/libcuda.so", "libcuda.so.1")
		t.pcFile(s, "cuda", "CUDA Driver Library", "-lcuda")
	case "cuda-culibos":
		// The runtime half of a static-only library: docs only.
	case "cuda-culibos-dev":
		t.blob(p.lib + "/libculibos.a")
	case "cuda-nvrtc":
		t.lib(p.lib, "libnvrtc", v, nvrtcSoname(s))
		t.lib(p.lib, "libnvrtc-builtins", v, s.cudaXY)
	case "cuda-nvrtc-dev":
		t.blob(p.inc + "/nvrtc.h")
		t.devlink(p.lib, "libnvrtc", nvrtcSoname(s))
		t.devlink(p.lib, "libnvrtc-builtins", s.cudaXY)
		t.blob(p.lib + "/libnvrtc_static.a")
		if s.cudaMajor >= 12 {
			t.blob(p.lib + "/libnvrtc-builtins_static.a")
		}
		t.pcFile(s, "nvrtc", "A runtime compilation library for CUDA C++", "-lnvrtc")
	case "cuda-sandbox-dev":
		t.blob(p.inc + "/nvsandbox.h")
	case "cuda-profiler-api":
		t.blobs(p.inc, "cudaProfilerTypedefs.h", "cuda_profiler_api.h")
	case "cuda-cccl":
		inc := p.inc
		if s.cudaMajor >= 13 {
			inc += "/cccl"
		}
		t.blobs(inc, "thrust/version.h", "thrust/device_vector.h", "cub/cub.cuh", "cub/version.cuh", "cuda/std/atomic")
		for name, text := range cubPatched(s.cudaXY) {
			t.text(inc+"/cub/"+name, text)
		}
		if s.cudaMajor >= 12 {
			t.blob(inc + "/nv/target")
			t.text(p.lib+"/cmake/cccl/cccl-config.cmake", "# synthetic cccl-config.cmake\n")
		}
		for _, c := range []string{"thrust", "cub", "libcudacxx"} {
			t.text(p.lib+"/cmake/"+c+"/"+c+"-config.cmake", "# synthetic "+c+"-config.cmake\n")
		}
	default:
		return false
	}
	return true
}

// buildCUDACompiler fills the compiler packages (nvcc, crt, nvvm) and the
// binary utilities (cuobjdump, cu++filt, nvprune, tileiras), and reports
// whether pi.base is one of them.
func (pi *pkgInfo) buildCUDACompiler(t *tree, p cudaPaths) bool {
	s := pi.s
	switch pi.base {
	case "cuda-nvcc":
		t.bins(p.root+"/bin", "nvcc", "ptxas", "fatbinary", "nvlink", "bin2c", "cudafe++")
		t.text(p.root+"/bin/nvcc.profile", s.nvccProfile())
		t.blobs(p.root+"/bin/crt", "link.stub", "prelink.stub")
		t.blob(p.inc + "/fatbinary_section.h")
		if !s.has("common", "libnvptxcompiler-"+s.cudaDash) {
			t.blob(p.inc + "/nvPTXCompiler.h")
			t.blob(p.lib + "/libnvptxcompiler_static.a")
		}
		if !s.has("common", "cuda-crt-"+s.cudaDash) {
			s.crtHeaders(t, p.inc)
		}
		if !s.has("common", "cuda-nvvm-"+s.cudaDash) && !s.has("common", "libnvvm-"+s.cudaDash) {
			nvvmTree(t, p.root)
		}
	case "cuda-crt":
		s.crtHeaders(t, p.inc)
	case "cuda-nvvm":
		nvvmTree(t, p.root)
	case "cuda-cuobjdump":
		t.bin(p.root + "/bin/cuobjdump")
	case "cuda-nvprune":
		t.bin(p.root + "/bin/nvprune")
	case "cuda-cuxxfilt":
		t.bin(p.root + "/bin/cu++filt")
		t.blob(p.inc + "/nv_decode.h")
		t.blob(p.lib + "/libcufilt.a")
	case "cuda-tileiras":
		t.bin(p.root + "/bin/tileiras")
	default:
		return false
	}
	return true
}

// buildCUDATools fills the profiling, debugging and management tools
// (CUPTI, NVTX, cuda-gdb, nvdisasm, compute-sanitizer, ctadvisor, NVML),
// and reports whether pi.base is one of them.
func (pi *pkgInfo) buildCUDATools(t *tree, p cudaPaths) bool {
	s := pi.s
	v := pi.upVer
	switch pi.base {
	case "cuda-cupti":
		d := p.root + "/extras/CUPTI/lib64"
		t.lib(d, "libcupti", s.cupti, cuptiSoname(s))
		t.sos(d, "libnvperf_host.so", "libnvperf_target.so", "libpcsamplingutil.so")
		if s.cudaMajor >= 12 {
			t.so(d + "/libcheckpoint.so")
		}
	case "cuda-cupti-dev":
		c := p.root + "/extras/CUPTI"
		t.blobs(c+"/include", "cupti.h", "cupti_activity.h", "cupti_callbacks.h", "cupti_events.h",
			"cupti_metrics.h", "cupti_profiler_target.h", "cupti_result.h", "cupti_version.h",
			"generated_cuda_runtime_api_meta.h")
		t.devlink(c+"/lib64", "libcupti", cuptiSoname(s))
		t.blobs(c+"/lib64", "libcupti_static.a", "libnvperf_host_static.a")
		t.blobs(c+"/samples/callback_event", "Makefile", "callback_event.cu")
		t.blob(c + "/samples/common/helper_cupti.h")
	case "cuda-nvtx":
		t.blobs(p.inc+"/nvtx3", "nvToolsExt.h", "nvToolsExtCuda.h", "nvtxDetail/nvtxImpl.h")
		if s.cudaMajor <= 12 {
			t.blobs(p.inc, "nvToolsExt.h", "nvToolsExtCuda.h")
			t.lib(p.lib, "libnvToolsExt", "1.0.0", "1")
			t.devlink(p.lib, "libnvToolsExt", "1")
			t.pcFile(s, "nvToolsExt", "NVIDIA Tools Extension", "-lnvToolsExt")
		}
	case "cuda-nvdisasm":
		t.bin(p.root + "/bin/nvdisasm")
	case "cuda-ctadvisor":
		t.bin(p.root + "/bin/ctadvisor")
	case "cuda-gdb":
		t.bins(p.root+"/bin", "cuda-gdb", "cuda-gdbserver")
		t.blob(p.root + "/extras/Debugger/include/cudadebugger.h")
		t.blob(p.root + "/share/gdb/python/gdb/__init__.py")
	case "cuda-gdb-src":
		t.blob(p.root + "/extras/cuda-gdb-" + v + ".src.tar.gz")
	case "cuda-nvml-dev":
		t.blob(p.inc + "/nvml.h")
		t.stub(p.lib+"/stubs/libnvidia-ml.so", "libnvidia-ml.so.1")
		t.blobs(p.root+"/nvml/example", "Makefile", "example.c", "supportedVgpus.c")
		t.pcFile(s, "nvidia-ml", "NVIDIA Management Library", "-lnvidia-ml")
	case "cuda-sanitizer":
		cs := p.root + "/compute-sanitizer"
		t.bin(cs + "/compute-sanitizer")
		t.sos(cs, "libsanitizer-collection.so", "libsanitizer-public.so")
		t.blobs(cs+"/include", "sanitizer.h", "sanitizer_callbacks.h")
		t.bin(p.root + "/bin/compute-sanitizer")
	default:
		return false
	}
	return true
}

// buildCUDADocs fills cuda-documentation and cuda-samples, and reports
// whether pi.base is one of them.
func (pi *pkgInfo) buildCUDADocs(t *tree, p cudaPaths) bool {
	switch pi.base {
	case "cuda-documentation":
		t.text(
			p.root+"/EULA.txt",
			"End User License Agreement\n\nNVIDIA CUDA Toolkit License Agreement (synthetic stub for debredist tests).\n",
		)
		t.blobs(p.root, "DOCS", "README")
		t.blob(p.root + "/tools/CUDA_Occupancy_Calculator.xls")
	case "cuda-samples":
		t.blobs(p.root+"/samples/0_Simple/vectorAdd", "Makefile", "vectorAdd.cu")
		t.blob(p.root + "/samples/common/inc/helper_cuda.h")
	default:
		return false
	}
	return true
}

// buildCUDACompat fills the forward-compatibility driver packages
// (cuda-compat, cuda-compat-orin), and reports whether pi.base is one of
// them.
func (pi *pkgInfo) buildCUDACompat(t *tree, p cudaPaths) bool {
	s := pi.s
	v := pi.upVer
	switch pi.base {
	case "cuda-compat", "cuda-compat-orin":
		dir := p.root + "/compat"
		if pi.base == "cuda-compat-orin" {
			dir = p.root + "/compat_orin"
		}
		if pi.fam == famDriver {
			// Desktop-driver style (Thor, r38+): versioned by the driver.
			for _, l := range [][2]string{
				{"libcuda", "1"},
				{"libnvidia-ptxjitcompiler", "1"},
				{"libnvidia-nvvm", "4"},
				{"libcudadebugger", "1"},
			} {
				t.lib(dir, l[0], v, l[1])
			}
			t.devlink(dir, "libcuda", "1")
			t.so(dir + "/libnvidia-gpucomp.so." + v)
			break
		}
		t.lib(dir, "libcuda", "1.1", "1")
		t.devlink(dir, "libcuda", "1")
		t.so(dir + "/libnvidia-ptxjitcompiler.so.1")
		if s.cudaMajor >= 12 {
			t.so(dir + "/libnvidia-nvvm.so.4")
		}
	default:
		return false
	}
	return true
}

func cudartSoname(s *suite) string {
	if s.cudaMajor == 11 {
		return "11.0"
	}
	return strconv.Itoa(s.cudaMajor)
}

func nvrtcSoname(s *suite) string {
	if s.cudaMajor == 11 {
		return "11.2"
	}
	return strconv.Itoa(s.cudaMajor)
}

func cuptiSoname(s *suite) string {
	if s.cudaMajor == 11 {
		return s.cudaXY
	}
	return strconv.Itoa(s.cudaMajor)
}

func nvvmTree(t *tree, root string) {
	n := root + "/nvvm"
	t.bin(n + "/bin/cicc")
	t.lib(n+"/lib64", "libnvvm", "4.0.0", "4")
	t.devlink(n+"/lib64", "libnvvm", "4")
	t.blob(n + "/include/nvvm.h")
	t.blob(n + "/libdevice/libdevice.10.bc")
}

func (pi *pkgInfo) buildCUDALib(t *tree) {
	s := pi.s
	p := s.paths()
	v := pi.upVer
	dev := strings.HasSuffix(pi.base, "-dev")
	switch pi.cudaLib {
	case "libcufile":
		if pi.base == "gds-tools" {
			t.bins(p.root+"/gds/tools", "gds_stats", "gdscheck", "gdsio", "gdsio_verify")
			t.blob(p.root + "/gds/tools/README")
			return
		}
		if dev {
			t.blob(p.inc + "/cufile.h")
			t.devlink(p.lib, "libcufile", "0")
			t.devlink(p.lib, "libcufile_rdma", "1")
			t.blobs(p.lib, "libcufile_static.a", "libcufile_rdma_static.a")
			t.pcFile(s, "cufile", "cuFile (GPUDirect Storage)", "-lcufile")
			t.blobs(p.root+"/gds/samples", "Makefile", "cufile_sample_001.cc")
			return
		}
		t.lib(p.lib, "libcufile", v, "0")
		t.lib(p.lib, "libcufile_rdma", v, "1")
		t.text(
			p.root+"/gds/cufile.json",
			"{\n  \"logging\": {\"dir\": \"/var/log\", \"level\": \"ERROR\"},\n"+
				"  \"properties\": {\"max_direct_io_size_kb\": 16384}\n}\n",
		)
		return
	case "libnvptxcompiler":
		t.blob(p.inc + "/nvPTXCompiler.h")
		t.blob(p.lib + "/libnvptxcompiler_static.a")
		return
	case "libnvvm":
		nvvmTree(t, p.root)
		return
	}
	spec, ok := cudaLibSpecs(s.cudaMajor)[pi.cudaLib]
	if !ok {
		t.blob(p.root + "/share/" + pi.name + "/README")
		return
	}
	so := spec.soname
	if so == "" {
		so = firstN(v, 1)
	}
	if !dev {
		for _, l := range spec.libs {
			t.lib(p.lib, l, v, so)
		}
		return
	}
	t.blobs(p.inc, spec.headers...)
	for _, l := range spec.libs {
		t.devlink(p.lib, l, so)
	}
	t.blobs(p.lib, spec.static...)
	for _, pc := range spec.pcs {
		t.pcFile(s, pc, "NVIDIA "+spec.desc, "-l"+pc)
	}
	if pi.cudaLib == "libcublas" {
		t.blobs(p.root+"/src", "fortran.c", "fortran.h", "fortran_common.h", "fortran_thunking.c", "fortran_thunking.h")
	}
}

var (
	cudnn8Libs = []string{
		"libcudnn",
		"libcudnn_adv_infer",
		"libcudnn_adv_train",
		"libcudnn_cnn_infer",
		"libcudnn_cnn_train",
		"libcudnn_ops_infer",
		"libcudnn_ops_train",
	}
	cudnn9Libs = []string{
		"libcudnn",
		"libcudnn_adv",
		"libcudnn_cnn",
		"libcudnn_engines_precompiled",
		"libcudnn_engines_runtime_compiled",
		"libcudnn_graph",
		"libcudnn_heuristic",
		"libcudnn_ops",
	}
	// The JIT-only variant (r38+): a guess at its split, see the report.
	cudnnJitLibs = []string{"libcudnn", "libcudnn_engines_runtime_compiled", "libcudnn_graph"}
)

func (pi *pkgInfo) buildCUDNN(t *tree) {
	m := cudnnRE.FindStringSubmatch(pi.name)
	if m == nil {
		t.blob("usr/share/" + pi.name + "/README")
		return
	}
	n, jit, kind := m[1], m[2] != "", m[3]
	ver := firstN(pi.upVer, 3)
	libDir := "usr/lib/" + triple
	incDir := "usr/include/" + triple
	libs := cudnn9Libs
	if n == "8" {
		libs = cudnn8Libs
	}
	if jit {
		libs = cudnnJitLibs
	}
	headers := func() {
		bases := []string{"cudnn", "cudnn_adv", "cudnn_backend", "cudnn_cnn", "cudnn_graph", "cudnn_ops", "cudnn_version"}
		if n == "8" {
			bases = []string{
				"cudnn",
				"cudnn_adv_infer",
				"cudnn_adv_train",
				"cudnn_backend",
				"cudnn_cnn_infer",
				"cudnn_cnn_train",
				"cudnn_ops_infer",
				"cudnn_ops_train",
				"cudnn_version",
			}
		}
		for _, b := range bases {
			t.blob(incDir + "/" + b + "_v" + n + ".h")
		}
	}
	static := func() {
		for _, l := range libs {
			if l == "libcudnn" && n != "8" {
				continue
			}
			t.blob(libDir + "/" + l + "_static_v" + n + ".a")
		}
	}
	switch kind {
	case "":
		for _, l := range libs {
			t.lib(libDir, l, ver, n)
		}
	case "-dev":
		switch {
		case jit:
			static()
		case n == "8":
			headers()
			static()
		case !pi.s.has("common", "libcudnn"+n+"-headers-cuda-"+m[5]):
			headers()
		}
	case "-headers":
		headers()
	case "-static":
		static()
	case "-samples":
		d := "usr/src/cudnn_samples_v" + n
		t.blobs(d+"/conv_sample", "Makefile", "conv_sample.cpp")
		t.blobs(d+"/mnistCUDNN", "Makefile", "mnistCUDNN.cpp")
	}
}

func (pi *pkgInfo) buildTensorRT(t *tree) {
	ver := firstN(pi.upVer, 3)
	major := firstN(pi.upVer, 1)
	minor, _ := strconv.Atoi(strings.Split(ver+".0", ".")[1])
	trtMajor, _ := strconv.Atoi(major)
	libDir := "usr/lib/" + triple
	incDir := "usr/include/" + triple
	py := "usr/lib/python" + pi.s.python + "/dist-packages"
	src := "usr/src/tensorrt"
	hasHeadersPkg := pi.s.has("common", "libnvinfer-headers-dev")
	switch pi.name {
	case "libnvinfer-bin":
		if trtMajor > 10 || (trtMajor == 10 && minor >= 16) {
			t.bin("usr/bin/trtexec")
		} else {
			t.bin(src + "/bin/trtexec")
		}
		return
	case "libnvinfer-samples":
		t.blobs(src+"/samples", "Makefile", "Makefile.config", "common/logger.cpp", "common/logger.h",
			"sampleOnnxMNIST/Makefile", "sampleOnnxMNIST/sampleOnnxMNIST.cpp", "python/README.md")
		t.blobs(src+"/data/mnist", "README.md", "mnist.onnx")
		return
	case "libnvinfer-headers-dev":
		t.blobs(incDir, "NvInfer.h", "NvInferImpl.h", "NvInferLegacyDims.h", "NvInferRuntime.h",
			"NvInferRuntimeBase.h", "NvInferRuntimeCommon.h", "NvInferRuntimePlugin.h", "NvInferVersion.h")
		return
	case "libnvinfer-headers-plugin-dev":
		t.blobs(incDir, "NvInferPlugin.h", "NvInferPluginUtils.h")
		return
	case "libnvinfer-headers-python-plugin-dev":
		t.blob(incDir + "/NvInferPythonPlugin.h")
		return
	case "libnvinfer-safe-headers-dev":
		t.blobs(incDir, "NvInferSafePlugin.h", "NvInferSafeRuntime.h")
		return
	case "python3-libnvinfer":
		t.text(py+"/tensorrt/__init__.py", "# synthetic tensorrt bindings\n")
		t.so(py + "/tensorrt/tensorrt.so")
		return
	case "python3-libnvinfer-dev":
		t.text(py+"/tensorrt/plugin/__init__.py", "# synthetic tensorrt.plugin\n")
		return
	case "python3-libnvinfer-lean", "python3-libnvinfer-dispatch":
		mod := "tensorrt_" + strings.TrimPrefix(pi.name, "python3-libnvinfer-")
		t.text(py+"/"+mod+"/__init__.py", "# synthetic "+mod+"\n")
		t.so(py + "/" + mod + "/" + mod + ".so")
		return
	case "graphsurgeon-tf":
		t.text(py+"/graphsurgeon/__init__.py", "# synthetic graphsurgeon\n")
		t.blob(py + "/graphsurgeon/StaticGraph.py")
		return
	case "uff-converter-tf":
		t.text(py+"/uff/__init__.py", "# synthetic uff\n")
		// A Python console script, not a binary.
		t.nodes["usr/bin/convert-to-uff"] = &node{typ: tar.TypeReg, mode: 0o755,
			body: []byte(
				"#!/usr/bin/python3\n# synthetic convert-to-uff (debredist mirrorgen)\nimport sys\n" +
					"from uff.bin.convert_to_uff import main\nsys.exit(main())\n",
			)}
		return
	case "onnx-graphsurgeon":
		t.text(py+"/onnx_graphsurgeon/__init__.py", "# synthetic onnx_graphsurgeon\n")
		return
	}
	core, dev := strings.CutSuffix(pi.name, "-dev")
	m := trtRE.FindStringSubmatch(core)
	if m == nil {
		t.blob("usr/share/" + pi.name + "/README")
		return
	}
	lib := map[string]string{"infer": "libnvinfer", "onnxparsers": "libnvonnxparser", "parsers": "libnvparsers"}[m[1]]
	if m[2] != "" {
		lib += "_" + strings.ReplaceAll(strings.Trim(m[2], "-"), "-", "_")
	}
	if !dev {
		t.lib(libDir, lib, ver, major)
		if lib == "libnvinfer" {
			t.so(libDir + "/libnvinfer_builder_resource.so." + ver)
		}
		return
	}
	t.devlink(libDir, lib, major)
	t.blob(libDir + "/" + lib + "_static.a")
	switch lib {
	case "libnvinfer":
		if !hasHeadersPkg {
			t.blobs(incDir, "NvInfer.h", "NvInferImpl.h", "NvInferLegacyDims.h", "NvInferRuntime.h",
				"NvInferRuntimeCommon.h", "NvInferVersion.h", "NvUtils.h")
		}
	case "libnvinfer_plugin":
		if !hasHeadersPkg {
			t.blobs(incDir, "NvInferPlugin.h", "NvInferPluginUtils.h")
		}
	case "libnvonnxparser":
		t.blobs(incDir, "NvOnnxConfig.h", "NvOnnxParser.h")
		if trtMajor < 10 {
			t.blob(libDir + "/libonnx_proto.a")
		}
	case "libnvparsers":
		t.blobs(incDir, "NvCaffeParser.h", "NvUffParser.h")
	}
}

func (pi *pkgInfo) buildL4T(t *tree) {
	s := pi.s
	v := pi.upVer // "36.5.0"
	gnu := "usr/lib/" + triple
	libDir := gnu + "/nvidia"
	if s.l4tMajor <= 35 {
		libDir = gnu + "/tegra"
	}
	switch pi.name {
	case "nvidia-l4t-dla-compiler":
		t.so(libDir + "/libnvdla_compiler.so")
	case "nvidia-l4t-core":
		t.text(
			"etc/nv_tegra_release",
			fmt.Sprintf(
				"# R%d (release), REVISION: %s, GCID: 00000000, BOARD: generic, EABI: aarch64, DATE: Mon Jan  1 00:00:00 UTC "+
					"2024\n",
				s.l4tMajor,
				strings.TrimPrefix(v, strconv.Itoa(s.l4tMajor)+"."),
			),
		)
		t.text("etc/ld.so.conf.d/nvidia-tegra.conf", "/"+libDir+"\n")
		t.sos(libDir, "libnvos.so", "libnvrm_gpu.so", "libnvrm_mem.so")
		if s.l4tMajor <= 35 {
			t.so(libDir + "/libnvdla_compiler.so")
		} else {
			t.link(gnu+"/tegra", "nvidia")
		}
	case "nvidia-l4t-cuda":
		if s.l4tMajor >= 39 {
			t.lib(libDir, "libnvidia-ptxjitcompiler", v, "1")
			break
		}
		t.lib(libDir, "libcuda", "1.1", "1")
		t.devlink(libDir, "libcuda", "1")
		t.lib(libDir, "libnvidia-ptxjitcompiler", v, "1")
		t.link(gnu+"/libcuda.so", path.Base(libDir)+"/libcuda.so")
	case "nvidia-l4t-cuda-nvgpu":
		d := "opt/nvidia/l4t-gpu-libs/nvgpu"
		t.lib(d, "libcuda", "1.1", "1")
		t.devlink(d, "libcuda", "1")
	case "nvidia-l4t-3d-core":
		t.sos(libDir, "libEGL_nvidia.so.0", "libGLX_nvidia.so.0", "libnvidia-eglcore.so."+v)
		t.text(
			"usr/share/glvnd/egl_vendor.d/10_nvidia.json",
			"{\n    \"file_format_version\" : \"1.0.0\",\n    \"ICD\" : {\n        \"library_path\" : \"libEGL_nvidia.so.0\"\n"+
				"    }\n}\n",
		)
	default:
		// Packages mirrorgen knows no files of: a placeholder that is
		// not ELF (no fixture to keep real).
		t.blob(libDir + "/" + strings.TrimPrefix(pi.name, "nvidia-l4t-") + ".so")
	}
}
