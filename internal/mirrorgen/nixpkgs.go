package mirrorgen

import (
	"fmt"
	"strings"
)

// NixpkgsEdit is one substituteInPlace --replace-fail that a nixpkgs
// package file makes to a file of a CUDA redist archive: the build fails
// when Old is not in the file at that point. The edits of one Rule run in
// order on the archive's files; different rules (revisions) are separate
// builds.
type NixpkgsEdit struct {
	Rule    string // nixpkgs file and revision ("cuda_nvcc.nix@c9cd016b")
	Package string // redist package whose archive holds the file
	Path    string // file in the archive ("bin/nvcc.profile")
	Old     string
	New     string
}

// Store paths the edits write, as a build would (any fixed strings do:
// what matters is which strings must be present before each edit).
const (
	nixOut    = "/nix/store/00000000000000000000000000000000-cuda_nvcc"
	nixCCCL   = "/nix/store/11111111111111111111111111111111-cuda_cccl-include"
	nixCudart = "/nix/store/22222222222222222222222222222222-cuda_cudart"
)

// NixpkgsEdits returns the edits nixpkgs makes to the compiler files of
// CUDA version xy ("12.6"), for each rule revision read:
//
//   - NixOS/nixpkgs pkgs/development/cuda-modules/packages/cuda_nvcc.nix at
//     c9cd016bbdd239d9cabd2f3372be8966de214580 (postInstall): bin/nvcc.profile.
//   - pkgs/development/cuda-modules/packages/cuda_nvcc/package.nix at
//     1ac181a172c70d43e3336c1756d86e6a35f2eccb (postInstall): bin/nvcc.profile.
//   - pkgs/development/cuda-modules/packages/cuda_crt/package.nix at
//     613b8b48f7d48ff70985b390e366975eede57415 (postInstall, glibc >= 2.42
//     as that nixpkgs has): include/crt/*.h of the cuda_nvcc archive before
//     CUDA 13, of cuda_crt from 13.0.
func NixpkgsEdits(xy string) []NixpkgsEdit {
	below := func(v string) bool { return versionLess(xy, v) }
	oldNvvm := "$(TOP)/nvvm/"
	if below("12.5") {
		oldNvvm = "$(TOP)/$(_NVVM_BRANCH_)/"
	}
	var out []NixpkgsEdit
	profile := func(rule string, old, new string) {
		out = append(out, NixpkgsEdit{Rule: rule, Package: "cuda_nvcc", Path: "bin/nvcc.profile", Old: old, New: new})
	}
	for _, rule := range []string{"cuda_nvcc.nix@c9cd016b", "cuda_nvcc/package.nix@1ac181a1"} {
		profile(rule, "$(_TARGET_SIZE_)", "")
		if !below("13.0") {
			profile(rule, "$(TOP)/$(_TARGET_DIR_)/include/cccl", nixCCCL+"/include")
		}
		profile(rule, "$(TOP)/$(_TARGET_DIR_)/include", nixOut+"/include")
		if rule == "cuda_nvcc/package.nix@1ac181a1" {
			profile(rule, "$(TOP)/$(_TARGET_DIR_)/lib/stubs", nixCudart+"-stubs/lib/stubs")
			profile(rule, "$(TOP)/$(_TARGET_DIR_)/lib", nixCudart+"-lib/lib")
		}
		profile(rule, oldNvvm, nixOut+"/nvvm/")
		if rule == "cuda_nvcc/package.nix@1ac181a1" {
			profile(rule, `"-I`+nixOut+`/include"`, `"-I`+nixCudart+`-include/include" "-I`+nixOut+`/include"`)
		}
	}
	const crtRule = "cuda_crt/package.nix@613b8b48"
	crtPkg := "cuda_crt"
	if below("13.0") {
		crtPkg = "cuda_nvcc"
	}
	crt := func(file, old, new string) {
		out = append(out, NixpkgsEdit{Rule: crtRule, Package: crtPkg, Path: "include/crt/" + file, Old: old, New: new})
	}
	if below("13.2") {
		names := []string{"rsqrt", "rsqrtf"}
		if below("13.0") {
			names = append(names, "sinpi", "sinpif", "cospi", "cospif")
		}
		for _, name := range names {
			typ := "double"
			if strings.HasSuffix(name, "f") {
				typ = "float"
			}
			arg := typ + " a"
			if strings.HasPrefix(name, "rsqrt") || typ == "float" {
				arg = "const " + arg
			}
			crt("math_functions.h", name+"("+typ+" x);", name+"("+typ+" x) noexcept (true);")
			crt("math_functions.hpp", "__func__("+typ+" "+name+"("+arg+"))", "__func__("+typ+" "+name+"("+arg+") throw())")
		}
	}
	if below("13.0") {
		const guard = "#if defined(__CUDACC__) || defined(__CUDA_ARCH__) || defined(__CUDA_LIBDEVICE__)"
		crt(
			"host_defines.h",
			guard,
			"#if (defined(__CUDACC__) || defined(__CUDA_ARCH__) || defined(__CUDA_LIBDEVICE__)) && !defined(__clang__)",
		)
	}
	const features = "#include <features.h> /* for __THROW */"
	crt(
		"host_config.h",
		features,
		features+"\n#if defined(__NVCC__) && defined(__clang__) /* nixpkgs: vfprintf_chk */\n#endif",
	)
	if below("13.0") {
		crt(
			"host_config.h",
			features,
			features+"\n#if defined(__NVCC__) && defined(__clang__) /* nixpkgs: fortify */\n#endif",
		)
	}
	return out
}

// ApplyNixpkgsEdits runs the edits, each rule on fresh copies of the
// files read returns (by package and archive path), and reports the first
// edit of each rule whose Old string is missing, as substituteInPlace
// --replace-fail would fail the build.
func ApplyNixpkgsEdits(edits []NixpkgsEdit, read func(pkg, path string) (string, error)) error {
	var errs []string
	files := map[string]map[string]string{} // rule -> pkg/path -> text
	failed := map[string]bool{}
	for _, e := range edits {
		if failed[e.Rule] {
			continue
		}
		if files[e.Rule] == nil {
			files[e.Rule] = map[string]string{}
		}
		key := e.Package + "/" + e.Path
		text, ok := files[e.Rule][key]
		if !ok {
			var err error
			if text, err = read(e.Package, e.Path); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %s: %v", e.Rule, key, err))
				failed[e.Rule] = true
				continue
			}
		}
		if !strings.Contains(text, e.Old) {
			errs = append(errs, fmt.Sprintf("%s: %s: substituteInPlace --replace-fail: %q not found", e.Rule, key, e.Old))
			failed[e.Rule] = true
			continue
		}
		files[e.Rule][key] = strings.ReplaceAll(text, e.Old, e.New)
	}
	if errs != nil {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}
