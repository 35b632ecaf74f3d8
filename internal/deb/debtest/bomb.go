package debtest

import (
	"bytes"
	"fmt"
	"time"
)

// BombChunk is the run of zeros one compressed stream of a bomb holds.
const BombChunk = 4 << 20

// BombDataMember returns a compressed data.tar member ("xz" or "zstd")
// holding files regular files dir/zeroN of size zero bytes each (size a
// multiple of BombChunk), as a concatenation of small compressed streams:
// one per tar header and one, repeated, per BombChunk of zeros. A bomb
// expanding to 12 GiB is thus built in well under a second and is a few
// hundred KB (zstd) or a few MB (xz) long; every decoder of either format
// reads concatenated streams as one.
func BombDataMember(compression, dir string, files int, size int64) ([]byte, error) {
	if size%BombChunk != 0 {
		return nil, fmt.Errorf("debtest: bomb file size %d is not a multiple of %d", size, BombChunk)
	}
	chunk, err := Compress(compression, make([]byte, BombChunk))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for i := range files {
		h, err := Compress(compression, RawTarHeader(fmt.Sprintf("./%s/zero%d", dir, i), '0', int(size), time.Unix(0, 0)))
		if err != nil {
			return nil, err
		}
		out.Write(h)
		for range size / BombChunk {
			out.Write(chunk)
		}
	}
	end, err := Compress(compression, make([]byte, 1024))
	if err != nil {
		return nil, err
	}
	out.Write(end)
	return out.Bytes(), nil
}
