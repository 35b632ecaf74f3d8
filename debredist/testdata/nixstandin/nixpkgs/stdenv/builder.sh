# The stand-in's stdenv builder (see ../../README.md), written for
# debredist's tests: the phases of nixpkgs' pkgs/stdenv/generic/setup.sh
# that a redist build goes through (unpack, patch, build, install, fixup,
# installCheck), their hooks (an attribute of the phase's name runs first,
# then the functions in the <name>Hooks array), moveToOutput and
# substituteInPlace with their semantics, and two of stdenv's default
# hooks: the multiple-outputs move of development files (preFixup) and
# noBrokenSymlinks (postFixup). The setup hooks named in $setupHooks are
# sourced first, then the ones an input propagates
# (nix-support/propagated-native-build-inputs). Tools are the host's
# (/usr/bin, /bin): nothing of nixpkgs' bootstrap is modelled.
set -eu -o pipefail
shopt -u nullglob globstar
export PATH=/usr/bin:/bin
# A HOME of the build's own: nothing may create the /homeless-shelter Nix
# checks is absent before every build without a sandbox.
export HOME="$NIX_BUILD_TOP/homeless-shelter"
umask 0022

nixLog() { echo "${FUNCNAME[1]:-builder}: $*" >&2; }
nixErrorLog() { echo "${FUNCNAME[1]:-builder}: $*" >&2; }

getAllOutputNames() { echo $outputs; }

# The hook arrays the phases run.
for h in postUnpack prePatch postPatch preInstall postInstall preFixup postFixup preInstallCheck postInstallCheck; do
	declare -ga "${h}Hooks=()"
done

# runHook NAME: the attribute NAME (shell text) first, then each function
# in NAMEHooks, in order.
runHook() {
	local hookName=$1 text hook
	text=${!hookName-}
	if [ -n "$text" ]; then
		eval "$text"
	fi
	local arr="${hookName}Hooks[@]"
	for hook in "${!arr}"; do
		eval "$hook"
	done
	return 0
}

# moveToOutput PATTERN DEST: every path matching the glob PATTERN (bash's
# own globbing, no globstar: ** matches one level) under any other output
# moves to the same relative path under DEST; directories merge; parents
# left empty are removed.
moveToOutput() {
	local pattern=$1 dest=$2 outName src rel target parent
	for outName in $(getAllOutputNames); do
		[ "${!outName}" != "$dest" ] || continue
		for src in "${!outName}"/$pattern; do
			[ -e "$src" ] || [ -L "$src" ] || continue
			rel=${src#"${!outName}"}
			target=$dest$rel
			echo "moving $src to $target" >&2
			if [ -d "$target" ] && [ -d "$src" ] && [ ! -L "$src" ]; then
				rmdir --ignore-fail-on-non-empty "$src"
				if [ -d "$src" ]; then
					mv -t "$target" "$src"/*
					rmdir "$src"
				fi
			else
				mkdir -p "$(dirname "$target")"
				mv "$src" "$target"
			fi
			parent=$(dirname "$src")
			rmdir -p --ignore-fail-on-non-empty "$parent" 2>/dev/null || true
		done
	done
}

# substituteInPlace FILE (--replace-fail OLD NEW)...: every occurrence of
# OLD becomes NEW; an OLD that is not in the file fails the build.
substituteInPlace() {
	local file=$1 text old new
	shift
	if [ ! -f "$file" ]; then
		echo "substituteInPlace: ERROR: file '$file' does not exist" >&2
		exit 1
	fi
	IFS= read -r -d '' text <"$file" || true
	while [ $# -gt 0 ]; do
		case $1 in
		--replace-fail)
			old=$2 new=$3
			shift 3
			if [[ $text != *"$old"* ]]; then
				echo "substituteStream() in derivation $name: ERROR: pattern $old doesn't match anything in file '$file'" >&2
				exit 1
			fi
			text=${text//"$old"/"$new"}
			;;
		*)
			echo "substituteInPlace: the stand-in knows only --replace-fail, not $1" >&2
			exit 1
			;;
		esac
	done
	printf '%s' "$text" >"$file"
}

# stdenv's multiple-outputs hook, preFixup: development files to the
# development output, headers to the include output.
multioutDevs() {
	[ "$(getAllOutputNames)" != out ] || return 0
	moveToOutput include "${!outputInclude}"
	moveToOutput lib/pkgconfig "${!outputDev}"
	moveToOutput share/pkgconfig "${!outputDev}"
	moveToOutput lib/cmake "${!outputDev}"
	moveToOutput share/aclocal "${!outputDev}"
}

# stdenv's noBrokenSymlinks, postFixup: a link into the store whose target
# does not exist, or that points to itself, fails the build (links out of
# the store are not checked).
noBrokenSymlinks() {
	local outName link target dangling=0 reflexive=0
	for outName in $(getAllOutputNames); do
		[ -e "${!outName}" ] || continue
		while IFS= read -r -d '' link; do
			target=$(readlink "$link")
			[[ $target == /* ]] || target=$(dirname "$link")/$target
			[[ $target == "$NIX_STORE"/* ]] || continue
			if [ "$target" = "$link" ]; then
				nixErrorLog "the symlink $link is reflexive"
				reflexive=$((reflexive + 1))
			elif [ ! -e "$target" ]; then
				nixErrorLog "the symlink $link points to a missing target: $target"
				dangling=$((dangling + 1))
			fi
		done < <(find "${!outName}" -type l -print0)
	done
	if [ $dangling -gt 0 ] || [ $reflexive -gt 0 ]; then
		nixErrorLog "found $dangling dangling symlinks and $reflexive reflexive symlinks"
		exit 1
	fi
}

unpackPhase() {
	local before after n
	cd "$NIX_BUILD_TOP"
	if [ -d "$src" ]; then
		# A directory (srcOnly's output): copied, named without its hash.
		sourceRoot=$(basename "$src")
		sourceRoot=${sourceRoot#*-}
		cp -pr --reflink=auto -- "$src" "$sourceRoot"
	else
		before=$(find . -mindepth 1 -maxdepth 1 -type d | sort)
		tar -xf "$src" --mode=+w --warning=no-timestamp
		after=$(comm -13 <(echo "$before") <(find . -mindepth 1 -maxdepth 1 -type d | sort))
		n=$(printf '%s' "$after" | grep -c . || true)
		if [ "$n" -eq 0 ]; then
			echo "unpacker appears to have produced no directories" >&2
			exit 1
		elif [ "$n" -gt 1 ]; then
			echo "unpacker produced multiple directories" >&2
			exit 1
		fi
		sourceRoot=${after#./}
	fi
	export sourceRoot
	chmod -R u+w -- "$sourceRoot"
	runHook postUnpack
	cd "$sourceRoot"
}

genericBuild() {
	local hook input entry
	for hook in ${setupHooks-}; do
		# shellcheck disable=SC1090
		source "$hook"
	done
	# Setup hooks an input propagates (the stand-in puts every output of
	# every input into the environment).
	for input in ${buildInputs-}; do
		[ -f "$input/nix-support/propagated-native-build-inputs" ] || continue
		for entry in $(cat "$input/nix-support/propagated-native-build-inputs"); do
			# shellcheck disable=SC1090
			[ ! -f "$entry" ] || source "$entry"
		done
	done
	preFixupHooks+=(multioutDevs)
	postFixupHooks=(noBrokenSymlinks "${postFixupHooks[@]}")

	mkdir -p "$NIX_BUILD_TOP/tmp"
	if [ -n "${src-}" ]; then
		unpackPhase
		runHook prePatch
		runHook postPatch
	fi
	if [ -n "${buildPhase-}" ]; then
		eval "$buildPhase"
	fi
	if [ -z "${installPhase-}" ]; then
		echo "$name: the stand-in's stdenv has no default installPhase" >&2
		exit 1
	fi
	eval "$installPhase"
	if [ -z "${dontFixup-}" ]; then
		runHook preFixup
		runHook postFixup
	fi
	if [ -n "${doInstallCheck-}" ]; then
		runHook preInstallCheck
		runHook postInstallCheck
	fi
}

genericBuild
