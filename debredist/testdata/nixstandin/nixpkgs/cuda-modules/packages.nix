# The package files of pkgs/development/cuda-modules/packages (see
# ../../README.md): one entry per file, with what the tests need of it.
# No cudnn_jit and no cuda_compat_orin: nixpkgs has no file for them at
# the revisions modelled here.
let
  lib = import ../lib.nix;
  plain = redistName: pname: outputs: { buildRedist }: buildRedist { inherit redistName pname outputs; };
  library = pname: plain "cuda" pname [ "out" "dev" "include" "lib" "static" "stubs" ];
  out = pname: plain "cuda" pname [ "out" ];
in
builtins.listToAttrs (map (n: { name = n; value = out n; }) [
  "cuda_cccl" "cuda_cuobjdump" "cuda_cuxxfilt" "cuda_documentation" "cuda_gdb" "cuda_nvdisasm" "cuda_nvprune"
  "cuda_profiler_api" "cuda_sanitizer_api" "libcufile" "cuda_crt" "cuda_ctadvisor" "cuda_culibos" "cuda_sandbox_dev"
  "cuda_tileiras" "libcuobjclient" "libnvptxcompiler" "libnvvm" "libnvfatbin" "cuda_nvcc"
]) // builtins.listToAttrs (map (n: { name = n; value = library n; }) [
  "libcublas" "libcufft" "libcurand" "libcusolver" "libnpp" "libnvjpeg" "cuda_nvrtc" "libnvjitlink"
]) // {
  cuda_cudart = plain "cuda" "cuda_cudart" [ "out" "dev" "include" "lib" "static" "stubs" ];
  cuda_cupti = plain "cuda" "cuda_cupti" [ "out" "dev" "include" "lib" "samples" ];
  cuda_nvml_dev = plain "cuda" "cuda_nvml_dev" [ "out" "dev" "include" "stubs" ];
  cuda_nvtx = plain "cuda" "cuda_nvtx" [ "out" "dev" "include" "lib" ];
  cuda_compat = plain "cuda" "cuda_compat" [ "out" ];
  # packages/libcusparse.nix: libnvjitlink is an input on every CUDA version.
  libcusparse = { buildRedist, libnvjitlink }: buildRedist {
    redistName = "cuda"; pname = "libcusparse";
    outputs = [ "out" "dev" "include" "lib" "static" "stubs" ];
    buildInputs = [ libnvjitlink ];
  };
  libcudla = { buildRedist, cudaConfig }: buildRedist {
    redistName = "cuda"; pname = "libcudla";
    outputs = [ "out" "dev" "include" "lib" "stubs" ];
    platformAssertions = [ { message = "Only Xavier (7.2) and Orin (8.7) Jetson devices are supported"; assertion = lib.subtractLists [ "7.2" "8.7" ] cudaConfig.cudaCapabilities == [ ]; } ];
  };
  cudnn = { buildRedist, libcublas }: buildRedist (finalAttrs: {
    redistName = "cudnn"; pname = "cudnn";
    outputs = [ "out" "dev" "include" "lib" "static" ];
    buildInputs = [ libcublas ];
  });
  cudnn_samples = { buildRedist }: buildRedist {
    redistName = "cudnn"; pname = "cudnn_samples";
    meta.broken = true;
  };
  # packages/tensorrt: samples below 10.14.1, platformAssertions on
  # linux-aarch64 (Orin only), insecure below 10.16.1.
  tensorrt = { buildRedist, cudaConfig, redistSystem }: buildRedist (finalAttrs: {
    redistName = "tensorrt"; pname = "tensorrt";
    outputs = [ "out" "bin" "dev" "include" "lib" ] ++ lib.optionals (lib.versionOlder finalAttrs.version "10.14.1") [ "samples" ] ++ [ "static" ];
    platformAssertions = [ { message = "Only Orin (8.7) is supported on linux-aarch64"; assertion = lib.versionAtLeast finalAttrs.version "10.0" && redistSystem == "linux-aarch64" -> cudaConfig.cudaCapabilities == [ "8.7" ]; } ];
    meta.knownVulnerabilities = lib.optionals (lib.versionOlder finalAttrs.version "10.16.1") [ "CVE-2026-24188: OOB write" ];
  });
}
