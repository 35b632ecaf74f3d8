# debredist as a flake: the package, an overlay that adds it, and the
# function that turns the file `debredist nix --derivations OUT` prints into
# the overlay for nixpkgs' CUDA package sets (README: "nixpkgs", flakes).
{
  description = "debredist: NVIDIA Jetson (L4T) debs to CUDA redistributables, and their Nix overlay";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs =
    { self, nixpkgs }:
    let
      systems = [
        "x86_64-linux"
        "aarch64-linux"
      ];
      eachSystem =
        f:
        builtins.listToAttrs (
          map (system: {
            name = system;
            value = f nixpkgs.legacyPackages.${system};
          }) systems
        );
    in
    {
      packages = eachSystem (pkgs: rec {
        debredist = pkgs.callPackage ./nix/package.nix { };
        default = debredist;
      });

      # Adds pkgs.debredist.
      overlays.default = final: prev: { debredist = final.callPackage ./nix/package.nix { }; };

      # lib.redistOverlay FILE: the overlay of the file `debredist nix
      # --derivations OUT` prints (keep that file in your flake; it embeds
      # everything it needs, and this works in pure evaluation). Each archive
      # is a fixed-output derivation built on the build platform by
      # pkgs.buildPackages.debredist when set, else by this flake's package.
      # Use it after jetpack-nixos' overlay:
      #   nixpkgs.overlays = [ jetpack-nixos.overlays.default (debredist.lib.redistOverlay ./redist.nix) ];
      lib.redistOverlay =
        file: final: prev:
        let
          build = final.buildPackages or final;
        in
        (import file {
          inherit (final) fetchurl;
          system = build.stdenv.buildPlatform.system;
          debredist = build.debredist or (build.callPackage ./nix/package.nix { });
        }).overlay
          final
          prev;

      checks = eachSystem (pkgs: {
        debredist = pkgs.callPackage ./nix/package.nix { };
      });
    };
}
