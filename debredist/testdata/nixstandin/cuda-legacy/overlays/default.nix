# Stand-in for nixos-cuda/cuda-legacy's overlays (cudaPackagesVersions.nix
# and auto.nix): CUDA 11 package sets made from cuda-modules, added only
# where nixpkgs has none (see ../../README.md).
final: prev:
let
  mkCudaPackages = manifests: final.callPackage final._cuda.bootstrapData.cudaPackagesPath { inherit manifests; };
in
{
  cudaPackages_11_4 = prev.cudaPackages_11_4 or (mkCudaPackages { cuda = { release_label = "11.4.4"; }; });
}
