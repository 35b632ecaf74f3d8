# Stand-in for pkgs/development/cuda-modules/buildRedist/default.nix (see
# ../../README.md): what decides a package's release, archive, outputs and
# availability, read from finalAttrs as there (release, supportedReleases,
# src, outputs), and the checks that make it unavailable.
{ pkgs, manifests, cudaMajorMinorVersion, cudaMajorVersion, redistSystem, cudaCapabilities }:
let
  inherit (pkgs) lib _cuda;
  expectedOutputs = [ "out" "doc" "samples" "python" "bin" "dev" "include" "lib" "static" "stubs" ];
  # getSupportedReleases: source, linux-all, else every platform with the
  # wanted CUDA variant (_mkCudaVariant: only cuda<MAJOR> at these revisions).
  getSupportedReleases = release:
    let desired = [ (_cuda.lib._mkCudaVariant cudaMajorVersion) ]; in
    if release ? source then { inherit (release) source; }
    else if release ? linux-all then { inherit (release) linux-all; }
    else builtins.foldl' (acc: name:
      let
        value = release.${name};
        variant = lib.findFirst (v: value ? ${v}) null desired;
      in
      acc // lib.optionalAttrs (builtins.isAttrs value && (release ? cuda_variant -> variant != null)) {
        ${name} = if release ? cuda_variant then value.${variant} else value;
      }) { } (builtins.attrNames release);
  getPreferredRelease = s: s.source or s.linux-all or s.${redistSystem} or null;
in
fpargs:
pkgs.stdenv.mkDerivation (finalAttrs:
  let
    attrs = if builtins.isFunction fpargs then fpargs finalAttrs else fpargs;
    release = attrs.release or (manifests.${finalAttrs.passthru.redistName}.${finalAttrs.pname} or null);
    assertions = [
      { message = "redistSystem (${redistSystem}) is supported"; assertion = builtins.elem redistSystem finalAttrs.passthru.supportedRedistSystems; }
    ] ++ attrs.platformAssertions or [ ];
  in
  builtins.removeAttrs attrs [ "redistName" "release" "platformAssertions" ] // {
    version = finalAttrs.passthru.release.version or "0-unsupported";
    name = "cuda${cudaMajorMinorVersion}-${finalAttrs.pname}-${finalAttrs.version}";
    outputs = if finalAttrs.src == null then [ "out" ] else lib.intersectLists (attrs.outputs or [ "out" ]) expectedOutputs;
    src = lib.mapNullable ({ relative_path, sha256, ... }: pkgs.srcOnly {
      inherit (finalAttrs) pname version;
      src = pkgs.fetchurl { url = _cuda.lib.mkRedistUrl finalAttrs.passthru.redistName relative_path; inherit sha256; };
    }) (getPreferredRelease finalAttrs.passthru.supportedReleases);
    buildInputs = [ pkgs.ccLib ] ++ attrs.buildInputs or [ ];
    includeRemoveStubsFromRunpathHook = attrs.includeRemoveStubsFromRunpathHook or (builtins.elem "stubs" finalAttrs.outputs);
    passthru = attrs.passthru or { } // {
      inherit (attrs) redistName;
      inherit release;
      supportedReleases = attrs.passthru.supportedReleases or (getSupportedReleases (if finalAttrs.passthru.release == null then { } else finalAttrs.passthru.release));
      supportedRedistSystems = builtins.attrNames finalAttrs.passthru.supportedReleases;
    };
    meta = attrs.meta or { } // {
      license = [ { shortName = "nvidiaCudaRedist"; free = false; } ];
      badPlatforms = lib.optional (!builtins.all (a: a.assertion) assertions) pkgs.system;
    };
  })
