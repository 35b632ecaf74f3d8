#!/bin/sh
# bench/e2e.sh: end-to-end `debredist convert` against the C pipeline a user
# would write (dpkg-deb -x, mv, tar --sort=name | xz -T2 -6, sha256sum,
# md5sum), on the same generated JetPack-6-shaped mirror (bench/corpus).
#
#   bench/e2e.sh [SCALE_MiB]      (default 1280; corpus cached under $WORK)
#
# Environment: WORK (default ${TMPDIR:-/tmp}/debredist-e2e) holds the corpus
# (kept between runs, one per scale), the cache and the outputs.
#
# debredist reads debs from its verified cache: the cache is pre-filled by an
# untimed `debredist fetch` (its time is printed separately), while the
# reference reads the mirror's debs in place. Prints wall time, CPU time
# (user+sys), CPU/wall, peak RSS and total output size of both, the ratios
# debredist/reference, the time of a no-op rerun, and checks that --jobs 1
# and --jobs 2 write identical bytes.
set -eu
cd "$(dirname "$0")/.."
scale=${1:-1280}
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
mirror=$work/mirror-$scale
if [ ! -f "$mirror/.done" ]; then
	rm -rf "$mirror"
	echo "generating the corpus (scale $scale MiB) ..."
	"$bin/corpus" -scale "$scale" "$mirror"
	touch "$mirror/.done"
fi
res=$work/results-$scale
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

# (a) debredist
cache=$work/cache
rm -rf "$cache" "$work/out1" "$work/out2"
measure fetch "$bin/debredist" --quiet fetch --jetpack 6 --mirror "$mirror" --cache "$cache"
measure debredist-j2 "$bin/debredist" --quiet convert --jetpack 6 --mirror "$mirror" --cache "$cache" --offline --jobs 2 --out "$work/out2"
measure noop-j2 "$bin/debredist" --quiet convert --jetpack 6 --mirror "$mirror" --cache "$cache" --offline --jobs 2 --out "$work/out2"
measure debredist-j1 "$bin/debredist" --quiet convert --jetpack 6 --mirror "$mirror" --cache "$cache" --offline --jobs 1 --out "$work/out1"
if diff -r -x .debredist.lock "$work/out1" "$work/out2" >/dev/null; then
	identical=yes
else
	identical=NO
fi

# (b) the reference pipeline, one package after the other.
"$bin/debredist" --quiet plan --jetpack 6 --mirror "$mirror" --json >"$work/plan.json" 2>/dev/null
jq -r '.packages[] | [.product, .pname, (.pname + "-" + .platform + "-" + .version + (if .cuda_variant then "_" + .cuda_variant else "" end) + "-archive"), (.debs | map(.repo + "/" + .filename) | join(" "))] | @tsv' \
	"$work/plan.json" >"$work/groups.tsv"
cat >"$work/reference.sh" <<'REF'
#!/bin/sh
# The C pipeline: $1 mirror, $2 groups.tsv, $3 output dir, $4 staging dir.
set -eu
mirror=$1 groups=$2 out=$3 stage=$4
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
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$stage/t" -cf - "$top" | xz -T2 -6 >"$dir/$top.tar.xz"
	(cd "$dir" && sha256sum "$top.tar.xz" >"$top.sha256" && md5sum "$top.tar.xz" >"$top.md5")
done <"$groups"
rm -rf "$stage"
REF
rm -rf "$work/outref"
measure reference sh "$work/reference.sh" "$mirror" "$work/groups.tsv" "$work/outref" "$work/stage"

echo "corpus: $mirror ($(find "$mirror" -name '*.deb' | wc -l) debs, $(du -sb "$mirror" | cut -f1) bytes), $(nproc) CPUs, $(date -u +%F)"
echo "outputs: debredist --jobs 1 and --jobs 2 identical: $identical"
for n in debredist-j2 debredist-j1 reference; do
	case $n in reference) d=outref ;; debredist-j1) d=out1 ;; *) d=out2 ;; esac
	echo "size $n $(outsize "$work/$d")"
done >"$work/sizes-$scale"
awk '
	FNR == NR { sz[$2] = $3; next }
	{ w[$1] = $2; c[$1] = $3; r[$1] = $4; o[NR] = $1 }
	END {
		printf "%-14s %8s %8s %8s %8s %12s %8s %8s %8s\n", "run", "wall_s", "cpu_s", "cpu/wall", "rss_MiB", "out_bytes", "wall/ref", "size/ref", "rss/ref"
		for (i = 1; i <= NR; i++) {
			if (!(i in o)) continue
			n = o[i]
			s = (n in sz) ? sz[n] : 0
			printf "%-14s %8.2f %8.2f %8.2f %8d %12d %8.3f %8.3f %8.3f\n", n, w[n], c[n], (w[n] > 0 ? c[n] / w[n] : 0), r[n], s,
				w[n] / w["reference"], (s ? s / sz["reference"] : 0), r[n] / r["reference"]
		}
	}' "$work/sizes-$scale" "$res"
[ "$identical" = yes ]
