// Package fetch downloads apt indexes and .deb files from a mirror (https,
// http, file:// or a plain directory) into a verified, content-addressed cache,
// with retries, resume, stall detection, progress events and Release signature
// checking. It does not parse Packages files itself (see debredist/apt) and does
// not know what a deb contains (see internal/deb).
//
// # Cache layout
//
// A verified deb lives at <CacheDir>/sha256/<aa>/<hex>.deb, where <hex> is its
// lower-case sha256 and <aa> the first two hex digits. Next to it the package
// uses two more names, never mistaken for an entry:
//
//   - <hex>.lock: the per-file lock (flock(2)) held while a download or repair
//     of that entry is in progress; lock files are left in place on purpose
//     (deleting them would race with a waiting process).
//   - <hex>.partial: the download in progress, only ever written under the lock.
//     After a failed attempt it is resumed with an HTTP Range request; after the
//     final failure it is removed. A .partial left by a killed process is
//     resumed (and still fully verified) by the next download of that hash.
//
// A file is renamed to <hex>.deb only after its size and sha256 matched and it
// was fsynced, so an entry is either absent or complete.
// An entry may still change on disk later: readers open it with OpenEntry,
// which hashes what they read (Verify), and Evict removes an entry found
// corrupt so that the next Fetch downloads it again.
package fetch
