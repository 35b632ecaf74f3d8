# The archives of an output directory as fixed-output derivations (printed by
# `debredist nix --derivations`). Like overlay.nix, this code is the same for
# every directory: the debs, the provenance and the archives come from `data`
# (JSON read with builtins.fromJSON; schema debredist.nix/v1, docs/json.md).
{
  data,
  fetchurl,
  debredist,
  system,
}:
let
  # The debs, by sha256, as the provenance pins them.
  debs = builtins.mapAttrs (
    sha256: deb:
    fetchurl {
      inherit (deb) name url;
      inherit sha256;
    }
  ) data.debs;
  # How each product's archives were made (its provenance sidecar, as read).
  provenance = builtins.mapAttrs (product: p: builtins.toFile p.name p.text) data.provenance;
  # One archive: `debredist build-archive` on exactly its debs; the output
  # hash is the manifest's sha256, so the bytes are checked by Nix.
  archive =
    a:
    derivation {
      name = baseNameOf a.relative_path;
      inherit system;
      builder = "${debredist}/bin/debredist";
      args = [
        "--quiet"
        "build-archive"
        "--provenance"
        provenance.${a.product}
        "--archive"
        a.relative_path
        "--out"
        (builtins.placeholder "out")
      ]
      ++ builtins.concatMap (s: [
        "--deb"
        debs.${s}
      ]) a.debs;
      outputHashMode = "flat";
      outputHashAlgo = "sha256";
      outputHash = a.sha256;
    };
  built = map (a: a // { drv = archive a; }) data.derivations;
  products = builtins.attrNames data.provenance;
  of = product: builtins.filter (a: a.product == product) built;
in
{
  # byPath.<product>."<relative_path>": each archive, a file named as in OUT.
  byPath = builtins.listToAttrs (
    map (product: {
      name = product;
      value = builtins.listToAttrs (
        map (a: {
          name = a.relative_path;
          value = a.drv;
        }) (of product)
      );
    }) products
  );
  # archives.<product>.<attr>: the same under names nix-build lists
  # (nix-build -A archives builds them all).
  archives = {
    recurseForDerivations = true;
  }
  // builtins.listToAttrs (
    map (product: {
      name = product;
      value = {
        recurseForDerivations = true;
      }
      // builtins.listToAttrs (
        map (a: {
          name = a.attr;
          value = a.drv;
        }) (of product)
      );
    }) products
  );
}
