package archive

import (
	"fmt"
	"io"
	"runtime"

	"github.com/debredist/debredist/internal/lzma"
	"github.com/debredist/debredist/internal/xz"
)

// BlockSize is the number of uncompressed bytes in each independently
// compressed xz block or zstd frame. It is a constant, never derived from the
// machine, so that the output bytes do not depend on where they are produced.
// 24 MiB is three xz dictionaries, as xz -T uses: on real NVIDIA libraries
// the start of every block compresses worse (no history), and 8 MiB blocks
// were 6 % larger than 24 MiB ones.
const BlockSize = 24 << 20

// DefaultPreset is the xz preset used when Options.Preset is 0: the
// internal/lzma level lzma.DefaultLevel (price-based optimal parsing over a
// hash chain of depth 4, 8 MiB dictionary, lc=3 lp=0 pb=2), CRC64 check.
// Options.Preset n is lzma.Level(n).
const DefaultPreset = lzma.DefaultLevel

// NewXZWriter returns a parallel deterministic xz encoder writing to w with
// the default preset. The input is split into BlockSize blocks compressed by
// up to workers goroutines (0 means runtime.GOMAXPROCS(0)); the output is a
// single xz stream (one block per BlockSize input bytes, each block header
// carrying compressed and uncompressed sizes, CRC64 checks, a full index) and
// is byte-identical for any workers value. Close writes the index and footer
// but does not close w.
func NewXZWriter(w io.Writer, workers int) io.WriteCloser {
	zw, _ := newXZWriter(w, workers, DefaultPreset, nil, BlockSize)
	return zw
}

// xzFormat is xz: the presets are internal/lzma's levels.
var xzFormat = format{
	name:      "xz",
	ext:       ".tar.xz",
	maxPreset: lzma.MaxLevel,
	defPreset: DefaultPreset,
	newWriter: newXZWriter,
}

func newXZWriter(w io.Writer, workers, preset int, budget *Budget, blockSize int) (io.WriteCloser, error) {
	params, err := lzma.Level(preset)
	if err != nil {
		return nil, fmt.Errorf("archive: xz preset %d out of range 1..%d", preset, lzma.MaxLevel)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	s := xz.NewStream(w)
	compress := func(src []byte) func() error {
		b := xz.EncodeBlock(src, params)
		return func() error { return s.WriteBlock(b) }
	}
	return newParallelWriter(workers, blockSize, budget, compress, s.Close), nil
}
