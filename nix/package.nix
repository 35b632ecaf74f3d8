# debredist as a Nix package, for the `debredist` argument of the file
# 'debredist nix --derivations' prints:
#
#   debredist = pkgs.callPackage ./nix/package.nix { };
#
# vendorHash is the NAR hash of `go mod vendor`; debredist's tests check it
# against go.mod (TestNixPackage), so it changes with the dependencies.
{
  lib,
  buildGoModule,
  go_1_26 ? null,
}:
let
  # go.mod asks for Go 1.26; older default Go toolchains refuse it.
  build = if go_1_26 != null then buildGoModule.override { go = go_1_26; } else buildGoModule;
in
build {
  pname = "debredist";
  version = "0.1.0";
  src = lib.cleanSource ../.;
  vendorHash = "sha256-aZEdCWryhx1He38tQKOa3JLJcJSKns6HCr3Jn5HyH8I=";
  subPackages = [ "cmd/debredist" ];
  env.CGO_ENABLED = "0";
  ldflags = [ "-s" "-w" ];
  # The tests read testdata and run dpkg, xz, nix and others: run them with
  # `go test ./...` in a checkout (see README.md).
  doCheck = false;
  meta = {
    description = "Turn NVIDIA Jetson (L4T) .deb packages into CUDA redistributables";
    mainProgram = "debredist";
    platforms = lib.platforms.unix;
  };
}
