#!/bin/sh
# scripts/nixpkgs-eval.sh NIXPKGS [JETPACK_NIXOS [CUDA_LEGACY]] OUT
#
# Instantiates (evaluates, builds nothing) every package the overlay of
# `debredist nix OUT` provides, for aarch64-linux, once per CUDA capability
# of the release (its provenance's cuda_capabilities: Xavier 7.2, Orin 8.7,
# Thor 11.0), each package and capability in its own nix-instantiate (so a
# missing attribute or an error fails only that one), and prints one line
# per package and capability, then a summary:
#
#   cudaPackages_12_6.libcublas 8.7: ok /nix/store/…-cuda12.6-libcublas-12.6.1.4.drv src file:///…/libcublas-…-archive.tar.xz
#   cudaPackages_12_6.tensorrt 8.7: expected (insecure: your choice, see verify --nixpkgs): error: Package ‘…’ is marked as insecure …
#   cudaPackages_13_2.cudnn_jit 8.7: FAIL error: attribute 'cudnn_jit' missing
#   summary: 58 ok, 2 expected, 1 failed, 0 not from OUT
#
# NIXPKGS, JETPACK_NIXOS and CUDA_LEGACY are checkouts (directories): the
# overlays are applied as jetpack-nixos' flake applies them, cuda-legacy's
# first, then jetpack-nixos' overlay.nix, then debredist's. Without
# JETPACK_NIXOS only debredist's overlay is applied (JetPack 6 and 7 on plain
# nixpkgs). Run `debredist` from PATH, or set DEBREDIST to the command.
# DEBREDIST_NIX_DERIVATIONS=1 evaluates the overlay of `debredist nix
# --derivations OUT` instead: every source must then be an archive
# derivation's output in the Nix store. DEBREDIST_ACCEPT_INSECURE=1 sets
# the printed file's acceptInsecureTensorRT to true. DEBREDIST_NO_OVERLAY=1
# is the control: the same evaluations without debredist's overlay (every
# package then comes from elsewhere, or fails). PACKAGES (space-separated
# pnames) evaluates only those. JOBS (default 2) evaluations run side by
# side.
#
# A package that does not evaluate where `debredist verify --nixpkgs` says
# it cannot (nixpkgs marks it broken, its platformAssertions exclude the
# device, an insecure TensorRT not accepted) is "expected". Exit status 1
# when any package fails otherwise, or evaluates with a source that is not
# OUT's archive; 2 on a usage error or when there is nothing to evaluate.
# Needs nix-instantiate and jq.
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

# What verify --nixpkgs says of every archive: the packages, their CUDA
# release, and where they cannot evaluate.
$debredist verify --nixpkgs --json "$out" >"$work/verify.json" || true
jq -e '.nixpkgs.components | length > 0' "$work/verify.json" >/dev/null 2>&1 || {
	echo "$0: '$debredist verify --nixpkgs --json $out' names no package to evaluate" >&2
	exit 2
}
cuda=$(jq -r '[.nixpkgs.components[].cuda] | unique | if length == 1 then .[0] else error("several CUDA releases") end' "$work/verify.json")
set=cudaPackages_$(echo "$cuda" | tr . _)
caps=$(jq -r '[.nixpkgs.components[].devices[] | sub(":.*"; "")] | unique | .[]' "$work/verify.json")
[ -n "$caps" ] || caps=8.7

if [ "${DEBREDIST_NIX_DERIVATIONS:-}" = 1 ]; then
	# The overlay of 'debredist nix --derivations': every archive comes from
	# its fixed-output derivation (evaluated here, not built: the debredist
	# argument only has to be a path).
	$debredist nix --derivations "$out" >"$work/printed.nix" 2>/dev/null
	ourOverlay="(import $work/printed.nix { debredist = \"/debredist-not-built\"; }).overlay"
	from="${NIX_STORE_DIR:-/nix/store}/"
else
	$debredist nix "$out" >"$work/printed.nix" 2>/dev/null
	ourOverlay="(import $work/printed.nix)"
	from="file://$out/"
fi
if [ "${DEBREDIST_ACCEPT_INSECURE:-}" = 1 ]; then
	sed -i 's/^  acceptInsecureTensorRT = false;$/  acceptInsecureTensorRT = true;/' "$work/printed.nix"
	grep -q '^  acceptInsecureTensorRT = true;$' "$work/printed.nix" || {
		echo "$0: the printed file has no acceptInsecureTensorRT line to set" >&2
		exit 2
	}
fi
overlays="[ "
[ -z "$legacy" ] || overlays="$overlays (import $legacy/overlays) "
[ -z "$jetpack" ] || overlays="$overlays (import $jetpack/overlay.nix) "
[ "${DEBREDIST_NO_OVERLAY:-}" = 1 ] || overlays="$overlays $ourOverlay "
overlays="$overlays]"

# One cell: package $1, capability $2, into $work/cells/$3.
cat >"$work/cell.sh" <<'EOF'
set -u
name=$1 cap=$2 dest=$3
# The package, capability and set are arguments (--argstr), never Nix
# syntax; the checkouts and the overlay file are paths this script made
# absolute.
expr="{ name, cap, set }: let
  pkgs = import $NIXPKGS {
    system = \"aarch64-linux\";
    config = { allowUnfree = true; cudaSupport = true; cudaCapabilities = [ cap ]; };
    overlays = $OVERLAYS;
  };
  p = builtins.getAttr name (builtins.getAttr set pkgs);
  fetched = if p.src ? src then p.src.src else p.src; # inside srcOnly, as buildRedist makes it
in
if p == null then { drv = \"null\"; src = \"\"; }
else { drv = p.drvPath; src = if p.src == null then \"none\" else toString (fetched.url or fetched.urls or fetched); }"
if nix-instantiate --eval --strict --json --argstr name "$name" --argstr cap "$cap" --argstr set "$SET" --expr "$expr" >"$dest.json" 2>"$dest.err"; then
	echo ok >"$dest.status"
else
	echo error >"$dest.status"
fi
EOF
mkdir "$work/cells"
i=0
jq -r '[.nixpkgs.components[].component] | unique | .[]' "$work/verify.json" >"$work/pnames"
if [ -n "${PACKAGES:-}" ]; then
	for p in $PACKAGES; do
		grep -qx "$p" "$work/pnames" || {
			echo "$0: PACKAGES names $p, which OUT does not provide" >&2
			exit 2
		}
	done
	printf '%s\n' $PACKAGES >"$work/pnames"
fi
: >"$work/jobs"
for cap in $caps; do
	while read -r name; do
		i=$((i + 1))
		printf '%s %s %05d\n' "$name" "$cap" "$i" >>"$work/jobs"
	done <"$work/pnames"
done
export NIXPKGS="$nixpkgs" OVERLAYS="$overlays" SET="$set"
xargs -P "${JOBS:-2}" -L 1 sh -c 'sh "$0/cell.sh" "$1" "$2" "$0/cells/$3"' "$work" <"$work/jobs"

ok=0 expected=0 failed=0 foreign=0
while read -r name cap n; do
	c="$work/cells/$n"
	# Why the package may not evaluate, by verify --nixpkgs, and the error
	# nixpkgs gives for that reason: any other error is a failure.
	why=$(jq -r --arg n "$name" --arg cap "$cap" '
	  [.nixpkgs.components[] | select(.component == $n)] as $cs
	  | if ($cs | map(.nixpkgs_broken // empty) | length) > 0 then "nixpkgs marks it broken\tis marked as broken"
	    elif ($cs | map(.devices[] | select(startswith($cap + ": unavailable"))) | length) > 0 then "unavailable on " + $cap + ": platformAssertions\tis not available on the requested hostPlatform"
	    elif ($cs | map(.insecure[]) | length) > 0 and env.DEBREDIST_ACCEPT_INSECURE != "1" then "insecure: your choice, see verify --nixpkgs\tis marked as insecure"
	    else "" end' "$work/verify.json")
	pattern=${why#*	}
	why=${why%%	*}
	if [ "$(cat "$c.status")" = ok ]; then
		drv=$(jq -r .drv "$c.json")
		src=$(jq -r .src "$c.json")
		if [ "$drv" = null ]; then
			echo "$set.$name $cap: null (set so by an overlay: cuda_compat on JetPack 5)"
			ok=$((ok + 1))
		else
			case $src in
			"$from"*)
				echo "$set.$name $cap: ok $drv src $src"
				ok=$((ok + 1))
				;;
			*)
				echo "$set.$name $cap: NOT from OUT $drv src $src"
				foreign=$((foreign + 1))
				;;
			esac
		fi
	else
		err=$(sed 's/\x1b\[[0-9;]*m//g' "$c.err" | grep -m 1 'error:' || head -n 1 "$c.err")
		if [ -n "$why" ] && printf '%s\n' "$err" | grep -qF "$pattern"; then
			echo "$set.$name $cap: expected ($why): $err"
			expected=$((expected + 1))
		else
			echo "$set.$name $cap: FAIL $err"
			failed=$((failed + 1))
		fi
	fi
done <"$work/jobs"
echo "summary: $ok ok, $expected expected, $failed failed, $foreign not from OUT"
[ "$failed" -eq 0 ] && [ "$foreign" -eq 0 ] || exit 1
