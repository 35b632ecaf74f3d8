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
# derivation's output in the Nix store. DEBREDIST_MANIFESTS_ONLY=1 hands
# nixpkgs only OUT's manifests (its redistrib_*.json as they are) and a
# _cuda.lib.mkRedistUrl into OUT, no debredist overlay (scripts/
# nixpkgs-cells.sh, shared with scripts/nixpkgs-build.sh, writes it). DEBREDIST_ACCEPT_INSECURE=1 sets
# the printed file's acceptInsecureTensorRT to true (for
# DEBREDIST_MANIFESTS_ONLY=1, a consumer that only swaps in OUT's manifests
# and their URL, its nixpkgs config accepts it). DEBREDIST_NO_OVERLAY=1
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
# shellcheck source=scripts/nixpkgs-cells.sh
. "$(dirname "$0")/nixpkgs-cells.sh"

# One cell: package $1, capability $2, into $work/cells/$3.
cat >"$work/cell.sh" <<'EOF'
set -u
name=$1 cap=$2 dest=$3
if nix-instantiate --eval --strict --json --argstr name "$name" --argstr cap "$cap" --argstr set "$SET" "$WORK/cell.nix" >"$dest.json" 2>"$dest.err"; then
	echo ok >"$dest.status"
else
	echo error >"$dest.status"
fi
EOF
export SET="$set" WORK="$work"
xargs -P "${JOBS:-2}" -L 1 sh -c 'sh "$0/cell.sh" "$1" "$2" "$0/cells/$3"' "$work" <"$work/jobs"

ok=0 expected=0 failed=0 foreign=0
while read -r name cap n; do
	c="$work/cells/$n"
	why=$(expected_reason "$name" "$cap")
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
		err=$(nix_error "$c.err")
		if [ -n "$why" ] && sed 's/\x1b\[[0-9;]*m//g' "$c.err" | grep -qE "$pattern"; then
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
