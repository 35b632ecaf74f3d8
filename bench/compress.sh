#!/bin/sh
# bench/compress.sh: debredist's pure-Go parallel xz (archive.Write, via
# bench/compress) against GNU tar | xz -T$THREADS -N on the same directories
# of real binaries, side by side, one run after the other.
#
#   bench/compress.sh [DIR...]   (default: a 256 MiB corpus of .so files and
#                                 Go tool binaries under ${TMPDIR:-/tmp})
#
# Environment: THREADS (default 2: xz -T2, -workers 2, GOMAXPROCS=2),
# XZLEVELS (default "1 2 3 4 5 6 9"), PRESETS (default "1 4 6").
# For real NVIDIA libraries of one CUDA generation per directory:
#   bench/realdebs.sh $W/real11.8 11.8; bench/realdebs.sh $W/real12 12
#   corpus -sample -real $W/real11.8/tree -scale 96 -cap 24 -piece 4 $W/c11
# Prints, per directory: wall time, CPU time (user+sys with children), peak
# RSS, output size, ratio, size and wall relative to xz -6, and the xz
# levels on the Pareto front (no other level both smaller and faster).
# Every output passes xz -t. Needs GNU tar and xz.
set -eu
cd "$(dirname "$0")/.."
tmp=${TMPDIR:-/tmp}
work=$(mktemp -d "$tmp/debredist-compress.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
threads=${THREADS:-2}
levels=${XZLEVELS:-1 2 3 4 5 6 9}
presets=${PRESETS:-1 4 6}

for tool in tar xz; do
	command -v "$tool" >/dev/null || { echo "compress.sh: $tool not found" >&2; exit 1; }
done
go build -o "$work/compress" ./bench/compress
go build -o "$work/measure" ./bench/measure
if [ $# -eq 0 ]; then
	d=$tmp/debredist-bench-corpus-256M
	"$work/compress" -make-corpus "$d" -size $((256 << 20))
	set -- "$d"
fi
echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(xz --version | head -1), $(date -u +%F)"
for dir; do
	dir=$(cd "$dir" && pwd)
	parent=$(dirname "$dir")
	top=$(basename "$dir")
	insize=$(tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -C "$parent" "$top" | wc -c)
	res=$work/results
	: >"$res"
	m() { # NAME CMD...
		name=$1
		shift
		: >"$work/m"
		"$work/measure" -o "$work/m" -- "$@" >/dev/null
		xz -t "$work/out.txz"
		echo "$name $(cat "$work/m") $(wc -c <"$work/out.txz")" >>"$res"
	}
	for p in $presets; do
		m "debredist-p$p" env GOMAXPROCS="$threads" "$work/compress" -workers "$threads" -preset "$p" -o "$work/out.txz" "$dir"
	done
	for l in $levels; do
		m "xz-T$threads-$l" sh -c "tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -C '$parent' '$top' | xz -T$threads -$l >'$work/out.txz'"
	done
	echo
	echo "input: $dir ($insize bytes as tar)"
	awk -v insz="$insize" -v ref="xz-T$threads-6" '
		{ n[NR] = $1; w[NR] = $2; c[NR] = $3; r[NR] = $4; s[NR] = $6; if ($1 == ref) { rw = $2; rs = $6 } }
		END {
			printf "| run | wall s | CPU s | peak RSS MiB | output bytes | ratio | size / xz-6 | wall / xz-6 |\n|---|---|---|---|---|---|---|---|\n"
			for (i = 1; i <= NR; i++)
				printf "| %s | %.2f | %.2f | %d | %d | %.4f | %s | %s |\n", n[i], w[i], c[i], r[i], s[i], s[i] / insz,
					rs ? sprintf("%.4f", s[i] / rs) : "-", rw ? sprintf("%.3f", w[i] / rw) : "-"
			printf "\nxz Pareto front (wall, size):"
			for (i = 1; i <= NR; i++) {
				if (n[i] !~ /^xz-/) continue
				dom = 0
				for (j = 1; j <= NR; j++)
					if (j != i && n[j] ~ /^xz-/ && w[j] <= w[i] && s[j] <= s[i] && (w[j] < w[i] || s[j] < s[i])) dom = 1
				if (!dom) printf " %s", n[i]
			}
			printf "\n"
		}' "$res"
done
