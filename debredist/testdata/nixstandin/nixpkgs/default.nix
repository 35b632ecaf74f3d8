# Stand-in for `import <nixpkgs> { ... }` (see ../README.md): the top-level
# fixed point of overlays, stdenv.mkDerivation with nixpkgs' overrideAttrs
# (a fixed point over finalAttrs) and meta checks, srcOnly, fetchurl, _cuda
# and the CUDA package sets of pkgs/top-level/cuda-packages.nix.
{ overlays ? [ ], config ? { }, system ? "aarch64-linux" }:
let
  lib = import ./lib.nix;
  base = final: {
    lib = lib // { cleanSource = src: src; platforms.unix = [ "x86_64-linux" "aarch64-linux" ]; };
    inherit system config;
    # lib.callPackageWith over the top level; the CUDA package sets'
    # callPackage passes manifests, as pkgs/top-level/cuda-packages.nix.
    callPackage = fn: args:
      if fn == final._cuda.bootstrapData.cudaPackagesPath
      then import ./cuda-modules { pkgs = final; inherit (args) manifests; }
      else let f = if builtins.isFunction fn then fn else import fn; in
        f (builtins.intersectAttrs (builtins.functionArgs f) final // args);
    # What nix/package.nix takes: buildGoModule as a mkDerivation (never
    # built here), lib.cleanSource as the identity.
    buildGoModule = args: final.stdenv.mkDerivation (builtins.removeAttrs args [ "vendorHash" "subPackages" "env" "ldflags" ]);
    stdenv = { mkDerivation = import ./make-derivation.nix { inherit lib config system; }; cc.cc.lib = final.ccLib; buildPlatform.system = system; };
    buildPackages = final; # no cross compiling here
    stdenvNoCC = final.stdenv;
    # A C++ runtime every CUDA package takes as an input.
    ccLib = derivation { name = "gcc-lib"; inherit system; builder = "/bin/sh"; args = [ "-c" "exit 1" ]; };
    # pkgs/build-support/src-only: a mkDerivation that unpacks src.
    srcOnly = args: final.stdenv.mkDerivation {
      name = "${args.pname}-${args.version}-source";
      inherit (args) src;
    };
    # Fixed-output, as pkgs/build-support/fetchurl (never fetched here).
    fetchurl = { url, sha256, name ? baseNameOf url }: derivation {
      inherit name;
      builder = "builtin:fetchurl";
      system = "builtin";
      inherit url;
      outputHash = sha256;
      outputHashAlgo = "sha256";
      outputHashMode = "flat";
    };
    _cuda = lib.makeExtensible (finalCuda: {
      extensions = [ ];
      manifests = {
        cuda."12.6.3" = { release_label = "12.6.3"; cuda_cudart = { version = "12.6.77"; linux-aarch64 = { relative_path = "cuda_cudart/linux-aarch64/nvidia.tar.xz"; sha256 = "0000000000000000000000000000000000000000000000000000000000000000"; }; }; };
        cuda."13.2.0" = { release_label = "13.2.0"; };
        tensorrt."10.7.0" = { release_label = "10.7.0"; tensorrt = { version = "10.7.0.23"; cuda_variant = [ "12" ]; linux-aarch64.cuda12 = { relative_path = "tensorrt/10.7.0/nvidia.tar.gz"; sha256 = "1111111111111111111111111111111111111111111111111111111111111111"; }; }; };
        tensorrt."10.16.1" = { release_label = "10.16.1"; };
      };
      lib = {
        mkRedistUrl = redistName: relativePath:
          builtins.concatStringsSep "/" ([ "https://developer.download.nvidia.com/compute" ]
            ++ (if redistName != "tensorrt" then [ redistName "redist" ] else [ "machine-learning" ]) ++ [ relativePath ]);
        # The revisions whose _mkCudaVariant knows only cuda<MAJOR> (a
        # cuda13.2 key matches nothing there).
        _mkCudaVariant = major: "cuda${major}";
        selectManifests = builtins.mapAttrs (name: version: finalCuda.manifests.${name}.${version});
      };
      bootstrapData.cudaPackagesPath = ./cuda-modules;
    });
    # pkgs/top-level/cuda-packages.nix: no CUDA 11 set.
    cudaPackages_12_6 = final.callPackage final._cuda.bootstrapData.cudaPackagesPath { manifests = final._cuda.lib.selectManifests { cuda = "12.6.3"; tensorrt = "10.7.0"; }; };
    cudaPackages_13_2 = final.callPackage final._cuda.bootstrapData.cudaPackagesPath { manifests = final._cuda.lib.selectManifests { cuda = "13.2.0"; tensorrt = "10.16.1"; }; };
    cudaPackages_12 = final.cudaPackages_12_6;
    cudaPackages_13 = final.cudaPackages_13_2;
  };
  pkgs = builtins.foldl' (prev: overlay: prev // overlay pkgs prev) (base pkgs) overlays;
in
pkgs
