// Package hostile is debredist's hostile-input corpus: labelled .deb
// files, Packages indexes and --profile files (path traversal, devices,
// bombs, corrupt streams, malformed ar/tar, odd indexes, profile names
// reaching outside OUT) with the verdict each must get. The debs and the
// indexes that are not text are generated here, at test time; the text
// cases are txtar archives in testdata/hostile (its README says which is
// where and why). It is test tooling, not a library.
package hostile
