#!/bin/sh
# scripts/nix-sample.sh [OUT]
#
# Builds the JetPack 6 archives of the bundled sample mirror through Nix,
# from a fresh clone, with no nixpkgs and no network: builds debredist
# (static, into a temporary directory), converts the sample mirror into OUT
# (default: a temporary directory) to get the manifests and provenance,
# prints `debredist nix --derivations OUT` to OUT.nix, and runs
#
#   nix-build OUT.nix -A archives --arg debredist <that build>
#
# Nix's builtin fetchurl fetches every deb (file:// URLs into the sample
# mirror), each archive is a fixed-output derivation whose hash is its
# manifest's sha256, and debredist build-archive is the builder. Prints the
# store paths and the time of convert and of the Nix build (FRESH=1 first
# deletes the archives and debs an earlier run left in the store, so that
# everything is fetched and built again). Needs go and
# Nix (nix-build; Debian's nix-bin is enough). As root without Nix's build
# users, run it with NIX_CONFIG='build-users-group =' (as the tests do).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${1:-$work/out}
export NIX_CONFIG="${NIX_CONFIG:-}
substituters =
sandbox = false"

mkdir -p "$work/pkg/bin"
(cd "$root" && CGO_ENABLED=0 go build -trimpath -o "$work/pkg/bin/debredist" ./cmd/debredist)
bin=$work/pkg/bin/debredist

start=$(date +%s.%N)
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-} "$bin" --quiet convert --jetpack 6 --mirror "$root/testdata/sample-mirror" \
	--cache "$work/cache" --out "$out" >/dev/null
converted=$(date +%s.%N)
"$bin" nix --derivations "$out" >"$out.nix"
drvs=$(nix-instantiate "$out.nix" -A archives --arg debredist "builtins.path { path = $work/pkg; name = \"debredist\"; }")
n=$(echo "$drvs" | wc -l)
if [ "${FRESH:-}" = 1 ]; then
	for d in $drvs; do
		nix-store --delete $(nix-store -q --outputs "$d") >/dev/null 2>&1 || true
		for deb in $(nix-store -q --references "$d" | grep '\.deb\.drv$' || true); do
			nix-store --delete $(nix-store -q --outputs "$deb") >/dev/null 2>&1 || true
		done
	done
fi
built0=$(date +%s.%N)
nix-build "$out.nix" -A archives --no-out-link --arg debredist "builtins.path { path = $work/pkg; name = \"debredist\"; }"
built=$(date +%s.%N)
awk -v a="$start" -v b="$converted" -v c="$built0" -v d="$built" -v n="$n" \
	'BEGIN { printf "convert: %.1f s; nix-build of %d archive derivations: %.1f s\n", b - a, n, d - c }' >&2
[ $# -eq 0 ] || echo "the Nix file: $out.nix" >&2
