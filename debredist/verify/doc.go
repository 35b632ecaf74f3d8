// Package verify checks an output directory as its consumers will read
// it: Dir re-reads every manifest and each archive it names (size, sha256
// and md5, one top directory named like the file, entry safety, the
// license file, the provenance record) and the state of OUT's own links;
// Nixpkgs applies the rules of nixpkgs' generic CUDA builder (buildRedist)
// to every archive, as a build would.
//
// Both read one generation of OUT through debredist/outdir (no link
// followed, regular files only, sizes compared by stat before a byte is
// hashed), and Dir compares each manifest entry with its provenance
// record; DirSnapshot and NixpkgsSnapshot do the same on a Snapshot the
// caller holds.
//
// Both return a report of everything found wrong, never stopping at the
// first problem; the error is for failures to run at all. [Report.Err] and
// [NixpkgsReport.Err] turn the problems into one *Error, in the spirit of
// golang.org/x/mod/zip's CheckedFiles.
package verify
