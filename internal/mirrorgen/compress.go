package mirrorgen

import (
	"bytes"
	"fmt"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// Compress compresses a deb member deterministically with encoders pinned
// in go.mod (ulikunitz/xz, klauspost gzip and zstd), so that the sample
// mirror's bytes depend only on mirrorgen and its module versions. The xz
// dictionary is sized to the input (a power of two, 4 KiB to 64 MiB): the
// library's 8 MiB default allocates ~70 MB of match tables per writer, which
// dominated generating hundreds of tiny debs.
func Compress(kind string, b []byte) (suffix string, out []byte, err error) {
	var buf bytes.Buffer
	switch kind {
	case "xz":
		dict := 4 << 10
		for dict < len(b) && dict < 64<<20 {
			dict <<= 1
		}
		w, err := xz.WriterConfig{DictCap: dict}.NewWriter(&buf)
		if err != nil {
			return "", nil, fmt.Errorf("xz: %w", err)
		}
		if _, err := w.Write(b); err != nil {
			return "", nil, fmt.Errorf("xz: %w", err)
		}
		if err := w.Close(); err != nil {
			return "", nil, fmt.Errorf("xz: %w", err)
		}
		return ".xz", buf.Bytes(), nil
	case "gzip":
		w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			return "", nil, fmt.Errorf("gzip: %w", err)
		}
		if _, err := w.Write(b); err != nil {
			return "", nil, fmt.Errorf("gzip: %w", err)
		}
		if err := w.Close(); err != nil {
			return "", nil, fmt.Errorf("gzip: %w", err)
		}
		return ".gz", buf.Bytes(), nil
	case "zstd":
		w, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true),
			zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithWindowSize(1<<20))
		if err != nil {
			return "", nil, fmt.Errorf("zstd: %w", err)
		}
		if _, err := w.Write(b); err != nil {
			_ = w.Close()
			return "", nil, fmt.Errorf("zstd: %w", err)
		}
		if err := w.Close(); err != nil {
			return "", nil, fmt.Errorf("zstd: %w", err)
		}
		return ".zst", buf.Bytes(), nil
	case "none":
		return "", b, nil
	}
	return "", nil, fmt.Errorf("unsupported compression %q", kind)
}
