// Package outdir reads an output directory (OUT) as debredist's own
// readers do, for other Go tools too: Open resolves OUT's current
// generation once and everything read through the Snapshot (manifests,
// provenance sidecars, archives) comes from that one generation, so a
// conversion switching OUT meanwhile never mixes two outputs (a removed
// generation is ErrReplaced: read again). OUT is untrusted: no symbolic
// link below it is followed except debredist's own product links and
// current (each resolved once), and only regular files are opened, never
// waiting on a named pipe or reading a device.
//
//	s, err := outdir.Open(out)
//	if err != nil { … }
//	defer s.Close()
//	for _, mf := range s.Manifests {
//		f, err := s.Open(mf) // a regular file of the generation
//		…
//	}
package outdir
