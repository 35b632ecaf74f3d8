package archive

import (
	"fmt"
	"io"
	"runtime"

	"github.com/debredist/debredist/internal/lzma"
	"github.com/klauspost/compress/zstd"
)

// zstdLevels maps Options.Preset (1..4) to klauspost zstd encoder levels.
// The default (Preset 0) is zstd.SpeedBestCompression.
var zstdLevels = [...]zstd.EncoderLevel{
	1: zstd.SpeedFastest, 2: zstd.SpeedDefault, 3: zstd.SpeedBetterCompression, 4: zstd.SpeedBestCompression,
}

// zstdFormat is zstd: the presets are zstdLevels.
var zstdFormat = format{
	name:      "zstd",
	aliases:   []string{"zst"},
	ext:       ".tar.zst",
	maxPreset: len(zstdLevels) - 1,
	defPreset: len(zstdLevels) - 1,
	newWriter: newZstdWriter,
}

// newZstdWriter returns a parallel deterministic zstd encoder: every
// BlockSize block becomes an independent zstd frame (with content checksum),
// compressed by EncodeAll, which is a pure function of the block bytes and the
// level. Concatenated frames are a valid zstd stream for zstd(1) and tar.
func newZstdWriter(w io.Writer, workers, preset int, budget *Budget, blockSize int) (io.WriteCloser, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstdLevels[preset]),
		zstd.WithEncoderConcurrency(workers),
		zstd.WithEncoderCRC(true),
		zstd.WithWindowSize(lzma.DefaultDictSize), // as xz
		zstd.WithSingleSegment(false),
	)
	if err != nil {
		return nil, fmt.Errorf("archive: zstd: %w", err)
	}
	compress := func(src []byte) func() error {
		frame := enc.EncodeAll(src, make([]byte, 0, len(src)/2+64))
		return func() error {
			_, err := w.Write(frame)
			return err
		}
	}
	return newParallelWriter(workers, blockSize, budget, compress, enc.Close), nil
}
