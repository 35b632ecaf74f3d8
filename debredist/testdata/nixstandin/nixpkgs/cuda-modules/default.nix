# Stand-in for pkgs/development/cuda-modules/default.nix (see ../../README.md):
# the package set is made from the package files (./packages.nix here, one
# entry per file nixpkgs has), so a manifest key without a package file is a
# missing attribute; _cuda.extensions apply to every set; manifests change
# only through .override (an argument, not part of the fixed point).
{ pkgs, manifests }:
let
  inherit (pkgs) lib _cuda config;
  cudaMajorMinorPatchVersion = manifests.cuda.release_label;
  cudaMajorMinorVersion = lib.versions.majorMinor cudaMajorMinorPatchVersion;
  cudaMajorVersion = lib.versions.major cudaMajorMinorPatchVersion;
  cudaCapabilities = config.cudaCapabilities or [ "8.7" ];
  # _cuda/lib/redist.nix getRedistSystem at the older revisions, for
  # aarch64-linux: linux-sbsa only when every capability is at least 10.1
  # (Orin on CUDA 13 stays linux-aarch64 there).
  redistSystem =
    if builtins.all (c: lib.versionAtLeast c "10.1") cudaCapabilities then "linux-sbsa" else "linux-aarch64";
  packageFiles = import ./packages.nix;
  base = finalCudaPackages:
    {
      inherit manifests cudaMajorMinorPatchVersion cudaMajorMinorVersion cudaMajorVersion redistSystem;
      cudaConfig = { inherit cudaCapabilities; };
      cudaOlder = lib.versionOlder cudaMajorMinorVersion;
      cudaAtLeast = lib.versionAtLeast cudaMajorMinorVersion;
      backendStdenv = {
        # The older generation's name for the redist system (jetpack-nixos
        # 4d857d6d reads it); the later one has redistSystem.
        hostRedistSystem = redistSystem;
        # Xavier and Orin (Thor, 11.0, is built as linux-sbsa).
        hasJetsonCudaCapability = builtins.any (c: builtins.elem c [ "7.2" "8.7" ]) cudaCapabilities;
      };
      buildRedist = import ./buildRedist.nix {
        inherit pkgs manifests cudaMajorMinorVersion cudaMajorVersion redistSystem cudaCapabilities;
      };
      # lib.callPackageWith over the set (a package file's arguments are
      # the set's attributes, else the top level's).
      callPackage = f: args:
        f (builtins.intersectAttrs (builtins.functionArgs f) (pkgs // finalCudaPackages) // args);
    }
    // builtins.mapAttrs (name: f: finalCudaPackages.callPackage f { }) packageFiles;
  composedExtensions = lib.composeManyExtensions _cuda.extensions;
  set = lib.fix (lib.extends composedExtensions base);
in
set // {
  override = f: import ./default.nix { inherit pkgs; manifests = (if builtins.isFunction f then f { inherit manifests; } else f).manifests or manifests; };
}
