package entry

// Limits bound what one deb may make a reader consume (debredist's deb
// reader reads by them; debredist.DebLimits is this type). Zero fields
// take the defaults.
//
// Decompression bombs are stopped by expansion ratio as well as by size:
// once a member has produced RatioMinBytes, its output may not exceed
// MaxRatio times the compressed bytes read from it so far (a running
// ratio, so a bomb is refused after RatioMinBytes, not after MaxRatio
// times its whole size); and all members together may not produce more
// than max(RatioMinBytes, MaxDebRatio × the deb's size) when that size is
// known. Measured on Debian's CUDA 11.8 arm64 debs (up to the 667 MB
// nvidia-cuda-dev): whole debs expand at most 9.4x, and the running ratio
// past 64 MiB peaks at 37x (nvidia-cuda-dev, whose first 64 MiB are
// headers); zero-filled bombs expand 1,000-30,000x. MaxRatio stays low
// enough that a bomb is refused having produced under 100 MB, with the
// compressed bytes read ahead by the decoders counted.
type Limits struct {
	MaxBytes        int64 // total uncompressed data.tar bytes (headers included); default 16 GiB
	MaxEntries      int   // data.tar entries; default 1_000_000
	MaxNameLen      int   // entry name and link target length; default 4096
	MaxControlBytes int64 // control.tar uncompressed; default 16 MiB
	MaxWindow       int64 // xz/lzma dictionary and zstd window; default and most 64 MiB (the decoders' own bound)
	MaxRatio        int64 // per member: uncompressed/compressed bytes read so far; default 200
	RatioMinBytes   int64 // ratio limits apply past this much output; default 64 MiB
	MaxDebRatio     int64 // all members' output over the deb's size; default 100
	// MinEntryBytes: a deb of known size may hold at most
	// max(16384, size/MinEntryBytes) entries (default 64 bytes of deb per
	// entry). An empty file or directory compresses to a few bytes, so a
	// 1.5 MB deb can declare a million of them; real debs use hundreds of
	// bytes per entry at least (header-only debs) and Debian's CUDA debs
	// megabytes.
	MinEntryBytes int64
}
