// Package sbom writes the software bill of materials of a converted
// release: SPDX 2.3 JSON (github.com/spdx/tools-golang) or CycloneDX 1.6
// JSON (github.com/CycloneDX/cyclonedx-go), from an Input that Read reads
// out of OUT's manifests, provenance sidecars, LICENSE files and archives
// (through one outdir.Snapshot, each archive hashed and checked against its
// manifest and provenance record). Each package carries, beside its purl,
// the CPE 2.3 of its product as NVIDIA's security bulletins and NVD name it
// (cpe.json: the table, with the evidence for each name).
//
// Write does no I/O: the same Input gives the same bytes. The creation time
// is the Input's (the release date or SOURCE_DATE_EPOCH), and the SPDX
// document namespace and the CycloneDX serial number are derived from the
// document's own content. Every string of an Input comes from files in
// OUT, which are not trusted: Input.Check refuses what could not be written
// faithfully (control characters, malformed hashes, unsafe paths) and names
// the file and field.
package sbom
