# The stand-in's buildRedist setup hook (see ../../README.md), written for
# debredist's tests with the semantics of nixpkgs'
# pkgs/development/cuda-modules/buildRedist/buildRedistHook.bash
# (1ac181a172c70d43e3336c1756d86e6a35f2eccb): what it does to an archive's
# tree and the checks that fail a build.
postUnpackHooks+=(promoteCudaLibSubdir movePkgConfigDirs)
prePatchHooks+=(rewritePkgConfig)
[ -n "${allowFHSReferences-}" ] || postInstallCheckHooks+=(checkCudaFhsRefs)
postInstallCheckHooks+=(checkCudaNonEmptyOutputs)
postFixupHooks+=(checkCudaHasStubsIffIncludeRemoveStubsFromRunpathHook)

# lib/<CUDA major>/ replaces lib/ (archives built for several CUDA majors).
promoteCudaLibSubdir() {
	local libDir="$NIX_BUILD_TOP/$sourceRoot/lib"
	[ -d "$libDir/$cudaMajorVersion" ] || return 0
	nixLog "lib/$cudaMajorVersion becomes lib"
	mv --no-clobber "$libDir/$cudaMajorVersion" "$libDir-promoted"
	rm -r "$libDir"
	mv --no-clobber "$libDir-promoted" "$libDir"
}

# pkg-config/ and pkgconfig/ move into share/pkgconfig (where pkg-config's
# setup hook looks); a directory left non-empty fails the build.
movePkgConfigDirs() {
	local dir dest="$NIX_BUILD_TOP/$sourceRoot/share/pkgconfig"
	for dir in "$NIX_BUILD_TOP/$sourceRoot/pkg-config" "$NIX_BUILD_TOP/$sourceRoot/pkgconfig"; do
		[ -d "$dir" ] || continue
		mkdir -p "$dest"
		mv --no-clobber --target-directory "$dest" "$dir"/*
		rm -r --dir "$dir" || {
			nixErrorLog "$dir contains non-empty directories"
			exit 1
		}
	done
}

# Each .pc file's cudaroot=, libdir= (a value ending in /lib) and
# includedir= (ending in /include) point into the outputs; a file named
# <name>-<CUDA major.minor>.pc gets an unversioned link.
rewritePkgConfig() {
	local pc
	for pc in "$NIX_BUILD_TOP/$sourceRoot"/share/pkgconfig/*.pc; do
		[ -e "$pc" ] || continue
		sed -i \
			-e "s|^cudaroot\s*=.*\$|cudaroot=${!outputDev}|" \
			-e "s|^libdir\s*=.*/lib\$|libdir=${!outputLib}/lib|" \
			-e "s|^includedir\s*=.*/include\$|includedir=${!outputInclude}/include|" \
			"$pc"
	done
	for pc in "$NIX_BUILD_TOP/$sourceRoot"/share/pkgconfig/*-"$cudaMajorMinorVersion".pc; do
		[ -e "$pc" ] || continue
		ln -s "$(basename "$pc")" "${pc%-"$cudaMajorMinorVersion".pc}.pc"
	done
}

# /usr/ anywhere in an output (files named LICENSE excepted) fails, unless
# the package sets allowFHSReferences.
checkCudaFhsRefs() {
	local -a paths=()
	local outName found
	for outName in $(getAllOutputNames); do
		paths+=("${!outName}")
	done
	found=$(grep --max-count=5 --recursive --exclude=LICENSE /usr/ "${paths[@]}") || true
	if [ -n "$found" ]; then
		nixErrorLog "detected references to /usr: $found"
		exit 1
	fi
}

# Every output but out and the development output holds something besides
# nix-support.
checkCudaNonEmptyOutputs() {
	local outName entries
	local -a empty=()
	for outName in $(getAllOutputNames); do
		[ "$outName" != out ] && [ "$outName" != "$outputDev" ] || continue
		entries=$(find "${!outName}" -mindepth 1 -maxdepth 1 2>/dev/null) || true
		if [ -z "$entries" ] || [ "$entries" = "${!outName}/nix-support" ]; then
			empty+=("$outName")
		fi
	done
	if [ ${#empty[@]} -gt 0 ]; then
		nixErrorLog "detected empty (excluding nix-support) outputs: ${empty[*]}"
		exit 1
	fi
}

# An output holds stubs (it is named stubs, or holds a directory named
# stubs) exactly when it propagates removeStubsFromRunpathHook.
checkCudaHasStubsIffIncludeRemoveStubsFromRunpathHook() {
	local outName hasStubs hasHook
	local -a without=() with=()
	for outName in $(getAllOutputNames); do
		hasStubs=0 hasHook=0
		if [ "$outName" = stubs ] || [ -n "$(find "${!outName}" -mindepth 1 -type d -name stubs -print -quit 2>/dev/null)" ]; then
			hasStubs=1
		fi
		if grep -qs removeStubsFromRunpathHook "${!outName}/nix-support/propagated-native-build-inputs"; then
			hasHook=1
		fi
		if [ $hasStubs = 1 ] && [ $hasHook = 0 ]; then
			without+=("$outName")
		elif [ $hasStubs = 0 ] && [ $hasHook = 1 ]; then
			with+=("$outName")
		fi
	done
	[ ${#without[@]} -eq 0 ] || nixErrorLog "we detected outputs containing a stubs directory without a dependency on removeStubsFromRunpathHook: ${without[*]}"
	[ ${#with[@]} -eq 0 ] || nixErrorLog "we detected outputs without a stubs directory with a dependency on removeStubsFromRunpathHook: ${with[*]}"
	[ ${#without[@]} -eq 0 ] && [ ${#with[@]} -eq 0 ] || exit 1
}
