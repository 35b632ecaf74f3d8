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
package debredist
