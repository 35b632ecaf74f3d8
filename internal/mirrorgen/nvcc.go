package mirrorgen

import (
	"strings"

	"github.com/debredist/debredist/debredist/profile"
)

// The texts of the compiler files a consumer edits in place: nixpkgs'
// cuda_nvcc.nix rewrites bin/nvcc.profile and its cuda_crt package edits
// include/crt/*.h with substituteInPlace --replace-fail, which fails the
// build when a string it replaces is missing. So these files carry, for
// each CUDA version, the text NVIDIA ships (nvcc.profile whole; of the
// crt headers the declarations that get edited), not one text for all.

// nvccProfiles are bin/nvcc.profile as NVIDIA ships it, by the first CUDA
// version that ships each text (each holds until the next one):
//
//   - 11.0-12.4: quoted in NixOS/nixpkgs
//     pkgs/development/cuda-modules/packages/cuda_nvcc.nix at c9cd016bbdd239d9cabd2f3372be8966de214580
//     ("the nvcc.profile for CUDA 11.8-12.4"), and the same text in
//     anduril/jetpack-nixos pkgs/cuda-packages/cuda_nvcc/fixup.nix (removed
//     in 4aec418), whose --replace-fail of $(_TARGET_SIZE_),
//     $(TOP)/$(_TARGET_DIR_)/include and $(TOP)/$(_NVVM_BRANCH_)/ built
//     JetPack 5's real cuda-nvcc-11-4 deb.
//   - 12.5-12.9: quoted in the same cuda_nvcc.nix ("the nvcc.profile for
//     CUDA 12.5"); nixpkgs builds NVIDIA's 12.5-12.9 archives with its
//     cudaAtLeast "12.5" rule, which replaces $(TOP)/nvvm/. NVIDIA's CUDA
//     12.6 Windows profile (zspace/system.cuda-12.6 bin/nvcc.profile at
//     b3d92c837713411301ae5df45b0c7758df7d931e) has the same CICC_PATH
//     and NVVMIR_LIBRARY_DIR lines.
//   - 13.0 on: the 12.5 text without CICC_NEXT_PATH, plus the line that
//     cuda_nvcc.nix at c9cd016b quotes as "CUDA 13.0+ introduced":
//     SYSTEM_INCLUDES += "-isystem" "$(TOP)/$(_TARGET_DIR_)/include/cccl".
var nvccProfiles = []struct {
	since string
	text  string
}{
	{"11.0", `
TOP              = $(_HERE_)/..

NVVMIR_LIBRARY_DIR = $(TOP)/$(_NVVM_BRANCH_)/libdevice

LD_LIBRARY_PATH += $(TOP)/lib:
PATH            += $(TOP)/$(_NVVM_BRANCH_)/bin:$(_HERE_):

INCLUDES        +=  "-I$(TOP)/$(_TARGET_DIR_)/include" $(_SPACE_)

LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)/stubs" ` +
		`"-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)"

CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
`},
	{"12.5", `
TOP              = $(_HERE_)/..

CICC_PATH        = $(TOP)/nvvm/bin
CICC_NEXT_PATH   = $(TOP)/nvvm-next/bin
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice

LD_LIBRARY_PATH += $(TOP)/lib:
PATH            += $(CICC_PATH):$(_HERE_):

INCLUDES        +=  "-I$(TOP)/$(_TARGET_DIR_)/include" $(_SPACE_)

LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)/stubs" ` +
		`"-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)"

CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
`},
	{"13.0", `
TOP              = $(_HERE_)/..

CICC_PATH        = $(TOP)/nvvm/bin
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice

LD_LIBRARY_PATH += $(TOP)/lib:
PATH            += $(CICC_PATH):$(_HERE_):

INCLUDES        +=  "-I$(TOP)/$(_TARGET_DIR_)/include" $(_SPACE_)
SYSTEM_INCLUDES +=  "-isystem" "$(TOP)/$(_TARGET_DIR_)/include/cccl" $(_SPACE_)

LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)/stubs" ` +
		`"-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)"

CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
`},
}

// NVCCProfile returns bin/nvcc.profile as NVIDIA ships it with CUDA
// version xy ("12.6").
func NVCCProfile(xy string) string {
	text := ""
	for _, p := range nvccProfiles {
		if !versionLess(xy, p.since) {
			text = p.text
		}
	}
	return text
}

func (s *suite) nvccProfile() string { return NVCCProfile(s.cudaXY) }

// The crt headers' declarations that nixpkgs' cuda_crt edits
// (NixOS/nixpkgs pkgs/development/cuda-modules/packages/cuda_crt/package.nix
// at 613b8b48f7d48ff70985b390e366975eede57415, which takes the headers
// from the cuda_nvcc archive before CUDA 13): with glibc >= 2.42 it adds
// noexcept to rsqrt/rsqrtf before CUDA 13.2 and to sinpi/sinpif/cospi/
// cospif before 13.0, in math_functions.h ("name(type x);") and
// math_functions.hpp ("__func__(type name(args))"); before 13.0 it edits
// host_defines.h's __CUDACC__ guard, and always host_config.h's features.h
// include. The declarations are written as NVIDIA's headers write them;
// CUDA 13.2 declares rsqrt with _NV_RSQRT_SPECIFIER (the fix that makes
// nixpkgs stop editing it), 13.0 no longer declares sinpi/cospi bare.
func (s *suite) crtHeaders(t *tree, inc string) {
	crt := inc + "/crt/"
	head := func(name string) string {
		return "/* crt/" + name +
			": synthetic (debredist mirrorgen), with the lines consumers edit as NVIDIA writes them */\n"
	}
	type fn struct{ name, typ, arg string }
	var fns []fn
	if versionLess(s.cudaXY, "13.2") {
		fns = append(fns, fn{"rsqrt", "double", "const double a"}, fn{"rsqrtf", "float", "const float a"})
	}
	if versionLess(s.cudaXY, "13.0") {
		fns = append(fns, fn{"sinpi", "double", "double a"}, fn{"sinpif", "float", "const float a"},
			fn{"cospi", "double", "double a"}, fn{"cospif", "float", "const float a"})
	}
	h, hpp := head("math_functions.h"), head("math_functions.hpp")
	for _, f := range fns {
		h += "extern __DEVICE_FUNCTIONS_DECL__ __device_builtin__ " + f.typ + strings.Repeat(
			" ",
			23-len(f.typ),
		) + f.name + "(" + f.typ + " x);\n"
		hpp += "__func__(" + f.typ + " " + f.name + "(" + f.arg + "))\n{\n  return 0;\n}\n\n"
	}
	if !versionLess(s.cudaXY, "13.2") {
		h += "extern __DEVICE_FUNCTIONS_DECL__ __device_builtin__ double                 rsqrt(double x) " +
			"_NV_RSQRT_SPECIFIER;\n"
		h += "extern __DEVICE_FUNCTIONS_DECL__ __device_builtin__ float                  rsqrtf(float x) " +
			"_NV_RSQRT_SPECIFIER;\n"
	}
	t.text(crt+"math_functions.h", h)
	t.text(crt+"math_functions.hpp", hpp)
	defines := head("host_defines.h")
	if versionLess(s.cudaXY, "13.0") {
		defines += "#if defined(__CUDACC__) || defined(__CUDA_ARCH__) || defined(__CUDA_LIBDEVICE__)\n" +
			"#define __noinline__ __attribute__((noinline))\n#endif\n"
	}
	t.text(crt+"host_defines.h", defines)
	t.text(
		crt+"host_config.h",
		head("host_config.h")+"#if defined(__linux__)\n#include <features.h> /* for __THROW */\n#endif\n",
	)
	t.blobs(inc+"/crt", "common_functions.h", "device_functions.h")
}

// versionLess reports whether dotted version a is below b, numerically.
func versionLess(a, b string) bool { return profile.CompareDotted(a, b) < 0 }

// cubPatched returns the cub headers of CUDA xy that nixpkgs patches, by
// path below include/cub, each holding the lines the patch changes with
// the context it needs, as NVIDIA's headers of that release write them.
// NixOS/nixpkgs pkgs/development/cuda-modules/packages/cccl.nix (read at
// Swarsel/nixpkgs 4aa6836a648ca76c68866decf0c8965e36ec2a3b) applies to
// CUDA 13.2 and later a fetchpatch of NVIDIA/cccl commit
// 8e41eeabe54ab9ae48ad5640cfa7153b0a1071af ("Fix invalid C++ syntax",
// stripLen 2, extraPrefix include/): its two hunks need these lines of
// NVIDIA/cccl before that commit (cub/cub/device/device_transform.cuh and
// dispatch/tuning/tuning_transform.cuh, lines 42-50 and 42-51), or the
// build fails in its patch phase. The rest of each file is ours.
func cubPatched(xy string) map[string]string {
	if versionLess(xy, "13.2") {
		return nil
	}
	head := func(name string) string {
		return "/* cub/" + name +
			": synthetic (debredist mirrorgen), with the lines nixpkgs patches as NVIDIA writes them */\n"
	}
	return map[string]string{
		"device/device_transform.cuh": head("device/device_transform.cuh") +
			"} // namespace detail\nCUB_NAMESPACE_END\n\ntemplate <typename T>\n" +
			"struct ::cuda::proclaims_copyable_arguments<CUB_NS_QUALIFIER::detail::__return_constant<T>> : " +
			"::cuda::std::true_type\n" +
			"{};\n\nCUB_NAMESPACE_BEGIN\n" +
			"//! DeviceTransform provides device-wide, parallel operations for transforming elements tuple-wise from multiple " +
			"input\n",
		"device/dispatch/tuning/tuning_transform.cuh": head("device/dispatch/tuning/tuning_transform.cuh") +
			"} // namespace detail::transform\nCUB_NAMESPACE_END\n\ntemplate <>\n" +
			"struct ::cuda::proclaims_copyable_arguments<CUB_NS_QUALIFIER::detail::transform::always_true_predicate>\n" +
			"    : ::cuda::std::true_type\n{};\n\nCUB_NAMESPACE_BEGIN\nnamespace detail::transform\n",
	}
}
