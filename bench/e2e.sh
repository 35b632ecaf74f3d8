#!/bin/sh
# bench/e2e.sh: end-to-end `debredist convert` against the C pipeline a user
# would write (dpkg-deb -x, mv, tar --sort=name | xz -T2 -N, sha256sum,
# md5sum), on the same JetPack-6-shaped mirror (bench/corpus), side by side
# in one run: the reference at each xz level of XZLEVELS and debredist at
# each preset of PRESETS.
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
#   PRESETS  debredist xz presets to run (default "1 4 6"); the default
#            preset also runs at --jobs 1 and 4 to check identical bytes.
#   XZLEVELS reference xz levels (default "6 3 1").
#
# debredist reads debs from its verified cache: the cache is pre-filled by an
# untimed `debredist fetch` (its time is printed separately), while the
# reference reads the mirror's debs in place. Prints wall time, CPU time
# (user+sys), CPU/wall, peak RSS and total output size of both, the ratios
# debredist/reference, the time of a no-op rerun, and checks that --jobs 1
# and --jobs 2 write identical bytes.
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

need=""
for t in /usr/bin/time:time dpkg-deb:dpkg tar:tar xz:xz-utils jq:jq sha256sum:coreutils; do
	command -v "${t%%:*}" >/dev/null 2>&1 || need="$need ${t#*:}"
done
if [ -n "$need" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
	else
		echo "e2e.sh: missing:$need (install them, or run as root on Debian/Ubuntu)" >&2
		exit 1
	fi
fi

bin=$work/bin
mkdir -p "$bin"
go build -o "$bin/debredist" ./cmd/debredist
go build -o "$bin/corpus" ./bench/corpus
gens=${REALGENS:-11.8 12}
mirror=$work/mirror-$corpus-$scale
[ "$corpus" != real ] || mirror=$mirror-$(echo $gens ${REAL13:+13} | tr ' ' '+')
if [ ! -f "$mirror/.done" ]; then
	rm -rf "$mirror"
	echo "generating the $corpus corpus (scale $scale MiB) ..."
	if [ "$corpus" = real ]; then
		set --
		for g in $gens; do
			sh bench/realdebs.sh "$work/real$g" "$g"
			set -- "$@" -real "$work/real$g/tree"
		done
		[ -z "${REAL13:-}" ] || set -- "$@" -real "$REAL13"
		"$bin/corpus" -scale "$scale" "$@" "$mirror"
	else
		"$bin/corpus" -scale "$scale" "$mirror"
	fi
	touch "$mirror/.done"
fi
res=$work/results-$corpus-$scale
: >"$res"

# measure NAME CMD...: runs CMD under /usr/bin/time -v and appends
# "NAME wall cpu rss_MiB" to $res.
measure() {
	name=$1
	shift
	/usr/bin/time -v -o "$work/time.txt" "$@" >"$work/$name.log" 2>&1 || {
		echo "e2e.sh: $name failed:" >&2
		tail -20 "$work/$name.log" >&2
		exit 1
	}
	awk -v n="$name" -F': ' '
		/Elapsed \(wall clock\)/ { k = split($2, t, ":"); w = 0; for (i = 1; i <= k; i++) w = w * 60 + t[i] }
		/User time/ { u = $2 } /System time/ { s = $2 }
		/Maximum resident set size/ { r = $2 / 1024 }
		END { printf "%s %.2f %.2f %.0f\n", n, w, u + s, r }' "$work/time.txt" >>"$res"
}

outsize() { find "$1" -name '*.tar.xz' -type f -exec cat {} + | wc -c; }

# (a) debredist, each preset at --jobs 2; the default preset also at --jobs 1
# and 4, which must write the same bytes.
cache=$work/cache
rm -rf "$cache" "$work"/out-*
measure fetch "$bin/debredist" --quiet fetch --jetpack 6 --mirror "$mirror" --cache "$cache"
conv() { # NAME PRESET JOBS
	measure "$1" "$bin/debredist" --quiet convert --jetpack 6 --mirror "$mirror" --cache "$cache" --offline \
		--preset "$2" --jobs "$3" --out "$work/out-$1"
}
identical=yes
for p in $presets; do
	conv "debredist-p$p" "$p" 2
	if [ "$p" = "$default_preset" ]; then
		measure noop "$bin/debredist" --quiet convert --jetpack 6 --mirror "$mirror" --cache "$cache" --offline \
			--preset "$p" --jobs 2 --out "$work/out-debredist-p$p"
		for j in 1 4; do
			conv "debredist-p$p-j$j" "$p" "$j"
			diff -r -x .debredist.lock -x '*.provenance.json' "$work/out-debredist-p$p" "$work/out-debredist-p$p-j$j" >/dev/null || identical=NO
		done
	fi
done

# (b) the reference pipeline, one package after the other.
"$bin/debredist" --quiet plan --jetpack 6 --mirror "$mirror" --json >"$work/plan.json" 2>/dev/null
jq -r '.packages[] | [.product, .pname, (.pname + "-" + .platform + "-" + .version + (if .cuda_variant then "_" + .cuda_variant else "" end) + "-archive"), (.debs | map(.repo + "/" + .filename) | join(" "))] | @tsv' \
	"$work/plan.json" >"$work/groups.tsv"
cat >"$work/reference.sh" <<'REF'
#!/bin/sh
# The C pipeline: $1 mirror, $2 groups.tsv, $3 output dir, $4 staging dir,
# $5 xz level.
set -eu
mirror=$1 groups=$2 out=$3 stage=$4 level=$5
cuda=usr/local/cuda-12.6
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
		dpkg-deb -x "$mirror/$d" "$stage/x"
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
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$stage/t" -cf - "$top" | xz -T2 "-$level" >"$dir/$top.tar.xz"
	(cd "$dir" && sha256sum "$top.tar.xz" >"$top.sha256" && md5sum "$top.tar.xz" >"$top.md5")
done <"$groups"
rm -rf "$stage"
REF
for l in $xzlevels; do
	rm -rf "$work/out-xz$l"
	measure "xz-T2-$l" sh "$work/reference.sh" "$mirror" "$work/groups.tsv" "$work/out-xz$l" "$work/stage" "$l"
done
ref=xz-T2-$(echo $xzlevels | cut -d' ' -f1)

echo "corpus: $corpus, $mirror ($(find "$mirror" -name '*.deb' | wc -l) debs, $(du -sb "$mirror" | cut -f1) bytes), $(nproc) CPUs, $(date -u +%F)"
echo "outputs: debredist preset $default_preset at --jobs 1, 2 and 4 identical: $identical"
for l in $xzlevels; do echo "size xz-T2-$l $(outsize "$work/out-xz$l")"; done >"$work/sizes-$scale"
for p in $presets; do
	echo "size debredist-p$p $(outsize "$work/out-debredist-p$p")"
	[ "$p" != "$default_preset" ] || for j in 1 4; do echo "size debredist-p$p-j$j $(outsize "$work/out-debredist-p$p-j$j")"; done
done >>"$work/sizes-$scale"
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
	}' "$work/sizes-$scale" "$res"
echo "(ref = $ref)"
[ "$identical" = yes ]
