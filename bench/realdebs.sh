#!/bin/sh
# bench/realdebs.sh DIR: fills DIR/debs with real NVIDIA CUDA 11.8 arm64 debs
# from Debian's non-free archive (cached: nothing is downloaded when the debs
# are already there) and extracts them into DIR/tree, the input of
# `bench/corpus -real DIR/tree`. Set REALDEBS_CACHE to a directory that
# already holds such debs to copy them from there instead of downloading.
# Downloading needs root on Debian or Ubuntu: it adds an arm64 non-free
# bookworm source (deb.debian.org), `dpkg --add-architecture arm64`,
# `apt-get update` and `apt-get download <pkg>:arm64`.
set -eu
dir=${1:?usage: bench/realdebs.sh DIR}
mkdir -p "$dir/debs"
pkgs="libcublas11 libcublaslt11 libcudart11.0 libcufft10 libcupti11.8 libcurand10 libcusolver11 libcusparse11 libnvrtc11.2 nvidia-cuda-dev"
missing=""
for p in $pkgs; do
	if ! ls "$dir/debs/${p}_"*_arm64.deb >/dev/null 2>&1; then
		if [ -n "${REALDEBS_CACHE:-}" ] && ls "$REALDEBS_CACHE/${p}_"*_arm64.deb >/dev/null 2>&1; then
			ln "$REALDEBS_CACHE/${p}_"*_arm64.deb "$dir/debs/" 2>/dev/null ||
				cp "$REALDEBS_CACHE/${p}_"*_arm64.deb "$dir/debs/"
		else
			missing="$missing $p"
		fi
	fi
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		echo "realdebs.sh: need root on Debian/Ubuntu to download:$missing" >&2
		exit 1
	fi
	src=/etc/apt/sources.list.d/debredist-bench-nonfree-arm64.sources
	if [ ! -f "$src" ]; then
		cat >"$src" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: non-free
Architectures: arm64
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
		[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || sed -i '/^Signed-By/d' "$src"
	fi
	dpkg --add-architecture arm64
	apt-get update -qq
	for p in $missing; do
		(cd "$dir/debs" && apt-get download -qq "$p:arm64")
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
echo "realdebs.sh: $(ls "$dir/debs" | wc -l) debs, tree $(du -sb "$dir/tree" | cut -f1) bytes in $dir/tree"
