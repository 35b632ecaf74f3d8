// Package archive writes reproducible redistributable archives (deterministic
// PAX tar, parallel deterministic pure-Go xz or zstd, sha256/md5/NAR hashes in
// the same pass) and inspects archives for safety and hashes when reading back.
// It knows nothing of CUDA, debs or manifests: callers hand it a flat entry list.
package archive
