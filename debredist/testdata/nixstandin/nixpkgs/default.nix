# Stand-in for `import <nixpkgs> { ... }` (see ../README.md): the top-level
# fixed point of overlays, stdenv.mkDerivation with nixpkgs' overrideAttrs
# (a fixed point over finalAttrs) and meta checks, srcOnly, fetchurl, _cuda
# and the CUDA package sets of pkgs/top-level/cuda-packages.nix.
{ overlays ? [ ], config ? { }, system ? builtins.currentSystem }:
let
  lib = import ./lib.nix;
  # A library the stand-in does not build (the C library, the C++ runtime,
  # zlib, …): for each soname an empty aarch64 shared object with that
  # SONAME, linked by the host's cross compiler, in $out/lib.
  providing = name: sonames: derivation {
    inherit name system sonames;
    builder = "/bin/bash";
    args = [ "-euc" ''
      /usr/bin/mkdir -p "$out/lib"
      for s in $sonames; do
        /usr/bin/aarch64-linux-gnu-gcc -shared -nostdlib -Wl,-soname,"$s" -o "$out/lib/$s" -x c /dev/null
      done
    '' ];
  };
  base = final: {
    lib = lib // { platforms.unix = [ "x86_64-linux" "aarch64-linux" ]; };
    inherit system config;
    # lib.callPackageWith over the top level; the CUDA package sets'
    # callPackage passes manifests, as pkgs/top-level/cuda-packages.nix.
    callPackage = fn: args:
      if fn == final._cuda.bootstrapData.cudaPackagesPath
      then import ./cuda-modules { pkgs = final; inherit (args) manifests; }
      else let f = if builtins.isFunction fn then fn else import fn; in
        f (builtins.intersectAttrs (builtins.functionArgs f) final // args);
    # What nix/package.nix takes: pkgs/build-go-module's two derivations,
    # the vendor directory (fixed-output, its hash vendorHash: `go mod
    # vendor` reading the caller's module cache, or the module proxy, as any
    # fixed-output derivation may) and the build with -mod=vendor, using
    # the host's Go (/usr/local/go, where Go's own releases and the golang
    # images install it; see ../README.md).
    buildGoModule = import ./build-go-module.nix { inherit lib; inherit (final) stdenv; };
    stdenv = { mkDerivation = import ./make-derivation.nix { inherit lib config system; }; cc.cc.lib = final.ccLib; cc.libc = final.glibc; buildPlatform.system = system; };
    buildPackages = final; # no cross compiling here
    stdenvNoCC = final.stdenv;
    # What the stand-in does not build (see providing): the C library
    # (auto-patchelf leaves what its lib/ has to the dynamic loader), the
    # C++ runtime every CUDA package takes as an input ((lib.getLib
    # stdenv.cc.cc) in nixpkgs), and the libraries package files take as
    # inputs.
    glibc = providing "glibc" [ "ld-linux-aarch64.so.1" "libc.so.6" "libm.so.6" "libdl.so.2" "libpthread.so.0" "librt.so.1" "libresolv.so.2" "libutil.so.1" "libanl.so.1" "libnsl.so.1" ];
    ccLib = providing "gcc-lib" [ "libstdc++.so.6" "libgcc_s.so.1" "libgomp.so.1" "libatomic.so.1" ];
    zlib = providing "zlib" [ "libz.so.1" ];
    numactl = providing "numactl" [ "libnuma.so.1" ];
    rdma-core = providing "rdma-core" [ "libibverbs.so.1" "librdmacm.so.1" "libmlx5.so.1" ];
    expat = providing "expat" [ "libexpat.so.1" ];
    gmp = providing "gmp" [ "libgmp.so.10" ];
    ncurses = providing "ncurses" [ "libncursesw.so.6" "libtinfo.so.6" ];
    libxcrypt-legacy = providing "libxcrypt-legacy" [ "libcrypt.so.1" ];
    python3 = providing "python3" [ "libpython3.12.so.1.0" ] // { version = "3.12.8"; };
    # pkgs/build-support/src-only: unpacks src (one top directory) and
    # copies it to $out; no fixup.
    srcOnly = args: final.stdenv.mkDerivation {
      name = "${args.pname}-${args.version}-source";
      inherit (args) src;
      installPhase = ''cp -pr --reflink=auto -- . "$out"'';
      dontFixup = true;
    };
    # Fixed-output, as pkgs/build-support/fetchurl; Nix's builtin fetcher
    # (file:// URLs work offline).
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
