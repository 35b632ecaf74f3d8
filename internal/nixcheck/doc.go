// Package nixcheck applies the rules nixpkgs' generic CUDA builder
// (buildRedist, pkgs/development/cuda-modules) enforces on a redist archive:
// outputs split by pattern, non-empty declared outputs, /usr/ references,
// dangling links, the pkg-config move and rewrite, and per-package
// requirements. The per-package table is data (nixpkgs.json). It emulates the
// build on an archive's entry list and contents; it does not run Nix.
package nixcheck
