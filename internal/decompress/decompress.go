// Package decompress is the one compression-sniffing layer of debredist:
// magic bytes, the xz dictionary check made before any decoder allocates,
// and the one set of decoder memory limits. The apt index reader, the deb
// member reader and the archive inspector all sniff and bound their input
// here; each keeps its own expansion-ratio (bomb) guard, which depends on
// what the output is.
//
// Limits: MaxWindow bounds every xz/lzma dictionary and zstd window (and
// the zstd decoder's memory) on untrusted input: 64 MiB, what xz -9 uses;
// real NVIDIA debs and apt indexes use 8 MiB or less. A dictionary code
// outside the xz format's range (above 40) is an error (ErrDictCode), never
// read as "huge" or left to the decoder.
package decompress

import (
	"io"
	"math"

	"github.com/klauspost/compress/zstd"

	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// MaxWindow is the largest xz/lzma dictionary and zstd window accepted.
const MaxWindow = 64 << 20

// Format is a compression recognised by its magic bytes.
type Format int

const (
	None Format = iota // no known magic: plain data
	Gzip
	XZ
	Zstd
	Bzip2
	LZ4
)

func (f Format) String() string {
	return [...]string{"none", "gzip", "xz", "zstd", "bzip2", "lz4"}[f]
}

// Magic bytes of the formats.
var (
	MagicGzip  = []byte{0x1f, 0x8b}
	MagicXZ    = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	MagicZstd  = []byte{0x28, 0xb5, 0x2f, 0xfd}
	MagicBzip2 = []byte("BZh")
	MagicLZ4   = []byte{0x04, 0x22, 0x4d, 0x18}
)

// HeadSize is how many leading bytes Sniff and XZDict want: the xz stream
// header and the largest block header.
const HeadSize = 12 + 1024

// Sniff names the compression of a stream from its first bytes (up to
// HeadSize; fewer at the end of the input). bzip2 needs "BZh", a block size
// digit and a block or end-of-stream magic, so that text starting with
// "BZh" is not mistaken for it.
func Sniff(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, MagicGzip):
		return Gzip
	case bytes.HasPrefix(head, MagicXZ):
		return XZ
	case bytes.HasPrefix(head, MagicZstd):
		return Zstd
	case isBzip2(head):
		return Bzip2
	case bytes.HasPrefix(head, MagicLZ4):
		return LZ4
	}
	return None
}

func isBzip2(h []byte) bool {
	if len(h) < 10 || !bytes.HasPrefix(h, MagicBzip2) || h[3] < '1' || h[3] > '9' {
		return false
	}
	m := h[4:10]
	return bytes.Equal(m, []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}) ||
		bytes.Equal(m, []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90})
}

// ErrDictCode reports an LZMA2 dictionary size code above 40.
var ErrDictCode = errors.New("invalid LZMA2 dictionary size code")

// DictSize decodes an LZMA2 dictionary size code (xz format 5.3.1):
// 2^(code/2+12) or 3*2^(code/2+11) bytes, 4 GiB-1 for 40.
func DictSize(code byte) (int64, error) {
	switch {
	case code > 40:
		return 0, fmt.Errorf("%w %d", ErrDictCode, code)
	case code == 40:
		return 1<<32 - 1, nil
	}
	return int64(2|(code&1)) << (code/2 + 11), nil
}

// XZDict returns the LZMA2 dictionary size declared in the first block
// header of an xz stream; head starts at the stream header (see HeadSize).
// ok is false when there is no block or the header cannot be read (left to
// the decoder, which validates it); later blocks' headers cannot be located
// without decoding, so single-block streams are fully covered. An invalid
// dictionary code is an error wrapping ErrDictCode.
func XZDict(head []byte) (dict int64, ok bool, err error) {
	const streamHeader = 12
	if len(head) < streamHeader+2 || head[streamHeader] == 0 { // 0: index, no block
		return 0, false, nil
	}
	bh := head[streamHeader:]
	size := (int(bh[0]) + 1) * 4
	if len(bh) < size {
		return 0, false, nil
	}
	flags := bh[1]
	p := 2
	varint := func() (uint64, bool) {
		v, n := binary.Uvarint(bh[p:size])
		if n <= 0 || n > 9 {
			return 0, false
		}
		p += n
		return v, true
	}
	for _, present := range []bool{flags&0x40 != 0, flags&0x80 != 0} { // compressed, uncompressed size
		if present {
			if _, ok := varint(); !ok {
				return 0, false, nil
			}
		}
	}
	for range int(flags&3) + 1 {
		id, ok := varint()
		if !ok {
			return 0, false, nil
		}
		psize, ok := varint()
		if !ok || psize > uint64(size-p) {
			return 0, false, nil
		}
		if id == 0x21 && psize == 1 {
			d, err := DictSize(bh[p])
			return d, err == nil, err
		}
		p += int(psize)
	}
	return 0, false, nil
}

// NewZstd returns a streaming zstd decoder of r whose window (the memory a
// stream decoder holds) is bounded by MaxWindow, or by a smaller window when
// one is given (window > 0), with the given number of decoding goroutines
// (at least 1). The frame content size is not bounded here: a streaming
// decoder never holds a whole frame, and the callers' ratio guards bound the
// output.
func NewZstd(r io.Reader, window int64, concurrency int) (*zstd.Decoder, error) {
	if window <= 0 || window > MaxWindow {
		window = MaxWindow
	}
	return zstd.NewReader(r,
		zstd.WithDecoderConcurrency(max(concurrency, 1)),
		zstd.WithDecoderMaxMemory(math.MaxInt64),
		zstd.WithDecoderMaxWindow(uint64(window)))
}
