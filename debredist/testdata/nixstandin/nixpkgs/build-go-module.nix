# Stand-in for pkgs/build-support/go/module.nix (see ../README.md): a Go
# module built offline with the host's Go (/usr/local/go, where Go's own
# releases and the golang images install it; GOTOOLCHAIN=local, so it must
# be the version go.mod asks for or newer). Two derivations, as there:
# goModules, the vendor directory, fixed-output with hash vendorHash (`go
# mod vendor` with the caller's HOME, GOMODCACHE and GOPROXY, which a
# fixed-output derivation may read: offline when the module cache holds the
# modules), and the package, built with -mod=vendor for the derivation's
# system (GOOS/GOARCH; CGO as env says), each of subPackages into
# $out/bin. No tests run (nix/package.nix sets doCheck = false).
{ lib, stdenv }:
args@{ pname, version, src, vendorHash, subPackages ? [ "." ], ldflags ? [ ], env ? { }, ... }:
let
  go = "/usr/local/go/bin/go";
  goArch = { x86_64-linux = "amd64"; aarch64-linux = "arm64"; };
  inherit (stdenv.buildPlatform) system;
  goModules = derivation {
    name = "${pname}-${version}-go-modules";
    inherit system src go;
    builder = "/bin/bash";
    args = [ "-euc" ''
      export PATH=/usr/bin:/bin GOTOOLCHAIN=local GOFLAGS=-mod=mod GOCACHE="$TMPDIR/go-cache"
      # The caller's module cache; then a HOME of the build's own (Go writes
      # its telemetry under HOME/.config).
      export GOMODCACHE="''${GOMODCACHE:-$HOME/go/pkg/mod}" HOME="$TMPDIR/home"
      cp -r "$src" "$TMPDIR/source" && chmod -R u+w "$TMPDIR/source" && cd "$TMPDIR/source"
      "$go" mod vendor -o "$out"
    '' ];
    impureEnvVars = [ "HOME" "GOMODCACHE" "GOPROXY" "GONOPROXY" "GOSUMDB" "GONOSUMDB" "GOPRIVATE" "GOINSECURE" ];
    outputHashMode = "recursive";
    outputHash = vendorHash;
  };
in
stdenv.mkDerivation (builtins.removeAttrs args [ "vendorHash" "subPackages" "ldflags" ] // {
  inherit goModules;
  env = env // {
    GOOS = "linux";
    GOARCH = goArch.${system};
    GOTOOLCHAIN = "local";
    GOFLAGS = "-mod=vendor -trimpath";
    GOPROXY = "off";
  };
  inherit go;
  ldflags = toString ldflags;
  subPackages = toString subPackages;
  buildPhase = ''
    # Go writes under HOME (its telemetry in HOME/.config): the build's own,
    # never the /homeless-shelter Nix checks is absent.
    export GOCACHE="$NIX_BUILD_TOP/go-cache" GOPATH="$NIX_BUILD_TOP/go" HOME="$NIX_BUILD_TOP/home"
    cp -r "$goModules" vendor
    for p in $subPackages; do
      "$go" build -ldflags="$ldflags" -o "$NIX_BUILD_TOP/bin/" "./$p"
    done
  '';
  installPhase = ''
    mkdir -p "$out"
    cp -r "$NIX_BUILD_TOP/bin" "$out/bin"
  '';
  dontFixup = true;
})
