package redist

// SBOMPrefix starts the names of the bills of materials written beside a
// manifest (debredist sbom, convert --sbom); like the sidecar they are
// never named redistrib_*.
const SBOMPrefix = "debredist-sbom_"

// SBOMNames are the file names of the SPDX 2.3 and CycloneDX 1.6 JSON
// documents of the manifest of a label.
func SBOMNames(label string) (spdx, cyclonedx string) {
	return SBOMPrefix + label + ".spdx.json", SBOMPrefix + label + ".cdx.json"
}
