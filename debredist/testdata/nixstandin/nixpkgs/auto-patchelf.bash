# The stand-in's autoPatchelfHook (see ../README.md), written for
# debredist's tests with the semantics of nixpkgs'
# pkgs/build-support/setup-hooks/auto-patchelf.{sh,py}, using the host's
# readelf and patchelf: after fixup, every ELF file of the target
# architecture (aarch64) in every output gets each NEEDED resolved, by file
# name, against
#   - the shared objects of the outputs themselves (any depth), then
#   - the shared objects under each input's lib/ (any depth), and the
#     directories their RUNPATHs name,
#   - or it is in the C library's lib/ ($standInLibc: left to the dynamic
#     loader), or matches autoPatchelfIgnoreMissingDeps (the package's own
#     list);
# its RUNPATH becomes the directories found, then appendRunpaths. A NEEDED
# found nowhere fails the build, after every file is checked. Files readelf
# cannot read as ELF are skipped, as auto-patchelf skips what pyelftools
# cannot parse; the interpreter of executables is not set (the stand-in
# has no glibc).
postFixupHooks+=(autoPatchelfPostFixup)

# elfMachine FILE: the machine of FILE when it is an ELF file with a
# dynamic section that readelf reads without complaint; else nothing.
elfMachine() {
	local dyn
	[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ] || return 0
	dyn=$(readelf -h -d -W "$1" 2>"$NIX_BUILD_TOP/readelf.err") || return 0
	[ ! -s "$NIX_BUILD_TOP/readelf.err" ] || return 0
	[[ $dyn != *"There is no dynamic section"* ]] || return 0
	printf '%s\n' "$dyn" | sed -n 's/^ *Machine: *//p'
}

autoPatchelfPostFixup() {
	[ -z "${dontAutoPatchelf-}" ] || return 0
	local target=AArch64 outName file dir dep found machine rpath ignore input pattern
	local -A soCache=() seen=()
	local -a queue=() missing=() missingNames=() roots=()
	for outName in $(getAllOutputNames); do
		[ -e "${!outName}" ] && roots+=("${!outName}")
	done
	# The cache: name -> the first directory holding a shared object of
	# the target architecture by that name; the outputs first.
	cacheDir() { # DIR [maxdepth]
		local d=$1 f m rp
		[ -d "$d" ] && [ -z "${seen[$d]-}" ] || return 0
		seen[$d]=1
		while IFS= read -r -d '' f; do
			[ -f "$f" ] || continue
			m=$(elfMachine "$f")
			[ "$m" = "$target" ] || continue
			[ -n "${soCache[$(basename "$f")]-}" ] || soCache[$(basename "$f")]=$(dirname "$f")
			for rp in $(readelf -d -W "$f" 2>/dev/null | sed -n 's/.*(RUNPATH).*\[\(.*\)\]$/\1/p; s/.*(RPATH).*\[\(.*\)\]$/\1/p' | tr ':' ' '); do
				[[ $rp == *'$ORIGIN'* ]] || queue+=("$rp")
			done
		done < <(find "$d" -name '*.so*' \( -type f -o -type l \) -print0 | sort -z)
	}
	for dir in "${roots[@]}"; do cacheDir "$dir"; done
	for input in ${buildInputs-}; do cacheDir "$input/lib"; done
	while [ ${#queue[@]} -gt 0 ]; do
		dir=${queue[0]}
		queue=("${queue[@]:1}")
		cacheDir "$dir"
	done
	while IFS= read -r -d '' file; do
		machine=$(elfMachine "$file")
		[ -n "$machine" ] || continue
		if [ "$machine" != "$target" ]; then
			echo "skipping $file because its architecture ($machine) differs from target ($target)" >&2
			continue
		fi
		rpath=
		for dep in $(readelf -d -W "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			if [[ $dep == /* ]] && [ -f "$dep" ]; then
				continue
			fi
			found=${soCache[$dep]-}
			if [ -n "$found" ]; then
				[[ ":$rpath:" == *":$found:"* ]] || rpath=${rpath:+$rpath:}$found
				echo "    $file: $dep -> found: $found" >&2
			elif [ -n "${standInLibc-}" ] && [ -f "$standInLibc/lib/$dep" ]; then
				echo "    $file: $dep -> the C library's, left to the dynamic loader" >&2
			else
				ignore=
				for pattern in ${autoPatchelfIgnoreMissingDeps-}; do
					# shellcheck disable=SC2053
					[[ $dep == $pattern ]] && ignore=1
				done
				if [ -n "$ignore" ]; then
					echo "    $file: $dep -> ignored (autoPatchelfIgnoreMissingDeps)" >&2
				else
					echo "    $file: $dep -> not found!" >&2
					missing+=("auto-patchelf could not satisfy dependency $dep wanted by $file")
					[[ " ${missingNames[*]} " == *" $dep "* ]] || missingNames+=("$dep")
				fi
			fi
		done
		for dir in ${appendRunpaths-}; do
			rpath=${rpath:+$rpath:}$dir
		done
		if [ -n "$rpath" ]; then
			patchelf --set-rpath "$rpath" "$file"
		fi
	done < <(find "${roots[@]}" -type f -print0 | sort -z)

	if [ ${#missing[@]} -gt 0 ]; then
		printf '%s\n' "${missing[@]}" >&2
		echo "auto-patchelf failed to find all the required dependencies: ${missingNames[*]}" >&2
		exit 1
	fi
}
