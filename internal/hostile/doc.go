// Package hostile generates debredist's hostile-input corpus: labelled .deb
// files and Packages indexes (path traversal, devices, bombs, corrupt
// streams, malformed ar/tar, odd indexes) with the verdict each must get.
// It is test tooling (testdata/hostile, cmd/mkhostile), not a library.
package hostile
