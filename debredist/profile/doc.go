// Package profile holds debredist's release data: which L4T suite, repos,
// CUDA version, redist platform and target directory make up a JetPack
// release, plus the grouping table (Debian source -> redist package) and the
// normalization rules the layout engine applies. Everything here is data,
// embedded with go:embed and overridable by a user's profile file, so adding
// an L4T release needs a data change, never a code change.
//
// It does not group, fetch or normalize anything itself. It is public so
// that tools importing debredist can read, write and check profile files
// ([Load], [LoadFile], [Builtin], [Profile.Merged]) with the same types
// debredist uses.
package profile
