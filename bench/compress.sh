#!/bin/sh
# bench/compress.sh: debredist's pure-Go parallel xz (archive.Write) against
# GNU tar | xz -T2 -6 on the same directory of real binaries.
#
#   bench/compress.sh [DIR]     (default: a 256 MiB corpus of .so files and Go
#                                tool binaries built under ${TMPDIR:-/tmp})
#
# Prints wall time, CPU time (user+sys), peak RSS, output size, compression
# ratio, and each result relative to xz -T2 -6. Needs GNU tar, xz and
# /usr/bin/time (Debian package "time").
set -eu
cd "$(dirname "$0")/.."
tmp=${TMPDIR:-/tmp}
work=$(mktemp -d "$tmp/debredist-compress.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

for tool in tar xz /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "compress.sh: $tool not found" >&2; exit 1; }
done

go build -o "$work/compress" ./bench/compress
dir=${1:-$tmp/debredist-bench-corpus-256M}
if [ $# -eq 0 ]; then
	"$work/compress" -make-corpus "$dir" -size $((256 << 20))
fi
dir=$(cd "$dir" && pwd)
parent=$(dirname "$dir")
top=$(basename "$dir")
insize=$(tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -C "$parent" "$top" | wc -c)

# measure NAME OUTFILE CMD...: runs CMD under /usr/bin/time -v.
measure() {
	name=$1 out=$2
	shift 2
	/usr/bin/time -v -o "$work/time.txt" "$@" >/dev/null
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$work/time.txt")
	cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$work/time.txt")
	rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$work/time.txt")
	size=$(wc -c <"$out")
	echo "$name $wall $cpu $rss $size" >>"$work/results"
}

measure "xz-T2-6" "$work/ref.tar.xz" sh -c "tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -C '$parent' '$top' | xz -T2 -6 >'$work/ref.tar.xz'"
for w in 1 2; do
	measure "debredist-w$w" "$work/w$w.tar.xz" "$work/compress" -workers $w -o "$work/w$w.tar.xz" "$dir"
done
measure "debredist-zstd-w2" "$work/z2.tar.zst" "$work/compress" -zstd -workers 2 -o "$work/z2.tar.zst" "$dir"
cmp -s "$work/w1.tar.xz" "$work/w2.tar.xz" || { echo "compress.sh: workers=1 and workers=2 outputs differ" >&2; exit 1; }
xz -t "$work/w2.tar.xz"

echo "input: $dir ($insize bytes as tar), $(nproc) CPUs"
awk -v insz="$insize" '
	NR == 1 { rw = $2; rs = $5 }
	{ r[NR] = $0 }
	END {
		printf "%-18s %8s %8s %8s %12s %7s %8s %8s\n", "encoder", "wall_s", "cpu_s", "rss_MiB", "size", "ratio", "size/xz", "wall/xz"
		for (i = 1; i <= NR; i++) {
			split(r[i], f, " ")
			printf "%-18s %8.2f %8.2f %8d %12d %7.4f %8.3f %8.3f\n", f[1], f[2], f[3], f[4], f[5], f[5] / insz, f[5] / rs, f[2] / rw
		}
	}' "$work/results"
