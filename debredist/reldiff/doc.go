// Package reldiff compares two L4T releases as debredist would convert them:
// per product and redist component, what was added or removed, which
// versions moved, which debs came, went or were renamed, and (given the
// layout trees of both sides) which in-archive paths appeared, disappeared,
// changed type or link target, and which deb paths the new release has that
// no layout rule places.
//
// It compares plans (package plan) and the layout trees a conversion made;
// it reads no index, downloads nothing and never decides a layout itself.
package reldiff
