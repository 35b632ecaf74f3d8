# Stand-in for pkgs/development/cuda-modules/default.nix and buildRedist
# (see ../../README.md): every package name exists whatever the manifests
# hold; _cuda.extensions apply to every set; manifests change only through
# .override (they are an argument, not part of the fixed point).
{ pkgs, manifests }:
let
  inherit (pkgs) lib _cuda;
  cudaMajorMinorPatchVersion = manifests.cuda.release_label;
  cudaMajorMinorVersion = lib.versions.majorMinor cudaMajorMinorPatchVersion;
  cudaMajorVersion = lib.versions.major cudaMajorMinorPatchVersion;
  # getRedistSystem at the pinned revision: Orin and Xavier are
  # linux-aarch64 (a set here is for one system).
  hostRedistSystem = "linux-aarch64";
  redistOf = { cuda = [ "cuda_cccl" "cuda_compat" "cuda_cudart" "cuda_cuobjdump" "cuda_cupti" "cuda_cuxxfilt" "cuda_documentation"
      "cuda_gdb" "cuda_nvcc" "cuda_nvdisasm" "cuda_nvml_dev" "cuda_nvprune" "cuda_nvrtc" "cuda_nvtx" "cuda_profiler_api"
      "cuda_sanitizer_api" "libcublas" "libcudla" "libcufft" "libcufile" "libcurand" "libcusolver" "libcusparse" "libnpp"
      "libnvfatbin" "libnvjitlink" "libnvjpeg" "cuda_crt" "cuda_ctadvisor" "cuda_culibos" "cuda_sandbox_dev" "cuda_tileiras"
      "libcuobjclient" "libnvptxcompiler" "libnvvm" "cuda_compat_orin" ];
    cudnn = [ "cudnn" "cudnn_jit" "cudnn_samples" ]; tensorrt = [ "tensorrt" ]; };
  redistName = pname: builtins.head (builtins.filter (r: builtins.elem pname redistOf.${r}) (builtins.attrNames redistOf));
  # getSupportedReleases + getPreferredRelease.
  pick = release:
    let
      variants = [ "cuda${cudaMajorMinorVersion}" "cuda${cudaMajorVersion}" ];
      at = p: let v = release.${p}; in
        if release ? cuda_variant then
          let found = builtins.filter (k: v ? ${k}) variants; in if found == [ ] then null else v.${builtins.head found}
        else v;
      plats = builtins.filter (p: release ? ${p} && at p != null) [ "source" "linux-all" hostRedistSystem ];
    in if plats == [ ] then null else at (builtins.head plats);
  buildRedist = finalCudaPackages: pname:
    let
      release = manifests.${redistName pname}.${pname} or null;
      artifact = if release == null then null else pick release;
      version = if release == null then "0-unsupported" else release.version;
      insecure = pname == "tensorrt" && release != null && lib.versionOlder version "10.16.1";
    in {
      inherit pname version;
      name = "cuda${cudaMajorMinorVersion}-${pname}-${version}";
      builtFrom = if artifact == null then "nothing" else "archive";
      passthru = { inherit release; };
      src = if artifact == null then null else pkgs.srcOnly {
        inherit pname version;
        src = pkgs.fetchurl {
          url = _cuda.lib.mkRedistUrl (redistName pname) artifact.relative_path;
          inherit (artifact) sha256;
        };
      };
      meta = {
        knownVulnerabilities = lib.optionals insecure [ "CVE-2026-24188: OOB write" ];
        available = artifact != null;
      };
    };
  # What stdenv.mkDerivation's meta check does at evaluation: an insecure
  # package throws unless permitted; then the derivation (never built).
  withDrv = attrs: attrs // {
    # Composes, as mkDerivation's: each override sees the attributes the
    # earlier ones made.
    overrideAttrs = f: withDrv (attrs // f attrs);
    drvPath =
      if attrs.meta.knownVulnerabilities != [ ] && !(builtins.elem attrs.name (pkgs.config.permittedInsecurePackages or [ ]))
      then throw "Package ‘${attrs.name}’ is marked as insecure, refusing to evaluate: ${builtins.concatStringsSep ", " attrs.meta.knownVulnerabilities}"
      else (derivation { inherit (attrs) name; system = pkgs.system; builder = "/bin/sh"; args = [ "-c" "exit 1" ]; src = attrs.src; }).drvPath;
  };
  base = finalCudaPackages: {
    inherit manifests cudaMajorMinorPatchVersion cudaMajorMinorVersion cudaMajorVersion;
    backendStdenv = { inherit hostRedistSystem; };
    callPackage = f: args: f args;
  } // builtins.listToAttrs (map (n: { name = n; value = withDrv (buildRedist finalCudaPackages n); }) (builtins.concatLists (builtins.attrValues redistOf)));
  composedExtensions = lib.composeManyExtensions _cuda.extensions;
  set = lib.fix (lib.extends composedExtensions base);
in
set // {
  override = f: import ./default.nix { inherit pkgs; manifests = (if builtins.isFunction f then f { inherit manifests; } else f).manifests or manifests; };
  overrideScope = g: set // g set set;
}
