# The stand-in as a flake (see ../README.md), for `--override-input nixpkgs`
# in the tests of debredist's flake.nix.
{
  outputs =
    { self }:
    {
      lib = import ./lib.nix;
      legacyPackages = builtins.listToAttrs (
        map (system: {
          name = system;
          value = import ./. { inherit system; };
        }) [ "x86_64-linux" "aarch64-linux" ]
      );
    };
}
