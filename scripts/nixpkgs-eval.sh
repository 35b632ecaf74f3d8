#!/bin/sh
# scripts/nixpkgs-eval.sh NIXPKGS [JETPACK_NIXOS [CUDA_LEGACY]] OUT
#
# Instantiates (evaluates, builds nothing) every package the overlay of
# `debredist nix OUT` provides, for aarch64-linux, once per CUDA capability
# of the release (its profile's cuda_capabilities: Xavier 7.2, Orin 8.7,
# Thor 11.0), and prints one line per package and capability:
#
#   cudaPackages_12_6.libcublas 8.7: /nix/store/…-cuda12.6-libcublas-12.6.1.4.drv src file:///…/libcublas-…-archive.tar.xz
#   cudaPackages_12_6.tensorrt 8.7: not evaluated (insecure, unavailable or broken: see verify --nixpkgs)
#
# NIXPKGS, JETPACK_NIXOS and CUDA_LEGACY are checkouts (directories): the
# overlays are applied as jetpack-nixos' flake applies them, cuda-legacy's
# first, then jetpack-nixos' overlay.nix, then debredist's. Without
# JETPACK_NIXOS only debredist's overlay is applied (JetPack 6 and 7 on plain
# nixpkgs). Run `debredist` from PATH, or set DEBREDIST to the command.
# DEBREDIST_NIX_DERIVATIONS=1 evaluates the overlay of `debredist nix
# --derivations OUT` instead: every source must then be an archive
# derivation's output in the Nix store.
# Exit status 1 when a package's source is not OUT's archive (nixpkgs or
# another overlay builds it from elsewhere); the other lines still print.
# Exit status 2 on a usage error, or when the overlay hands over no
# manifest (nothing would be checked).
# A package that does not evaluate prints "not evaluated" and does not
# change the exit status: Nix's tryEval does not say why, and an insecure
# TensorRT or a package unavailable on a device is expected (`debredist
# verify --nixpkgs OUT` names the reason). Needs nix-instantiate and jq.
set -eu
case $# in
2) nixpkgs=$1 jetpack= legacy= out=$2 ;;
3) nixpkgs=$1 jetpack=$2 legacy= out=$3 ;;
4) nixpkgs=$1 jetpack=$2 legacy=$3 out=$4 ;;
*)
	echo "usage: $0 NIXPKGS [JETPACK_NIXOS [CUDA_LEGACY]] OUT" >&2
	exit 2
	;;
esac
debredist=${DEBREDIST:-debredist}
abs() { (cd "$1" && pwd); }
nixpkgs=$(abs "$nixpkgs")
out=$(abs "$out")
[ -z "$jetpack" ] || jetpack=$(abs "$jetpack")
[ -z "$legacy" ] || legacy=$(abs "$legacy")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "${DEBREDIST_NIX_DERIVATIONS:-}" = 1 ]; then
	# The overlay of 'debredist nix --derivations': every archive comes from
	# its fixed-output derivation (evaluated here, not built: the debredist
	# argument only has to be a path).
	$debredist nix --derivations "$out" >"$work/printed.nix"
	echo "(import $work/printed.nix { debredist = \"/debredist-not-built\"; }).overlay" >"$work/overlay.nix"
	from="${NIX_STORE_DIR:-/nix/store}/"
else
	$debredist nix "$out" >"$work/printed.nix"
	cp "$work/printed.nix" "$work/overlay.nix"
	from="file://$out/"
fi

# The set, the packages and the capabilities, from what debredist wrote:
# the products are those of the overlay's `manifests = {` block, the
# packages the keys of their manifests (release_* aside), the capabilities
# those of their sidecars' profiles.
set=$(sed -n 's/^ *\(cudaPackages_[0-9_]*\) =.*/\1/p' "$work/printed.nix" | head -n 1)
products=$(sed -n '/^ *manifests = {$/,/^ *};$/{
	s/^ *\([a-z0-9_]*\) = lib\.importJSON .*/\1/p
	s/^ *\([a-z0-9_]*\) = builtins\.fromJSON .*/\1/p
}' "$work/printed.nix")
: >"$work/pnames"
: >"$work/caps"
for p in $products; do
	found=
	for m in "$out/$p"/redist/redistrib_*.json; do
		case $m in *.provenance.json) continue ;; esac # a sidecar's old name
		[ -f "$m" ] || continue
		found=1
		jq -r 'keys[] | select(startswith("release_") | not)' "$m" >>"$work/pnames"
		label=${m##*/redistrib_}
		label=${label%.json}
		for sc in "$out/$p/redist/debredist-provenance_$label.json" "$out/$p/redist/redistrib_$label.provenance.json"; do
			if [ -f "$sc" ]; then
				jq -r '.profile.cuda_capabilities // [] | .[]' "$sc" >>"$work/caps"
				break
			fi
		done
	done
	if [ -z "$found" ]; then
		echo "$0: the overlay hands over the manifest of $p, but $out/$p/redist holds none" >&2
		exit 2
	fi
done
sort -u -o "$work/pnames" "$work/pnames"
if [ -z "$set" ] || [ ! -s "$work/pnames" ]; then
	echo "$0: the overlay of '$debredist nix' names no package set or no package to evaluate (set '$set', products: $products)" >&2
	exit 2
fi
caps=$(sort -u "$work/caps")
[ -n "$caps" ] || caps=8.7

overlays="[ "
[ -z "$legacy" ] || overlays="$overlays (import $legacy/overlays) "
[ -z "$jetpack" ] || overlays="$overlays (import $jetpack/overlay.nix) "
overlays="$overlays (import $work/overlay.nix) ]"

status=0
for cap in $caps; do
	names=$(sed 's/.*/"&"/' "$work/pnames" | tr '\n' ' ')
	expr="let
	  pkgs = import $nixpkgs {
	    system = \"aarch64-linux\";
	    config = { allowUnfree = true; cudaSupport = true; cudaCapabilities = [ \"$cap\" ]; };
	    overlays = $overlays;
	  };
	  one = n: let
	      p = pkgs.$set.\${n};
	    in if p == null then { name = n; ok = true; drv = \"null\"; src = \"null\"; } else let
	      drv = builtins.tryEval (builtins.seq p.drvPath p.drvPath);
	      fetched = if p.src ? src then p.src.src else p.src; # inside srcOnly, as buildRedist makes it
	      src = builtins.tryEval (if p ? src && p.src != null then (fetched.url or fetched.urls or (toString fetched)) else \"none\");
	    in { name = n; ok = drv.success; drv = if drv.success then drv.value else \"\"; src = if src.success then toString src.value else \"?\"; };
	in map one [ $names ]"
	nix-instantiate --eval --strict --json --expr "$expr" >"$work/result.json"
	jq -r --arg set "$set" --arg cap "$cap" --arg out "$from" '.[] |
	  if .drv == "null" then "\($set).\(.name) \($cap): null (set so by an overlay: cuda_compat on JetPack 5)"
	  elif .ok then "\($set).\(.name) \($cap): \(.drv) src \(.src)" + (if (.src | startswith($out)) then "" else "   <- NOT from OUT" end)
	  else "\($set).\(.name) \($cap): not evaluated (insecure, unavailable or broken: see verify --nixpkgs)" end' "$work/result.json"
	if jq -e --arg out "$from" '[.[] | select(.ok and .drv != "null" and (.src | startswith($out) | not))] | length > 0' "$work/result.json" >/dev/null; then
		status=1
	fi
done
exit $status
