#!/usr/bin/env bash
# Streaming benchmark of internal/deb versus `dpkg-deb --fsys-tarfile`.
# Builds (once, cached in $TMPDIR/debredist-bench) debs with ~$DEBREDIST_BENCH_MB
# MiB (default 64) of host ELF libraries per compression, runs the Go
# benchmark, then times dpkg-deb on the same files (best of N runs).
set -euo pipefail
cd "$(dirname "$0")"
MB="${DEBREDIST_BENCH_MB:-64}"
RUNS="${RUNS:-3}"
export DEBREDIST_BENCH_MB="$MB"
go test -run XXX -bench DataStream -benchtime "${RUNS}x" .
dir="${TMPDIR:-/tmp}/debredist-bench"
for comp in xz zstd gzip none; do
  deb="$dir/$comp-${MB}MiB.deb"
  [ -f "$deb" ] || continue
  size=$(cat "$deb.tarsize")
  best=""
  for _ in $(seq "$RUNS"); do
    s=$(date +%s.%N)
    dpkg-deb --fsys-tarfile "$deb" >/dev/null
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
  done
  echo "dpkg-deb --fsys-tarfile $comp: ${best}s $(echo "scale=1; $size / 1000000 / $best" | bc) MB/s"
done
