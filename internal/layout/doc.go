// Package layout is the normalization engine: it turns the union of the
// entries of one redist package's debs (paths in Debian's filesystem layout)
// into a redist tree in NVIDIA's archive layout, by the declarative path,
// link and license rules of the profile. Every output path records the deb
// and path it came from; every input path is placed, dropped on purpose or
// reported as an error, never silently lost.
//
// It works on metadata only: content is referenced, not held, so memory does
// not grow with file sizes. It does not read debs, compress or hash.
package layout
