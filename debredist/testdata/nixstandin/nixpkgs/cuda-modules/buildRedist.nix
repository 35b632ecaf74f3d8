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
  # Where each output's files go, in the order of the package's outputs
  # after out (outputToPatterns; bash globs without globstar, as
  # moveToOutput reads them).
  outputToPatterns = {
    bin = [ "bin" ]; dev = [ "**/*.pc" "**/*.cmake" ]; include = [ "include" ]; lib = [ "lib" "lib64" ];
    static = [ "**/*.a" ]; samples = [ "samples" ]; python = [ "**/*.whl" ]; stubs = [ "stubs" "lib/stubs" ];
  };
  # outputNameVarFallbacks: the first of these the package has, else out.
  outputNameVars = {
    outputBin = [ "bin" ]; outputDev = [ "dev" ]; outputDoc = [ "doc" ]; outputInclude = [ "include" "dev" ];
    outputLib = [ "lib" ]; outputOut = [ "out" ]; outputPython = [ "python" ]; outputSamples = [ "samples" ];
    outputStatic = [ "static" ]; outputStubs = [ "stubs" "lib" ];
  };
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
    allowFHSReferences = attrs.allowFHSReferences or false;
    doInstallCheck = attrs.doInstallCheck or true;
    appendRunpaths = [ "$ORIGIN" ] ++ attrs.appendRunpaths or [ ];
    inherit cudaMajorVersion cudaMajorMinorVersion;
    # The build (../stdenv/builder.sh with these hooks): the archive's tree
    # into out, then each output's patterns moved to it.
    setupHooks = [ ./buildRedistHook.bash ../auto-patchelf.bash ];
    standInLibc = pkgs.stdenv.cc.libc;
    removeStubsFromRunpathHook = ./removeStubsFromRunpathHook.bash;
    installPhase = ''
      runHook preInstall
      mkdir -p "$out" "''${!outputDev}"
      mv * "$out"
    '' + lib.concatMapStringsSep "" (o: lib.concatMapStringsSep "" (p: ''
      moveToOutput "${p}" "''$${o}"
    '') (outputToPatterns.${o} or [ ])) (builtins.tail finalAttrs.outputs) + ''
      runHook postInstall
    '';
    # The stub hook, propagated by the output that holds the stubs.
    postFixup = attrs.postFixup or "" + lib.optionalString finalAttrs.includeRemoveStubsFromRunpathHook ''
      mkdir -p "''${!outputStubs}/nix-support"
      echo "$removeStubsFromRunpathHook" >>"''${!outputStubs}/nix-support/propagated-native-build-inputs"
    '';
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
  } // builtins.mapAttrs (var: names: attrs.${var} or (lib.findFirst (o: builtins.elem o finalAttrs.outputs) "out" names)) outputNameVars)
