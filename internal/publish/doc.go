// Package publish owns debredist's output directory OUT: its generations
// (OUT/.debredist/gen-N, switched to with one rename of
// OUT/.debredist/current), the product links, the OUT mutex, the temporary
// directory, read-only detection, what a killed run leaves (pruned and
// repaired) and the migration of output written before generations.
// Reading OUT is debredist/outdir's.
//
// It knows nothing of debs or CUDA: what goes into a generation is the
// caller's.
package publish
