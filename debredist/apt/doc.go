// Package apt reads the apt side of an L4T repository: Packages indexes
// (streaming, any compression), Release files, Debian version selection, the
// Jetson repository layout and its URLs, and lock files that pin a deb set.
// It does no network or file I/O of its own: callers hand it readers and URLs.
package apt
