// Package hostile generates debredist's hostile-input corpus: labelled .deb
// files, Packages indexes and --profile files (path traversal, devices,
// bombs, corrupt streams, malformed ar/tar, odd indexes, profile names
// reaching outside OUT) with the verdict each must get.
// It is test tooling (testdata/hostile, cmd/mkhostile), not a library.
package hostile
