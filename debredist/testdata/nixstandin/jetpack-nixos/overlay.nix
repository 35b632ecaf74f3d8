# Stand-in for anduril/jetpack-nixos' overlay.nix with
# cuda-packages-11-4-extension.nix and pkgs/cuda-extensions (see ../README.md).
final: prev:
let
  inherit (final) lib;
  debWrapped = [ "cuda_cudart" "cuda_cuobjdump" "cuda_cuxxfilt" "cuda_gdb" "cuda_nvcc" "cuda_nvdisasm" "cuda_nvml_dev" "cuda_nvprune"
    "cuda_nvrtc" "cuda_nvtx" "cuda_sanitizer_api" "libcublas" "libcufft" "libcurand" "libcusolver" "libcusparse" "libnpp"
    "cuda_cupti" "cudnn" "libcudla" "cuda_cccl" ];
  # cuda-packages-11-4-extension.nix: mapAttrs over its own packages; each
  # replaces nixpkgs' only for CUDA 11.4 on linux-aarch64 (tensorrt and
  # cuda_profiler_api for 11.4 on any system).
  ext114 = finalCudaPackages: prevCudaPackages:
    let
      canUseOurPackageVersion = finalCudaPackages.cudaMajorMinorVersion == "11.4";
      canUseOurPackagePlatform = finalCudaPackages.backendStdenv.hostRedistSystem == "linux-aarch64";
      # debWrapBuildRedist: the package with src the debs' normalized tree.
      debWrap = n: prevCudaPackages.${n}.overrideAttrs (prevAttrs: {
        src = derivation { name = "${n}-normalizeDebs"; system = final.system; builder = "/bin/sh"; args = [ "-c" "exit 1" ]; };
      });
      newCudaPackages = builtins.listToAttrs (map (n: { name = n; value = debWrap n; }) (debWrapped ++ [ "tensorrt" "cuda_profiler_api" ])) // {
        debWrapBuildRedist = { };
        cuda_compat = null;
      };
    in
    builtins.mapAttrs (name: value:
      if !(prevCudaPackages ? ${name}) || (canUseOurPackageVersion && (builtins.elem name [ "cuda_profiler_api" "tensorrt" ] || canUseOurPackagePlatform))
      then value else prevCudaPackages.${name}) newCudaPackages;
  # pkgs/cuda-extensions: applied to every set, adds L4T inputs.
  general = finalCudaPackages: prevCudaPackages: {
    libcudla = prevCudaPackages.libcudla.overrideAttrs (prevAttrs: { buildInputs = prevAttrs.buildInputs ++ [ final.ccLib ]; });
  };
in
{
  cudaPackages_11_4 = prev.cudaPackages_11_4.override (prevArgs: { manifests.cuda.release_label = "11.4.298"; });
  cudaPackages_11 = final.cudaPackages_11_4;
  cudaPackages_12_6 = prev.cudaPackages_12_6.override (prevArgs: { manifests = prevArgs.manifests // { tensorrt = final._cuda.manifests.tensorrt."10.7.0"; }; });
  cudaPackages_13_2 = prev.cudaPackages_13_2.override (prevArgs: { manifests = prevArgs.manifests // { tensorrt = final._cuda.manifests.tensorrt."10.16.1"; }; });
  _cuda = prev._cuda.extend (_: prevCuda: { extensions = prevCuda.extensions ++ [ general ext114 ]; });
}
