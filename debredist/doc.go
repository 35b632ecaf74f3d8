// Package debredist turns NVIDIA Jetson (L4T) .deb packages into
// NVIDIA-style CUDA redistributables: redist-shaped archives and
// redistrib_<label>.json manifests, byte-reproducible, for JetPack 5, 6
// and 7.
//
// The pipeline: a Profile names a release; Plan reads the apt indexes (or a
// lock file) and groups the debs into redist packages; Convert fetches them
// into a verified cache, normalizes each package's files into NVIDIA's
// archive layout, writes deterministic archives, manifests, LICENSE files
// and a provenance record, and verifies what it wrote; Verify re-checks an
// output directory later.
//
// The package prints nothing, parses no flags and never exits: progress
// arrives as Events through Options.OnEvent, failures as errors that name
// the package, deb, path or URL concerned.
//
// # Errors
//
// Every failure a caller may branch on is a public type of this package,
// found with errors.As whatever wraps it:
//
//   - *DebError: a deb that cannot be read or extracted safely; its Kind
//     says why (DebFormat, DebUnsafePath, DebDevice, DebLimit for
//     decompression bombs and other bounds, DebCompression, DebTruncated,
//     DebExists, DebIO) and Deb, Member and Entry say where.
//   - *HTTPError, *HashMismatchError, *MissingError (offline),
//     *SignatureError (Options.Keyring), *CorruptCacheError: downloads and
//     the cache; *IndexError: a repo's Packages index that cannot be
//     fetched, verified against its Release or parsed (Repo and Suite say
//     which).
//   - *UnplacedError, *ConflictError, *LinkError: a redist package whose
//     deb paths the profile's layout rules cannot place.
//   - *VersionError: a redist package whose debs disagree on the version.
//   - *ProfileError, *LockFileError, *UsageError: inputs the user named.
//   - *VerifyError: what Verify, VerifyNixpkgs or Convert's check of its
//     own output found wrong, as Problems (a path and an error each, like
//     x/mod/zip's FileError).
//
// The messages name the deb, member, entry, URL or package concerned;
// context.Canceled and the os errors stay reachable with errors.Is.
//
// # Options
//
// One Options struct serves Plan, Fetch, Convert and Inventory (and,
// embedded, DiffOptions) rather than one struct per function or functional
// options: every call is the same pipeline cut at a different stage (Convert
// is Plan, then Fetch, then the build), so each later stage reads all the
// fields of the earlier ones and a split would make callers copy the same
// fields between structs. The fields only Convert reads (Out, Compression,
// Preset, MTime) say "(Convert)" and are ignored by Plan and Fetch;
// Options.Check validates what every stage reads, and
// CheckConvert adds what only Convert needs, so the CLI and the library
// give the same answers.
package debredist
