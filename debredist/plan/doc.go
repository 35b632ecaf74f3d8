// Package plan groups the binary debs of an L4T suite's common repository
// into redist packages: one per Debian source (with the profile's name
// overrides), one version per package, meta-packages, ld.so plumbing and
// other CUDA versions or variants left out with a stated reason.
//
// It decides what is converted, not how: it downloads and reads nothing.
package plan
