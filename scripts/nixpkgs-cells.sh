# scripts/nixpkgs-cells.sh: sourced by scripts/nixpkgs-eval.sh and
# scripts/nixpkgs-build.sh (not run on its own). What both do before and
# around their per-cell work: read the arguments, ask `debredist verify
# --nixpkgs --json OUT` which packages, CUDA release and devices there are,
# write the overlay of the route asked for, list the cells (package x
# capability) and say why nixpkgs itself refuses a cell.
#
# Sets: nixpkgs jetpack legacy out (absolute), debredist, work (a temporary
# directory removed on exit), set (cudaPackages_X_Y), caps, overlays (Nix
# text: a list of overlays), from (what every source must start with),
# route, and $work/verify.json, $work/printed.nix, $work/cell.nix (what one
# cell evaluates), $work/jobs ("pname cap n" per line). Defines
# expected_reason and nix_error.
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
	echo "$0: '$debredist verify --nixpkgs --json $out' names no package" >&2
	exit 2
}
cuda=$(jq -r '[.nixpkgs.components[].cuda] | unique | if length == 1 then .[0] else error("several CUDA releases") end' "$work/verify.json")
set=cudaPackages_$(echo "$cuda" | tr . _)
caps=$(jq -r '[.nixpkgs.components[].devices[] | sub(":.*"; "")] | unique | .[]' "$work/verify.json")
[ -n "$caps" ] || caps=8.7

# The route: which overlay hands OUT to nixpkgs.
if [ "${DEBREDIST_MANIFESTS_ONLY:-}" = 1 ] && [ "${DEBREDIST_NIX_DERIVATIONS:-}" = 1 ]; then
	echo "$0: DEBREDIST_MANIFESTS_ONLY and DEBREDIST_NIX_DERIVATIONS are two routes: set one" >&2
	exit 2
fi
if [ "${DEBREDIST_NIX_DERIVATIONS:-}" = 1 ]; then
	# The overlay of 'debredist nix --derivations': every archive comes from
	# its fixed-output derivation. Evaluation alone only needs a path for
	# the debredist argument; a build (cells_build) needs the package: the
	# debredist executable copied into the store.
	route=derivations
	$debredist nix --derivations "$out" >"$work/printed.nix" 2>/dev/null
	debredistArg='"/debredist-not-built"'
	if [ -n "${cells_build:-}" ]; then
		exe=$(command -v "$debredist") || {
			echo "$0: DEBREDIST_NIX_DERIVATIONS=1 builds the archives with DEBREDIST, which must name the debredist executable ('$debredist' does not)" >&2
			exit 2
		}
		mkdir -p "$work/debredist/bin"
		cp "$exe" "$work/debredist/bin/debredist"
		debredistArg="builtins.path { path = $work/debredist; name = \"debredist\"; }"
	fi
	ourOverlay="(import $work/printed.nix { debredist = $debredistArg; }).overlay"
	from="${NIX_STORE_DIR:-/nix/store}/"
elif [ "${DEBREDIST_MANIFESTS_ONLY:-}" = 1 ]; then
	# A consumer that knows nothing of debredist: it swaps in OUT's
	# manifests (each product's redistrib_*.json, as the files are) and
	# makes _cuda.lib.mkRedistUrl point into OUT, nothing else.
	route=manifests-only
	: >"$work/printed.nix"
	jq -n --arg set "$set" --arg base "file://$out" '{ set: $set, base_url: $base, manifests: {} }' >"$work/mo.json"
	for m in "$out"/*/redist/redistrib_*.json; do
		[ -f "$m" ] || continue
		product=$(jq -r .release_product "$m")
		case $product in cuda | cudnn | cusparselt | cutensor | tensorrt) ;; *) continue ;; esac
		jq --arg p "$product" --slurpfile m "$m" '.manifests[$p] = $m[0]' "$work/mo.json" >"$work/mo.next" && mv "$work/mo.next" "$work/mo.json"
	done
	cat >"$work/manifests-only.nix" <<'EOF'
# Only OUT's manifests and where their archives are, read as JSON.
data: final: prev: {
  _cuda = prev._cuda.extend (finalCuda: prevCuda:
    {
      lib = prevCuda.lib // {
        mkRedistUrl = redistName: relativePath: "${data.base_url}/${redistName}/redist/${relativePath}";
      };
    }
    # Where the generation keeps its manifests by product and version,
    # OUT's are added under their own versions.
    // (if prevCuda ? manifests then {
      manifests = builtins.mapAttrs (product: versions:
        versions // (if data.manifests ? ${product}
          then { ${data.manifests.${product}.release_label} = data.manifests.${product}; }
          else { })) prevCuda.manifests
        // builtins.mapAttrs (product: m: { ${m.release_label} = m; })
          (builtins.removeAttrs data.manifests (builtins.attrNames prevCuda.manifests));
    } else { }));
  # The set of OUT's CUDA release takes OUT's manifests (callPackage's
  # override, as nixpkgs documents for manifests).
  ${data.set} = prev.${data.set}.override { manifests = data.manifests; };
}
EOF
	ourOverlay="(import $work/manifests-only.nix (builtins.fromJSON (builtins.readFile $work/mo.json)))"
	from="file://$out/"
else
	route=overlay
	$debredist nix "$out" >"$work/printed.nix" 2>/dev/null
	ourOverlay="(import $work/printed.nix)"
	from="file://$out/"
fi
if [ "${DEBREDIST_ACCEPT_INSECURE:-}" = 1 ] && [ "$route" != manifests-only ]; then
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
# The nixpkgs config every cell uses (a Nix function of cap). The
# manifests-only consumer accepts the insecure TensorRT in its own config.
insecureConfig=
if [ "$route" = manifests-only ] && [ "${DEBREDIST_ACCEPT_INSECURE:-}" = 1 ]; then
	insecureConfig="allowInsecurePredicate = p: builtins.match \"cuda[0-9.]+-tensorrt-.*\" (p.name or \"\") != null;"
fi
config="cap: { allowUnfree = true; cudaSupport = true; cudaCapabilities = [ cap ]; $insecureConfig }"

# What a cell evaluates ($work/cell.nix, a function of its arguments): the
# package's derivation, where its source comes from and its outputs'
# store paths (null for a package an overlay sets to null). The package,
# capability and set are arguments (--argstr), never Nix syntax; the
# checkouts and the overlay files are paths this script made absolute.
cat >"$work/cell.nix" <<EOF
{ name, cap, set }: let
  pkgs = import $nixpkgs {
    system = "aarch64-linux";
    config = ($config) cap;
    overlays = $overlays;
  };
  p = builtins.getAttr name (builtins.getAttr set pkgs);
  fetched = if p.src ? src then p.src.src else p.src; # inside srcOnly, as buildRedist makes it
in
if p == null then { drv = "null"; src = ""; outputs = [ ]; }
else {
  drv = p.drvPath;
  src = if p.src == null then "none" else toString (fetched.url or fetched.urls or fetched);
  outputs = map (o: o + "=" + (builtins.getAttr o p).outPath) p.outputs;
}
EOF

# The cells: every package OUT provides (or PACKAGES), on every device.
mkdir "$work/cells"
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
i=0
for cap in $caps; do
	while read -r name; do
		i=$((i + 1))
		printf '%s %s %05d\n' "$name" "$cap" "$i" >>"$work/jobs"
	done <"$work/pnames"
done

# expected_reason NAME CAP prints why nixpkgs itself refuses the package on
# that device, by verify --nixpkgs, then a tab and what nixpkgs' error says
# for that reason (an extended regular expression: generations word it
# differently); nothing when it does not.
expected_reason() {
	jq -r --arg n "$1" --arg cap "$2" '
	  [.nixpkgs.components[] | select(.component == $n)] as $cs
	  | if ($cs | map(.nixpkgs_broken // empty) | length) > 0 then "nixpkgs marks it broken\tis marked as broken|- broken: This package is broken"
	    elif ($cs | map(.devices[] | select(startswith($cap + ": unavailable"))) | length) > 0 then "unavailable on " + $cap + ": platformAssertions\tis not available on the requested hostPlatform"
	    elif ($cs | map(.insecure[]) | length) > 0 and env.DEBREDIST_ACCEPT_INSECURE != "1" then "insecure: your choice, see verify --nixpkgs\tis marked as insecure"
	    else "" end' "$work/verify.json"
}

# nix_error FILE: the error an evaluation's standard error ends with (Nix
# 2.26 prints "error:" alone first, the trace, then the innermost error).
nix_error() {
	sed 's/\x1b\[[0-9;]*m//g' "$1" | grep -E '^ *error: *[^ ]' | tail -n 1 | sed 's/^ *//' | grep . || head -n 1 "$1"
}
