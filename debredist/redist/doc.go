// Package redist is the format of NVIDIA's CUDA redistributables as
// debredist writes and reads them: the redistrib_<label>.json manifest
// (Manifest, in NVIDIA's layout), the archive names, and the provenance
// sidecar written beside each manifest (how every archive was made).
//
// A tool that only reads redist manifests imports just this package:
//
//	m, err := redist.ReadManifest(f)
//	for name, c := range m.Components {
//		for _, a := range c.Artifacts() {
//			fmt.Println(name, a.Platform, a.Artifact.RelativePath, a.Artifact.SHA256)
//		}
//	}
//
// It does no I/O of its own beyond the readers and writers it is given.
package redist
