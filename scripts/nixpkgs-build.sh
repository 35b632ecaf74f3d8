#!/bin/sh
# scripts/nixpkgs-build.sh NIXPKGS [JETPACK_NIXOS [CUDA_LEGACY]] OUT
#
# Builds (nix-store --realise, every output) every package the overlay of
# `debredist nix OUT` provides, for aarch64-linux, once per CUDA capability
# of the release (verify --nixpkgs: Xavier 7.2, Orin 8.7, Thor 11.0), each
# package and capability its own evaluation and build, then checks what was
# built, and prints one line per package and capability, then a summary:
#
#   cudaPackages_12_6.libcublas 8.7: built out dev include lib static stubs
#   cudaPackages_12_6.tensorrt 8.7: refused: insecure: your choice, see verify --nixpkgs: error: Package ‘…’ is marked as insecure …
#   cudaPackages_12_6.cuda_nvcc 8.7: FAILED: substituteStream(): ERROR: pattern $(TOP)/nvvm/ doesn't match anything in file …
#   30 built, 1 failed, 1 refused by nixpkgs
#
# The checkouts and the routes are those of scripts/nixpkgs-eval.sh (same
# arguments; the overlays applied as jetpack-nixos' flake applies them,
# cuda-legacy's first, then jetpack-nixos' overlay.nix, then OUT's):
# default, the overlay of `debredist nix OUT`; DEBREDIST_NIX_DERIVATIONS=1,
# the overlay of `debredist nix --derivations OUT`, every archive built first
# by `debredist build-archive` inside Nix (an archive already in the store is
# built again with --check), so DEBREDIST must then name the debredist
# executable itself, built with CGO_ENABLED=0; DEBREDIST_MANIFESTS_ONLY=1, a
# consumer that knows nothing of debredist and only swaps in OUT's
# manifests (its redistrib_*.json as they are) and their file:// URL
# (_cuda.lib.mkRedistUrl). DEBREDIST_ACCEPT_INSECURE=1 accepts the insecure
# TensorRT (the printed file's acceptInsecureTensorRT; the manifests-only
# consumer's nixpkgs config). PACKAGES (space-separated pnames) builds only
# those; JOBS (default 1) cells run side by side.
#
# After a build, on the realised outputs: every declared output other than
# out and dev holds something besides nix-support (nixpkgs'
# checkCudaNonEmptyOutputs exempts those two); no symbolic link dangles;
# every path a pkg-config file names (its variables, -L and -I) is in the
# Nix store and exists; every NEEDED entry of every dynamically linked ELF
# executable or library is found on its RUNPATH ($ORIGIN expanded) in the
# Nix store, or is one of the sonames listed in `allowed` below, each with
# why nothing in the package set can provide it. A problem found makes the
# cell FAILED with the first one.
#
# A package that does not evaluate where `debredist verify --nixpkgs` says
# nixpkgs refuses it (broken, platformAssertions, an insecure TensorRT not
# accepted), and JetPack 5's cuda_compat, which jetpack-nixos and the
# overlay set to null (the L4T r35 driver is CUDA 11.4), are "refused". Exit
# status 1 when any cell failed (or built from anything but OUT's archive),
# 2 on a usage error. Needs nix-instantiate, nix-store, jq and patchelf.
# The caller supplies the Nix configuration (NIX_CONFIG or nix.conf): the
# builds are for aarch64-linux, so a builder on another machine needs
# `extra-platforms = aarch64-linux` and (the builders being the host's
# /bin/bash) `sandbox = false`; as root without build users also
# `build-users-group =`.
set -eu
# shellcheck source=scripts/nixpkgs-cells.sh
cells_build=1 . "$(dirname "$0")/nixpkgs-cells.sh"

# The sonames a package may need that nothing of the CUDA package set
# provides, and why: found at run time, not on the RUNPATH nixpkgs writes
# (the Jetson driver's libraries are the L4T debs', which jetpack-nixos
# packages; nixpkgs' package files ignore them).
allowed='
libcuda.so.1 the driver (L4T nvidia-l4t-cuda), /run/opengl-driver/lib by autoAddDriverRunpath
libnvidia-ml.so.1 the driver (NVML), /run/opengl-driver/lib by autoAddDriverRunpath
libnvrm_gpu.so the L4T driver (nvidia-l4t-core); cuda_compat.nix lists it in autoPatchelfIgnoreMissingDeps
libnvrm_mem.so the L4T driver (nvidia-l4t-core); cuda_compat.nix lists it in autoPatchelfIgnoreMissingDeps
libnvdla_runtime.so the L4T driver (nvidia-l4t-core); cuda_compat.nix lists it in autoPatchelfIgnoreMissingDeps
libnvcudla.so the L4T driver (nvidia-l4t-cuda); libcudla.nix lists it in autoPatchelfIgnoreMissingDeps
libnvdla_compiler.so the L4T DLA compiler (nvidia-l4t-dla-compiler); tensorrt.nix ignores it on linux-aarch64
libc.so.6 glibc, the dynamic loader of the system
libm.so.6 glibc
libdl.so.2 glibc
libpthread.so.0 glibc
librt.so.1 glibc
libutil.so.1 glibc
ld-linux-aarch64.so.1 glibc (the loader itself)
libstdc++.so.6 the C++ runtime of the compiler (stdenv.cc.cc.lib)
libgcc_s.so.1 the compiler runtime (stdenv.cc.cc.lib)
'
printf '%s\n' "$allowed" | awk 'NF { print $1 }' >"$work/allowed"

if [ "$route" = derivations ]; then
	# Every archive built inside Nix by debredist build-archive from the
	# debs; one already in the store (fetched by another route: the same
	# store path) is built again and compared (--check).
	nix-instantiate "$work/printed.nix" -A archives --arg debredist "$debredistArg" >"$work/archives.drv" 2>"$work/archives.err" || {
		echo "archives: FAILED: $(grep -m 1 'error:' "$work/archives.err" || head -n 1 "$work/archives.err")"
		exit 1
	}
	n=0 checked=0
	while read -r drv; do
		n=$((n + 1))
		o=$(nix-store -q --outputs "$drv")
		if nix-store --check-validity "$o" 2>/dev/null; then
			checked=$((checked + 1))
			set -- --check
		else
			set --
		fi
		nix-store --realise "$@" "$drv" >/dev/null 2>"$work/archive.err" || {
			echo "archives: FAILED: $drv: $(grep -m 1 -i 'error' "$work/archive.err" || head -n 1 "$work/archive.err")"
			exit 1
		}
	done <"$work/archives.drv"
	echo "archives: $n built by debredist build-archive inside Nix ($checked of them again with --check), each its manifest's sha256"
fi

# check_outputs DEST NAME=PATH...: the checks above on the realised
# outputs, every problem a line of DEST.
cat >"$work/check.sh" <<'EOF'
dest=$1 allowed=$2
shift 2
store=${NIX_STORE_DIR:-/nix/store}
: >"$dest"
problem() { printf '%s\n' "$*" >>"$dest"; }
for op in "$@"; do
	o=${op%%=*} p=${op#*=}
	[ -e "$p" ] || { problem "output $o: $p does not exist"; continue; }
	case $o in
	out | dev) ;;
	*)
		[ -n "$(find "$p" -mindepth 1 ! -path "$p/nix-support" ! -path "$p/nix-support/*" | head -n 1)" ] ||
			problem "declared output $o is empty (besides nix-support)"
		;;
	esac
	find "$p" -type l | while read -r l; do
		[ -e "$l" ] || problem "dangling link $l -> $(readlink "$l")"
	done
	find "$p" -name '*.pc' -type f | while read -r pc; do
		# The variables expanded in order, then every absolute path a
		# variable, -L or -I names.
		awk '
		function expand(s,   v, out, i, j) {
			out = ""
			while ((i = index(s, "${")) > 0) {
				j = index(substr(s, i), "}")
				if (j == 0) break
				v = substr(s, i + 2, j - 3)
				out = out substr(s, 1, i - 1) vars[v]
				s = substr(s, i + j)
			}
			return out s
		}
		/^[A-Za-z_][A-Za-z0-9_.]*=/ {
			k = substr($0, 1, index($0, "=") - 1); vars[k] = expand(substr($0, index($0, "=") + 1))
			if (vars[k] ~ /^\//) print k "\t" vars[k]
			next
		}
		/^(Libs|Libs.private|Cflags):/ {
			n = split(expand(substr($0, index($0, ":") + 1)), w, /[ \t]+/)
			for (i = 1; i <= n; i++) if (w[i] ~ /^-[LI]\//) print substr($0, 1, index($0, ":") - 1) "\t" substr(w[i], 3)
		}' "$pc" | while IFS='	' read -r what path; do
			case $path in
			"$store"/*) [ -e "$path" ] || problem "$pc: $what names $path, which does not exist" ;;
			*) problem "$pc: $what names $path, outside the Nix store" ;;
			esac
		done
	done
	find "$p" -type f | while read -r f; do
		[ "$(od -An -tx1 -N4 "$f" | tr -d ' ')" = 7f454c46 ] || continue
		case $(od -An -tx1 -j16 -N1 "$f" | tr -d ' ') in 02 | 03) ;; *) continue ;; esac # ET_EXEC, ET_DYN
		if ! needed=$(patchelf --print-needed "$f" 2>"$dest.pe"); then
			grep -q "cannot find section '.dynamic'" "$dest.pe" || problem "$f: patchelf cannot read it: $(head -n 1 "$dest.pe")"
			continue
		fi
		rpath=$(patchelf --print-rpath "$f")
		origin=$(dirname "$f")
		for n in $needed; do
			found=
			for d in $(printf '%s' "$rpath" | tr ':' ' '); do
				d=$(printf '%s' "$d" | sed -e "s|\\\$ORIGIN|$origin|g" -e "s|\\\${ORIGIN}|$origin|g")
				case $d in "$store"/*) ;; *) continue ;; esac
				[ -e "$d/$n" ] && found=$d && break
			done
			[ -n "$found" ] || grep -qxF "$n" "$allowed" || problem "$f: NEEDED $n is not on its RUNPATH ${rpath:-(none)} in the Nix store, nor allowed"
		done
	done
done
rm -f "$dest.pe"
EOF

# One cell: package $1, capability $2, into $work/cells/$3.
cat >"$work/cell.sh" <<'EOF'
set -u
name=$1 cap=$2 dest=$3
if ! nix-instantiate --eval --strict --json --read-write-mode --argstr name "$name" --argstr cap "$cap" --argstr set "$SET" "$WORK/cell.nix" >"$dest.json" 2>"$dest.err"; then
	echo eval-error >"$dest.status"
	exit 0
fi
drv=$(jq -r .drv "$dest.json")
src=$(jq -r .src "$dest.json")
if [ "$drv" = null ]; then
	echo null >"$dest.status"
	exit 0
fi
case $src in
"$FROM"*) ;;
*)
	echo "src is not OUT's archive: $src" >"$dest.problems"
	echo problems >"$dest.status"
	exit 0
	;;
esac
if ! nix-store --realise "$drv" >"$dest.paths" 2>"$dest.err"; then
	# The derivation that failed: this one, or one it depends on (then
	# named in the line).
	failed=$(sed -n "s/.*builder for '\([^']*\)' failed.*/\1/p" "$dest.err" | head -n 1)
	[ -n "$failed" ] || failed=$drv
	[ "$failed" = "$drv" ] || echo "dependency ${failed#*-} failed: " | tr -d '\n' >"$dest.dep"
	nix-store --read-log "$failed" >"$dest.log" 2>/dev/null || cp "$dest.err" "$dest.log"
	echo build-error >"$dest.status"
	exit 0
fi
jq -r '.outputs[]' "$dest.json" >"$dest.outputs"
# shellcheck disable=SC2046
sh "$WORK/check.sh" "$dest.problems" "$WORK/allowed" $(cat "$dest.outputs")
if [ -s "$dest.problems" ]; then echo problems >"$dest.status"; else echo built >"$dest.status"; fi
EOF

export SET="$set" FROM="$from" WORK="$work"
xargs -P "${JOBS:-1}" -L 1 sh -c 'sh "$0/cell.sh" "$1" "$2" "$0/cells/$3"' "$work" <"$work/jobs"

# first_error FILE: the line of a build log that says what went wrong: the
# first line the builder wrote as an error (nixErrorLog's "ERROR:", a tool's
# "error:"), else the last saying what was missing or refused (the one that
# stopped the build; audit-tmpdir's patchelf complaints before it do not),
# else the last line (moveToOutput's "rmdir: failed to remove" is not an
# error).
first_error() {
	sed -e 's/\x1b\[[0-9;]*m//g' -e '/^@nix /d' -e '/^rmdir: failed to remove/d' "$1" >"$1.clean"
	# A patchelf message names no file: the last store path the log
	# mentioned before it is the one patchelf was given.
	awk '
	  /ERROR|(^|[^a-z])error: *[^ ]/ && !e { sub(/^ +/, ""); e = $0 (/^patchelf:/ && p ? " (" p ")" : "") }
	  /[Nn]o such|not found|wrong ELF|[Cc]annot|[Cc]ould not|[Ff]ailed/ { m = $0 (/^patchelf:/ && p ? " (" p ")" : "") }
	  match($0, /\/nix\/store\/[^ :'"'"']*/) { p = substr($0, RSTART, RLENGTH) }
	  { last = $0 }
	  END { print (e ? e : m ? m : last) }' "$1.clean"
}

built=0 failed=0 refused=0
while read -r name cap n; do
	c="$work/cells/$n"
	line="$set.$name $cap:"
	case $(cat "$c.status" 2>/dev/null) in
	built)
		echo "$line built $(jq -r '[.outputs[] | sub("=.*"; "")] | join(" ")' "$c.json")"
		built=$((built + 1))
		;;
	null)
		if [ "$name" = cuda_compat ] && [ "$set" = cudaPackages_11_4 ]; then
			echo "$line refused: null (cuda_compat on CUDA 11.4: the L4T r35 driver is CUDA 11.4; jetpack-nixos and the overlay set it so)"
			refused=$((refused + 1))
		else
			echo "$line FAILED: the package is null"
			failed=$((failed + 1))
		fi
		;;
	eval-error)
		err=$(nix_error "$c.err")
		why=$(expected_reason "$name" "$cap")
		pattern=${why#*	}
		why=${why%%	*}
		if [ -n "$why" ] && sed 's/\x1b\[[0-9;]*m//g' "$c.err" | grep -qE "$pattern"; then
			echo "$line refused: $why: $err"
			refused=$((refused + 1))
		else
			echo "$line FAILED: $err"
			failed=$((failed + 1))
		fi
		;;
	build-error)
		echo "$line FAILED: $(cat "$c.dep" 2>/dev/null)$(first_error "$c.log")"
		failed=$((failed + 1))
		;;
	problems)
		echo "$line FAILED: $(head -n 1 "$c.problems") ($(wc -l <"$c.problems") problem(s))"
		failed=$((failed + 1))
		;;
	*)
		echo "$line FAILED: the cell did not finish"
		failed=$((failed + 1))
		;;
	esac
done <"$work/jobs"
echo "$built built, $failed failed, $refused refused by nixpkgs"
[ "$failed" -eq 0 ] || exit 1
