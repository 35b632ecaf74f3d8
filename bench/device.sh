#!/bin/sh
# bench/device.sh: debredist's xz encoder (bench/compress at presets 1, 4, 6)
# against xz -1 ... -6 and -9 on real NVIDIA libraries of three CUDA
# generations, on 2 cores and on all cores, and `debredist convert` against
# the per-package xz pipeline (bench/e2e.sh) on all cores, on a machine
# without Go or network. Steps:
#
#   bench/device.sh prepare DIR   on a development machine (Go, the trees of
#       bench/realdebs.sh): static binaries (CGO_ENABLED=0, xz-compressed) of
#       bench/compress, bench/corpus, bench/measure, cmd/debredist and
#       internal/lzma's test binary into DIR/bin, and 48 MiB samples of the CUDA 11.8 and 12 trees (library
#       pieces: the three largest libraries, 16 MiB of each in 4 MiB pieces
#       spread over the file, bench/corpus -sample) as DIR/c11.tar.xz and DIR/c12.tar.xz:
#       about 50 MiB in all. REAL11 and REAL12 name the trees (default
#       $WORK/real11.8/tree and $WORK/real12/tree, WORK=/work/bench-data).
#       Use DIR=out/device in the repository (ignored by git) to carry it.
#   bench/device.sh run DIR       on the measuring machine: the CUDA 13 sample
#       from NVIDIA's CUDA 13 wheels of its python (site-packages/nvidia, or
#       REAL13=DIR), then the runs, then $OUT/results.md (OUT defaults to
#       DIR/out). Needs sh, tar (GNU), xz, taskset, python3 (to find the
#       wheels). Finishes within BUDGET seconds (default 520): a run that
#       would pass it is killed and marked "timeout", later ones "skipped".
#   bench/device.sh e2e DIR       on the measuring machine: bench/e2e.sh with
#       THREADS=$(nproc) on a JetPack-6-shaped corpus of E2ESCALE MiB
#       (default 1024) built there (bench/corpus -real) from three trees:
#       the CUDA 11.8 and 12 samples (each tree three libraries of 144 MiB,
#       the 48 MiB sample three times in turn: blocks and archives are
#       compressed independently, and a repeat lies 48 MiB back, beyond the
#       8 MiB dictionary, so it costs what the first copy does) and CUDA 13's
#       libraries; E2EPRESETS (default "4 1"), E2EXZ (default "6 1"), E2EIDJOBS
#       (default 4), E2ETHREADS (default all CPUs; fewer pins the run to the
#       first ones); the table, raw lines and sizes into $OUT. Needs python3
#       where dpkg-deb or jq is missing (see bench/e2e.sh).
#
# The runs:
#   phase 1, 2 cores: each generation's 48 MiB sample (two 24 MiB blocks),
#     the three generations at once, each pinned (taskset) to its own two
#     physical cores: xz -T2 -1..-6, -9 (tar --sort=name ... | xz) and
#     compress -workers 2 -preset 1, 4, 6 (GOMAXPROCS=2).
#   phase 2, all cores: each generation in turn on SCALE16 MiB (default
#     192: eight 24 MiB blocks, so at most 8 cores are busy for xz -6 and
#     for the encoder alike); the 11.8 and 12 samples are repeated 4 times
#     to reach it (blocks are compressed independently, so a repeat costs
#     what the first copy does), CUDA 13 is 192 MiB of its own libraries.
#     xz -T$N -1..-6 (not -9: its 192 MiB blocks make it one thread) and
#     compress -workers N -preset 1, 4, 6.
#   PRESETS (default "1 4 6") are the presets run; XZLEVELS (phase 1) and
#   XZLEVELS16 (phase 2) the xz levels (set empty to run none: a later run
#   that only measures presets against an earlier run's xz figures).
#   PROPOSED="o:4:32 ob:16:64 ..." adds internal/lzma encoder settings
#     (TestMeasureFile syntax, 24 MiB blocks, all cores, no tar) to phase 2.
# Every output is checked with xz -t. Wall and CPU (user+sys, children
# included) and peak RSS come from bench/measure.
set -eu
cmd=${1:?usage: bench/device.sh prepare|run|e2e DIR}
dir=${2:?usage: bench/device.sh prepare|run|e2e DIR}

case $cmd in
prepare)
	cd "$(dirname "$0")/.."
	work=${WORK:-/work/bench-data}
	real11=${REAL11:-$work/real11.8/tree}
	real12=${REAL12:-$work/real12/tree}
	rm -rf "$dir/bin"
	mkdir -p "$dir/bin"
	for p in bench/compress bench/corpus bench/measure cmd/debredist; do
		CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags='-s -w' -o "$dir/bin/${p##*/}" ./$p
	done
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go test -c -trimpath -ldflags='-s -w' -o "$dir/bin/lzma.test" ./internal/lzma
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	for g in 11 12; do
		eval tree=\$real$g
		"$dir/bin/corpus" -sample -real "$tree" -scale 48 -cap 16 -piece 4 "$tmp/c$g" >/dev/null
		tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$tmp" -cf - "c$g" | xz -T0 -9e >"$dir/c$g.tar.xz"
	done
	xz -T0 -9 "$dir"/bin/*
	git rev-parse HEAD >"$dir/commit" 2>/dev/null || true
	du -sh "$dir"
	exit 0
	;;
run | e2e) ;;
*)
	echo "device.sh: $cmd: want prepare, run or e2e" >&2
	exit 2
	;;
esac

start=$(date +%s)
budget=${BUDGET:-520}
dir=$(cd "$dir" && pwd)
out=${OUT:-$dir/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/debredist-device.XXXXXX")
trap 'rm -rf "$work"' EXIT
bin=$work/bin
mkdir -p "$bin"
for f in "$dir"/bin/*.xz; do
	b=${f##*/}
	xz -dc "$f" >"$bin/${b%.xz}"
	chmod +x "$bin/${b%.xz}"
done
scale16=${SCALE16:-192}
res=$out/results.txt
: >"$res"
log=$out/log.txt
: >"$log"

left() { echo $((budget - ($(date +%s) - start))); }

# The samples.
for g in 11 12; do
	xz -dc "$dir/c$g.tar.xz" | tar -xf - -C "$work"
done
nv=${REAL13:-$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null || true)}
if [ "$cmd" = e2e ]; then
	# Three libraries of 144 MiB per sample generation: the sample's three
	# files three times each, in turn (rotated, so no two libraries start
	# alike).
	trees=""
	for g in c11 c12; do
		mkdir -p "$work/t$g"
		set -- "$work/$g"/*
		for k in 1 2 3; do
			for i in 1 2 3; do cat "$@"; done >"$work/t$g/lib$g-$k.so.1"
			set -- "$@" "$1"
			shift
		done
		rm -rf "${work:?}/$g"
		trees="$trees $work/t$g"
	done
	[ -z "$nv" ] || [ ! -d "$nv" ] || trees="$trees $nv"
	cd "$(dirname "$0")/.."
	{
		echo "bench/device.sh e2e: $(date -u +%F), $(uname -m), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(xz --version | head -1), commit $(cat "$dir/commit" 2>/dev/null || echo '?')"
		echo "trees:$trees"
		echo "dpkg-deb: $(command -v dpkg-deb || echo 'none (python3 reads the debs)'); jq: $(command -v jq || echo 'none (python3)')"
	} | tee "$out/e2e.txt"
	# E2ETHREADS below the CPU count pins the whole run (corpus, both
	# sides) to the first E2ETHREADS CPUs.
	thr=${E2ETHREADS:-$(nproc)}
	pin=""
	[ "$thr" -ge "$(nproc)" ] || pin="taskset -c $(seq -s, 0 $((thr - 1)))"
	echo "threads: $thr${pin:+ ($pin)}" | tee -a "$out/e2e.txt"
	{
		rc=0
		BIN=$bin REALTREES="$trees" CORPUS=real THREADS=$thr PRESETS="${E2EPRESETS:-4 1}" XZLEVELS="${E2EXZ:-6 1}" \
			IDJOBS="${E2EIDJOBS-4}" WORK=$work/e2e RESULTS=$out $pin sh bench/e2e.sh "${E2ESCALE:-1024}" 2>&1 || rc=$?
		echo "$rc" >"$work/e2e.rc"
	} | tee -a "$out/e2e.txt"
	rc=$(cat "$work/e2e.rc")
	[ "$rc" = 0 ] || echo "device.sh: bench/e2e.sh failed (exit $rc)" | tee -a "$out/e2e.txt" >&2
	echo "Total $(($(date +%s) - start)) s." | tee -a "$out/e2e.txt"
	exit "$rc"
fi

gens="c11 c12"
if [ -n "$nv" ] && [ -d "$nv" ]; then
	"$bin/corpus" -sample -real "$nv" -scale 48 -cap 16 -piece 4 "$work/c13" >>"$log"
	"$bin/corpus" -sample -real "$nv" -scale "$scale16" -cap $((scale16 / 4)) -piece 8 "$work/c13-16" >>"$log"
	gens="c11 c12 c13"
else
	echo "device.sh: no CUDA 13 wheels (python3 -c 'import nvidia' failed; set REAL13)" | tee -a "$log" >&2
fi
for g in c11 c12; do
	mkdir -p "$work/$g-16"
	n=$(((scale16 + 47) / 48))
	for i in $(seq 1 $n); do
		for f in "$work/$g"/*; do cp "$f" "$work/$g-16/r$i-${f##*/}"; done
	done
done

# Two CPUs on distinct physical cores for each of the three 2-core runs.
cpus=$(for c in /sys/devices/system/cpu/cpu[0-9]*; do
	n=${c##*cpu}
	k=$(cat "$c/topology/physical_package_id" 2>/dev/null || echo 0):$(cat "$c/topology/core_id" 2>/dev/null || echo "$n")
	echo "$n $k"
done | sort -n | awk '!seen[$2]++ { print $1 }' | tr '\n' ' ')
ncores=$(echo $cpus | wc -w)
pair() { # pair I: the CPUs of the I-th (0-based) 2-core slot
	echo $cpus | cut -d' ' -f$(($1 * 2 + 1)),$(($1 * 2 + 2)) | tr ' ' ','
}
nall=$(nproc)

# run NAME GEN THREADS CPUS OUTFILE CMD...: measures CMD (pinned to CPUS
# unless empty) and appends "NAME GEN THREADS wall cpu rss status size".
run() {
	name=$1 gen=$2 thr=$3 cpuset=$4 outf=$5
	shift 5
	l=$(left)
	if [ "$l" -le 5 ]; then
		echo "$name $gen $thr 0 0 0 skipped 0" >>"$res"
		return 0
	fi
	pin=""
	[ -z "$cpuset" ] || pin="taskset -c $cpuset"
	m=$work/m.$gen.$thr.$$
	: >"$m"
	$pin "$bin/measure" -o "$m" -timeout "$l" -- "$@" >>"$log" 2>&1 || true
	st=$(awk '{ print $4 }' "$m")
	size=0
	if [ "$st" = 0 ] && [ -f "$outf" ]; then
		size=$(wc -c <"$outf")
		xz -t "$outf" || st=corrupt
	fi
	echo "$name $gen $thr $(awk '{ print $1, $2, $3 }' "$m") $st $size" >>"$res"
	rm -f "$outf"
}

# series GEN SRC THREADS CPUS LEVELS: the xz levels and the presets on SRC.
series() {
	gen=$1 src=$2 thr=$3 cpuset=$4 levels=$5
	o=$work/out.$gen.$thr
	for p in ${PRESETS:-1 4 6}; do
		run "preset$p" "$gen" "$thr" "$cpuset" "$o.txz" env GOMAXPROCS="$thr" "$bin/compress" -workers "$thr" -preset "$p" -o "$o.txz" "$src"
	done
	for l in $levels; do
		run "xz-$l" "$gen" "$thr" "$cpuset" "$o.txz" sh -c "tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C '$(dirname "$src")' -cf - '$(basename "$src")' | xz -T$thr -$l >'$o.txz'"
	done
}

echo "phase 1 (2 cores): $gens, $(left) s left" >>"$log"
i=0
for g in $gens; do
	if [ "$ncores" -ge $((2 * i + 2)) ]; then
		series "$g" "$work/$g" 2 "$(pair $i)" "${XZLEVELS-1 2 3 4 5 6 9}" &
	else
		series "$g" "$work/$g" 2 "0,1" "${XZLEVELS-1 2 3 4 5 6 9}"
	fi
	i=$((i + 1))
done
wait

echo "phase 2 ($nall cores): $(left) s left" >>"$log"
for g in $gens; do
	series "$g-all" "$work/$g-16" "$nall" "" "${XZLEVELS16-1 2 3 4 5 6}"
done
for spec in ${PROPOSED:-}; do
	for g in $gens; do
		l=$(left)
		[ "$l" -gt 5 ] || break
		m=$work/p.$g
		LZMA_MEASURE_FILE=$work/$g-16 LZMA_MEASURE_BLOCK_MB=24 LZMA_MEASURE_WORKERS=$nall LZMA_MEASURE_PARAMS=$spec \
			timeout "$l" "$bin/lzma.test" -test.run MeasureFile -test.v >"$m" 2>&1 || true
		awk -v s="$spec" -v g="$g-all" -v t="$nall" '$1 == s && $6 == "ratio" { print "lzma:" s, g, t, $9 + 0, $11 + 0, 0, 0, $5 }' "$m" >>"$res"
	done
done

# The report.
{
	echo "# debredist encoder against xz on real NVIDIA libraries"
	echo
	echo "$(date -u +%F), $(uname -m), $nall CPUs ($ncores physical cores), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(xz --version | head -1), commit $(cat "$dir/commit" 2>/dev/null || echo '?')."
	echo "CUDA 13 libraries: ${nv:-none}."
	echo
	echo "Phase 1: 2 cores (taskset, distinct physical cores; the generations ran at once on separate cores), 48 MiB per generation (library pieces, bench/corpus -sample -scale 48 -cap 16 -piece 4: three libraries, 16 MiB of each in 4 MiB pieces spread over the file)."
	echo "Phase 2: $nall cores, $scale16 MiB per generation (11.8 and 12: the 48 MiB sample 4 times; 13: its own libraries), one run at a time."
	echo "Sizes add up the .tar.xz; CPU is user+sys with children; size/xz-6 and wall/xz-6 against xz -6 of the same generation and core count."
} >"$out/results.md"
awk '
	{ k = $2 " " $3; n[k]++; r[k, n[k]] = $0; if ($1 == "xz-6") { w6[k] = $4; s6[k] = $8 } }
	END {
		for (k in n) keys[++m] = k
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (keys[j] < keys[i]) { t = keys[i]; keys[i] = keys[j]; keys[j] = t }
		for (i = 1; i <= m; i++) {
			k = keys[i]; split(k, kk, " ")
			printf "\n## %s, %s threads\n\n| run | wall s | CPU s | peak RSS MiB | output bytes | size / xz-6 | wall / xz-6 | status |\n|---|---|---|---|---|---|---|---|\n", kk[1], kk[2]
			for (j = 1; j <= n[k]; j++) {
				split(r[k, j], f, " ")
				sr = (s6[k] > 0 && f[8] > 0) ? sprintf("%.4f", f[8] / s6[k]) : "-"
				wr = (w6[k] > 0 && f[4] > 0) ? sprintf("%.3f", f[4] / w6[k]) : "-"
				printf "| %s | %.2f | %.2f | %d | %d | %s | %s | %s |\n", f[1], f[4], f[5], f[6], f[8], sr, wr, f[7]
			}
			# Pareto front of xz: no other xz level both smaller and faster.
			printf "\nxz Pareto front (wall, size):"
			for (j = 1; j <= n[k]; j++) {
				split(r[k, j], a, " "); if (a[1] !~ /^xz-/ || a[8] == 0) continue
				dom = 0
				for (q = 1; q <= n[k]; q++) {
					split(r[k, q], b, " "); if (b[1] !~ /^xz-/ || b[8] == 0 || q == j) continue
					if (b[4] <= a[4] && b[8] <= a[8] && (b[4] < a[4] || b[8] < a[8])) dom = 1
				}
				if (!dom) printf " %s (%.2f s, %d)", a[1], a[4], a[8]
			}
			printf "\n"
		}
	}' "$res" >>"$out/results.md"
echo >>"$out/results.md"
echo "Total $(($(date +%s) - start)) s. Raw lines (name gen threads wall cpu rss status size) in results.txt, commands' output in log.txt." >>"$out/results.md"
cat "$out/results.md"
