# The stand-in's removeStubsFromRunpathHook (see ../../README.md), written
# for debredist's tests with the semantics of nixpkgs'
# packages/removeStubsFromRunpathHook: an output with stubs propagates this
# file; in the build of a package that has it as an input, after fixup,
# every RUNPATH entry that is a CUDA package's lib/stubs becomes the driver's
# directory (once; later ones are dropped).
[ -z "${removeStubsFromRunpathHookOnce-}" ] || return 0
removeStubsFromRunpathHookOnce=1
postFixupHooks+=(removeStubsFromRunpath)

removeStubsFromRunpath() {
	local driverLib=/run/opengl-driver/lib outName file entry rpath seenDriver
	for outName in $(getAllOutputNames); do
		[ -e "${!outName}" ] || continue
		while IFS= read -r -d '' file; do
			[ -n "$(elfMachine "$file")" ] || continue
			rpath= seenDriver=
			for entry in $(patchelf --print-rpath "$file" | tr ':' ' '); do
				case $entry in
				*-cuda*/lib/stubs)
					[ -n "$seenDriver" ] && continue
					entry=$driverLib
					;;
				esac
				[ "$entry" != "$driverLib" ] || seenDriver=1
				rpath=${rpath:+$rpath:}$entry
			done
			patchelf --set-rpath "$rpath" "$file"
		done < <(find "${!outName}" -type f -print0)
	done
}
