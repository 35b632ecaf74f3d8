#!/bin/sh
# bench/e2e.sh: end-to-end `debredist convert` against the C pipeline a user
# would write (dpkg-deb -x, mv, tar --sort=name | xz -T$THREADS -N,
# sha256sum, md5sum), on the same JetPack-6-shaped mirror (bench/corpus),
# side by side in one run: the reference at each xz level of XZLEVELS and
# debredist at each preset of PRESETS.
#
#   bench/e2e.sh [SCALE_MiB]      (default 1024 real, 1280 synthetic)
#
# Environment:
#   WORK     (default ${TMPDIR:-/tmp}/debredist-e2e) holds the corpus (kept
#            between runs, one per kind and scale), the cache and the outputs.
#   CORPUS   real (default): real NVIDIA arm64 libraries and headers of
#            the CUDA generations in REALGENS (default "11.8 12": Debian
#            bookworm and trixie non-free; bench/realdebs.sh downloads them
#            once into $WORK/real<GEN>; REALDEBS_CACHE=DIR reuses debs
#            already downloaded), plus REAL13=DIR (a site-packages/nvidia
#            directory of NVIDIA's CUDA 13 wheels) when set, interleaved in
#            JetPack 6 debs; synthetic: bench/corpus's generated
#            machine-code-like bytes (for scaling runs).
#   REALTREES "DIR ..." (instead of REALGENS and REAL13): trees of real
#            NVIDIA files already on this machine, one per generation, in
#            order (no download; bench/device.sh e2e uses it).
#   PRESETS  debredist xz presets to run (default "1 4 6"); the default
#            preset also runs at each --jobs of IDJOBS (default "1 4"),
#            which must write identical bytes.
#   XZLEVELS reference xz levels (default "6 3 1").
#   THREADS  cores for both sides (default 2): the reference's xz -T and
#            debredist's --jobs for its main runs.
#   BIN      a directory holding prebuilt debredist, corpus and measure
#            binaries (bench/device.sh prepare makes them): no Go needed.
#   RESULTS  also copy the table and the raw lines into this directory.
#   UTIL     set: sample /proc/stat every UTIL seconds during each run and
#            append its busy cores over time to $WORK/util.txt (and RESULTS):
#            where the cores idle (start, tail, throughout).
#
# Tools: tar (GNU), xz, sha256sum, md5sum, and dpkg-deb and jq where
# present (else python3 reads the debs' ar archives and the plan's JSON);
# times come from bench/measure (wall, CPU with children, peak RSS of the
# largest process).
#
# debredist reads debs from its verified cache: the cache is pre-filled by an
# untimed `debredist fetch` (its time is printed separately), while the
# reference reads the mirror's debs in place. Prints wall time, CPU time
# (user+sys), CPU/wall, peak RSS and total output size of both, the ratios
# debredist/reference, the time of a no-op rerun, and checks that the
# default preset writes identical bytes at every --jobs.
set -eu
cd "$(dirname "$0")/.."
corpus=${CORPUS:-real}
case $corpus in
real) scale=${1:-1024} ;;
synthetic) scale=${1:-1280} ;;
*)
	echo "e2e.sh: CORPUS=$corpus: want real or synthetic" >&2
	exit 2
	;;
esac
presets=${PRESETS:-1 4 6}
xzlevels=${XZLEVELS:-6 3 1}
default_preset=4
work=${WORK:-${TMPDIR:-/tmp}/debredist-e2e}
mkdir -p "$work"
work=$(cd "$work" && pwd)
: >"$work/util.txt"
[ -z "${RESULTS:-}" ] || mkdir -p "$RESULTS"
sampler=""
trap '[ -z "$sampler" ] || kill "$sampler" 2>/dev/null' EXIT

threads=${THREADS:-2}
idjobs=${IDJOBS-1 4}
need=""
for t in tar:tar xz:xz-utils sha256sum:coreutils; do
	command -v "${t%%:*}" >/dev/null 2>&1 || need="$need ${t#*:}"
done
for t in dpkg-deb:dpkg jq:jq; do
	command -v "${t%%:*}" >/dev/null 2>&1 || command -v python3 >/dev/null 2>&1 || need="$need ${t#*:}"
done
if [ -n "$need" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
	else
		echo "e2e.sh: missing:$need (install them, or run as root on Debian/Ubuntu)" >&2
		exit 1
	fi
fi

if [ -n "${BIN:-}" ]; then
	bin=$(cd "$BIN" && pwd)
else
	bin=$work/bin
	mkdir -p "$bin"
	for p in cmd/debredist bench/corpus bench/measure; do
		go build -o "$bin/${p##*/}" ./$p
	done
fi
gens=${REALGENS:-11.8 12}
mirror=$work/mirror-$corpus-$scale
if [ "$corpus" = real ] && [ -n "${REALTREES:-}" ]; then
	mirror=$mirror-trees-$(echo "$REALTREES" | cksum | cut -d' ' -f1)
elif [ "$corpus" = real ]; then
	mirror=$mirror-$(echo $gens ${REAL13:+13} | tr ' ' '+')
fi
if [ ! -f "$mirror/.done" ]; then
	rm -rf "$mirror"
	echo "generating the $corpus corpus (scale $scale MiB) ..."
	set --
	if [ "$corpus" = real ] && [ -n "${REALTREES:-}" ]; then
		for t in $REALTREES; do set -- "$@" -real "$t"; done
	elif [ "$corpus" = real ]; then
		for g in $gens; do
			sh bench/realdebs.sh "$work/real$g" "$g"
			set -- "$@" -real "$work/real$g/tree"
		done
		[ -z "${REAL13:-}" ] || set -- "$@" -real "$REAL13"
	fi
	"$bin/measure" -o "$work/corpus-time.txt" -- "$bin/corpus" -scale "$scale" "$@" "$mirror"
	echo "corpus written in $(cut -d' ' -f1 "$work/corpus-time.txt" | tail -1) s wall, $(cut -d' ' -f2 "$work/corpus-time.txt" | tail -1) s CPU"
	touch "$mirror/.done"
fi
res=$work/results-$corpus-$scale
: >"$res"

# measure NAME CMD...: runs CMD under bench/measure and appends
# "NAME wall cpu rss_MiB" to $res.
measure() {
	name=$1
	shift
	: >"$work/time.txt"
	if [ -n "${UTIL:-}" ]; then
		(while :; do head -1 /proc/stat; sleep "$UTIL"; done) >"$work/stat.txt" &
		sampler=$!
	fi
	st=0
	"$bin/measure" -o "$work/time.txt" -- "$@" >"$work/$name.log" 2>&1 || st=$?
	if [ -n "${UTIL:-}" ]; then
		kill "$sampler"
		wait "$sampler" 2>/dev/null || true
		sampler=""
	fi
	if [ "$st" != 0 ]; then
		echo "e2e.sh: $name failed:" >&2
		tail -20 "$work/$name.log" >&2
		exit 1
	fi
	echo "$name $(cut -d' ' -f1-3 "$work/time.txt")" >>"$res"
	[ -z "${RESULTS:-}" ] || cp "$res" "$RESULTS/raw.txt"
	if [ -n "${UTIL:-}" ]; then
		# Busy cores in each interval: the non-idle share of the machine's
		# jiffies (user .. steal; guest is inside user) times its CPUs, all
		# of them (the first line of /proc/stat sums every CPU, pinned or
		# not).
		awk -v n="$name" -v cpus="$(getconf _NPROCESSORS_ONLN)" -v dt="$UTIL" '
			{ t = 0; for (i = 2; i <= 9 && i <= NF; i++) t += $i; idle = $5 + $6
			  if (NR > 1 && t > pt) line = line sprintf(" %.1f", cpus * (1 - (idle - pidle) / (t - pt)))
			  pt = t; pidle = idle }
			END { printf "%s (busy cores every %s s):%s\n", n, dt, line }' "$work/stat.txt" >>"$work/util.txt"
		[ -z "${RESULTS:-}" ] || cp "$work/util.txt" "$RESULTS/util.txt"
	fi
}

# sized NAME DIR: appends "size NAME bytes" (every .tar.xz under DIR) to
# $sizes, right after the run (a run cut short keeps what it measured).
sizes=$work/sizes-$scale
: >"$sizes"
sized() {
	echo "size $1 $(find "$2" -name '*.tar.xz' -type f -exec cat {} + | wc -c)" >>"$sizes"
	[ -z "${RESULTS:-}" ] || cp "$sizes" "$RESULTS/sizes.txt"
}

# (a) debredist, each preset at --jobs $THREADS; the default preset also at
# each --jobs of IDJOBS, which must write the same bytes.
cache=$work/cache
rm -rf "$cache" "$work"/out-*
measure fetch "$bin/debredist" --quiet fetch --jetpack 6 --mirror "$mirror" --cache "$cache"
conv() { # NAME PRESET JOBS
	measure "$1" "$bin/debredist" --quiet convert --jetpack 6 --mirror "$mirror" --cache "$cache" --offline \
		--preset "$2" --jobs "$3" --out "$work/out-$1"
	sized "$1" "$work/out-$1"
}
identical=yes
for p in $presets; do
	conv "debredist-p$p" "$p" "$threads"
	if [ "$p" = "$default_preset" ]; then
		measure noop "$bin/debredist" --quiet convert --jetpack 6 --mirror "$mirror" --cache "$cache" --offline \
			--preset "$p" --jobs "$threads" --out "$work/out-debredist-p$p"
		for j in $idjobs; do
			conv "debredist-p$p-j$j" "$p" "$j"
			diff -r -x .debredist.lock -x '*.provenance.json' "$work/out-debredist-p$p" "$work/out-debredist-p$p-j$j" >/dev/null || identical=NO
		done
	fi
done

# (b) the reference pipeline, one package after the other.
"$bin/debredist" --quiet plan --jetpack 6 --mirror "$mirror" --json >"$work/plan.json" 2>"$work/plan.log" || {
	echo "e2e.sh: debredist plan failed:" >&2
	cat "$work/plan.log" >&2
	exit 1
}
if command -v jq >/dev/null 2>&1; then
	jq -r '.packages[] | [.product, .pname, (.pname + "-" + .platform + "-" + .version + (if .cuda_variant then "_" + .cuda_variant else "" end) + "-archive"), (.debs | map(.repo + "/" + .filename) | join(" "))] | @tsv' \
		"$work/plan.json" >"$work/groups.tsv"
else
	python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["packages"]:
    top = p["pname"] + "-" + p["platform"] + "-" + p["version"] + ("_" + p["cuda_variant"] if p.get("cuda_variant") else "") + "-archive"
    print("\t".join([p["product"], p["pname"], top, " ".join(d["repo"] + "/" + d["filename"] for d in p["debs"])]))
' "$work/plan.json" >"$work/groups.tsv"
fi
cat >"$work/reference.sh" <<'REF'
#!/bin/sh
# The C pipeline: $1 mirror, $2 groups.tsv, $3 output dir, $4 staging dir,
# $5 xz level, $6 xz threads.
set -eu
mirror=$1 groups=$2 out=$3 stage=$4 level=$5 threads=$6
cuda=usr/local/cuda-12.6
# debx DEB DIR: dpkg-deb -x, or (without dpkg) the data member of the ar
# archive, extracted by GNU tar (which picks xz, zstd or gzip by itself);
# the fallback copies the member to disk first, so it is slower than
# dpkg-deb (every run published in bench/README.md had dpkg-deb).
debx() {
	if command -v dpkg-deb >/dev/null 2>&1; then
		dpkg-deb -x "$1" "$2"
		return
	fi
	m=$(python3 -c '
import sys
f = open(sys.argv[1], "rb")
if f.read(8) != b"!<arch>\n":
    sys.exit(sys.argv[1] + ": not an ar archive")
while True:
    h = f.read(60)
    if len(h) < 60:
        sys.exit(sys.argv[1] + ": no data member")
    name, size = h[:16].decode().strip().rstrip("/"), int(h[48:58])
    if name.startswith("data.tar"):
        out = sys.argv[2] + "/" + name
        open(out, "wb").write(f.read(size))
        print(out)
        break
    f.seek(size + size % 2, 1)
' "$1" "$stage")
	tar -xf "$m" -C "$2"
	rm -f "$m"
}
# merge SRC DST: move SRC to DST, merging directories.
merge() {
	[ -e "$1" ] || [ -L "$1" ] || return 0
	if [ ! -e "$2" ] && [ ! -L "$2" ]; then
		mkdir -p "$(dirname "$2")"
		mv "$1" "$2"
	elif [ -d "$1" ] && [ ! -L "$1" ] && [ -d "$2" ]; then
		for c in "$1"/* "$1"/.[!.]*; do
			[ -e "$c" ] || [ -L "$c" ] || continue
			merge "$c" "$2/${c##*/}"
		done
		rmdir "$1"
	else
		rm -rf "$1"
	fi
}
tab=$(printf '\t')
while IFS=$tab read -r product pname top debs; do
	rm -rf "$stage"
	mkdir -p "$stage/x"
	for d in $debs; do
		debx "$mirror/$d" "$stage/x"
	done
	t=$stage/t/$top
	mkdir -p "$t"
	rm -rf "$stage/x/usr/share/doc"
	merge "$stage/x/$cuda/targets/aarch64-linux" "$t"
	merge "$stage/x/$cuda" "$t"
	merge "$stage/x/usr/lib/aarch64-linux-gnu" "$t/lib"
	merge "$stage/x/usr/include/aarch64-linux-gnu" "$t/include"
	merge "$stage/x/usr/include" "$t/include"
	merge "$stage/x/usr/lib/pkgconfig" "$t/pkg-config"
	merge "$stage/x/usr" "$t"
	dir=$out/$product/redist/$pname/linux-aarch64
	mkdir -p "$dir"
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$stage/t" -cf - "$top" | xz "-T$threads" "-$level" >"$dir/$top.tar.xz"
	(cd "$dir" && sha256sum "$top.tar.xz" >"$top.sha256" && md5sum "$top.tar.xz" >"$top.md5")
done <"$groups"
rm -rf "$stage"
REF
for l in $xzlevels; do
	rm -rf "$work/out-xz$l"
	measure "xz-T$threads-$l" sh "$work/reference.sh" "$mirror" "$work/groups.tsv" "$work/out-xz$l" "$work/stage" "$l" "$threads"
	sized "xz-T$threads-$l" "$work/out-xz$l"
done
ref=xz-T$threads-$(echo $xzlevels | cut -d' ' -f1)

echo "corpus: $corpus, $mirror ($(find "$mirror" -name '*.deb' | wc -l) debs, $(du -sb "$mirror" | cut -f1) bytes), $(nproc) CPUs, $(date -u +%F)"
echo "outputs: debredist preset $default_preset at --jobs $threads and $idjobs identical: $identical"
awk -v ref="$ref" '
	FNR == NR { sz[$2] = $3; next }
	{ w[$1] = $2; c[$1] = $3; r[$1] = $4; o[NR] = $1 }
	END {
		printf "%-18s %8s %8s %8s %8s %12s %8s %8s\n", "run", "wall_s", "cpu_s", "cpu/wall", "rss_MiB", "out_bytes", "wall/ref", "size/ref"
		for (i = 1; i <= NR; i++) {
			if (!(i in o)) continue
			n = o[i]
			s = (n in sz) ? sz[n] : 0
			printf "%-18s %8.2f %8.2f %8.2f %8d %12d %8.3f %8.3f\n", n, w[n], c[n], (w[n] > 0 ? c[n] / w[n] : 0), r[n], s,
				w[n] / w[ref], (s ? s / sz[ref] : 0)
		}
	}' "$sizes" "$res" | tee "$work/table-$scale.txt"
echo "(ref = $ref)"
[ -z "${RESULTS:-}" ] || cp "$work/table-$scale.txt" "$RESULTS/table.txt"
[ "$identical" = yes ]
