#!/usr/bin/env bash
# Compares debredist's synthesized stub libraries with NVIDIA's real ones:
# extracts Debian's non-free arm64 CUDA debs (the real libraries, e.g.
# libcusparse11, libcublas11, libcublaslt11, libcufft10, libcurand10,
# libcusolver11, libnvrtc11.2, and nvidia-cuda-dev, whose
# usr/lib/aarch64-linux-gnu/stubs/ holds NVIDIA's own stubs) into a
# temporary directory and runs internal/elfstub's TestRealNVIDIAStubs on it,
# which prints per library the symbol@version counts of our stub and
# NVIDIA's, and fails if ours exports anything NVIDIA's does not or if
# libcusparse differs at all; with aarch64-linux-gnu-gcc on PATH it also
# links a program against our libcusparse stub and checks its NEEDED entry.
#
# Usage: scripts/realstubs.sh DEBDIR   (DEBDIR holds the *.deb files)
#
# Getting the debs on Debian 12 (about 1.1 GB): add a non-free source for
# arm64 (Types: deb, Suites: bookworm, Components: non-free,
# Architectures: arm64), then
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get download libcusparse11:arm64 libcublas11:arm64 libcublaslt11:arm64 \
#     libcufft10:arm64 libcurand10:arm64 libcusolver11:arm64 libnvrtc11.2:arm64 \
#     nvidia-cuda-dev:arm64
set -euo pipefail
cd "$(dirname "$0")/.."
debdir="${1:?usage: scripts/realstubs.sh DEBDIR}"
shopt -s nullglob
debs=("$debdir"/*.deb)
if [ "${#debs[@]}" = 0 ]; then
  echo "realstubs.sh: no .deb files in $debdir" >&2
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for d in "${debs[@]}"; do
  dpkg-deb -x "$d" "$tmp/root"
done
libs="$tmp/root/usr/lib/aarch64-linux-gnu"
if [ ! -d "$libs/stubs" ]; then
  echo "realstubs.sh: no usr/lib/aarch64-linux-gnu/stubs in these debs (nvidia-cuda-dev missing?)" >&2
  exit 1
fi
DEBREDIST_REAL_CUDA_LIBS="$libs" go test ./internal/elfstub -run '^TestRealNVIDIAStubs$' -count=1 -v
