#!/bin/sh
# bench/realdebs.sh DIR [GEN]: fills DIR/debs with real NVIDIA CUDA arm64 debs
# from Debian's non-free archive (cached: nothing is downloaded when the debs
# are already there) and extracts them into DIR/tree, an input of
# `bench/corpus -real DIR/tree`.
#
#   GEN 11.8 (default): CUDA 11.8, Debian 12 bookworm (libcublas11,
#           libcublaslt11, ..., nvidia-cuda-dev with the static libraries)
#   GEN 12:   CUDA 12.4.1, Debian 13 trixie (libcublas12, libcublaslt12,
#           libcusparse12, libcufft11, libcusolver11, libcurand10,
#           libnvrtc12, libnvjitlink12, libcupti12, libcudart12; the
#           headers of libcupti-dev): shared libraries only
#   GEN 12.5: the same packages at CUDA 12.5.0 from Debian experimental
#
# Keep DIR outside the repository: never commit debs or library bytes.
#
# apt runs with a private configuration under DIR/apt (its own sources,
# lists and cache; the system's sources are not read or changed; no root
# needed): `apt-get update` of one non-free arm64 suite and `apt-get
# download`. REALDEBS_CACHE=DIR2 takes debs already downloaded from DIR2
# instead. Needs apt-get and dpkg-deb (Debian or Ubuntu).
set -eu
dir=${1:?usage: bench/realdebs.sh DIR [11.8|12|12.5]}
gen=${2:-11.8}
case $gen in
11.8)
	suite=bookworm
	tag=~11.8.
	pkgs="libcublas11 libcublaslt11 libcudart11.0 libcufft10 libcupti11.8 libcurand10 libcusolver11 libcusparse11 libnvrtc11.2 nvidia-cuda-dev"
	;;
12 | 12.4)
	suite=trixie
	tag=~12.4.
	pkgs="libcublas12 libcublaslt12 libcudart12 libcufft11 libcupti12 libcupti-dev libcurand10 libcusolver11 libcusparse12 libnvjitlink12 libnvrtc12"
	;;
12.5)
	suite=experimental
	tag=~12.5.
	pkgs="libcublas12 libcublaslt12 libcudart12 libcufft11 libcupti12 libcupti-dev libcurand10 libcusolver11 libcusparse12 libnvjitlink12 libnvrtc12"
	;;
*)
	echo "realdebs.sh: GEN $gen: want 11.8, 12 (12.4) or 12.5" >&2
	exit 2
	;;
esac
mkdir -p "$dir/debs"
dir=$(cd "$dir" && pwd)
missing=""
for p in $pkgs; do
	if ! ls "$dir/debs/${p}_"*_a*.deb >/dev/null 2>&1; then
		# (libcurand10 and libcusolver11 are in two generations: the
		# version's CUDA tag picks one)
		if [ -n "${REALDEBS_CACHE:-}" ] && ls "$REALDEBS_CACHE/${p}_"*"$tag"*_a*.deb >/dev/null 2>&1; then
			ln "$REALDEBS_CACHE/${p}_"*"$tag"*_a*.deb "$dir/debs/" 2>/dev/null ||
				cp "$REALDEBS_CACHE/${p}_"*"$tag"*_a*.deb "$dir/debs/"
		else
			missing="$missing $p"
		fi
	fi
done
if [ -n "$missing" ]; then
	command -v apt-get >/dev/null || {
		echo "realdebs.sh: need apt-get to download:$missing" >&2
		exit 1
	}
	apt=$dir/apt
	mkdir -p "$apt/sources" "$apt/lists/partial" "$apt/cache/archives/partial"
	# The mirror the system uses (deb.debian.org unless configured otherwise).
	uri=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/\{0,1\} *$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
	[ -n "$uri" ] || uri=http://deb.debian.org/debian
	{
		echo "Types: deb"
		echo "URIs: $uri"
		echo "Suites: $suite"
		echo "Components: non-free"
		echo "Architectures: arm64"
		[ ! -f /usr/share/keyrings/debian-archive-keyring.gpg ] ||
			echo "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
	} >"$apt/sources/debredist-bench.sources"
	set -- -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt/sources" \
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o Dir::State::status=/dev/null \
		-o APT::Architectures::=arm64 -o APT::Architecture=arm64 -o Debug::NoLocking=1 \
		-o APT::Sandbox::User="$(id -un)"
	apt-get "$@" -qq update
	for p in $missing; do
		(cd "$dir/debs" && apt-get "$@" -qq download "$p")
	done
fi
if [ ! -f "$dir/tree/.done" ]; then
	rm -rf "$dir/tree"
	mkdir -p "$dir/tree"
	for d in "$dir/debs/"*.deb; do
		dpkg-deb -x "$d" "$dir/tree"
	done
	touch "$dir/tree/.done"
fi
echo "realdebs.sh: CUDA $gen: $(ls "$dir/debs" | wc -l) debs, tree $(du -sb "$dir/tree" | cut -f1) bytes in $dir/tree"
