package apt

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// MaxXZDictBytes is the largest xz dictionary Decompress accepts; the
// ulikunitz/xz reader allocates the whole dictionary up front.
const MaxXZDictBytes = 64 << 20

// maxZstdMemory bounds the zstd decoder's window and buffers.
const maxZstdMemory = 128 << 20

var (
	magicGzip  = []byte{0x1f, 0x8b}
	magicXZ    = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	magicZstd  = []byte{0x28, 0xb5, 0x2f, 0xfd}
	magicBzip2 = []byte{'B', 'Z', 'h'}
	magicLZ4   = []byte{0x04, 0x22, 0x4d, 0x18}
)

// UnsupportedCompressionError reports input whose magic bytes name a
// compression Decompress does not implement (lz4).
type UnsupportedCompressionError struct {
	Format string
}

func (e *UnsupportedCompressionError) Error() string {
	return "apt: unsupported compression " + e.Format
}

// Decompress sniffs the magic bytes of r (never a file name) and returns a
// reader of the decompressed bytes: gzip, xz, zstd, bzip2, or r unchanged when
// it starts with none of those (plain text). lz4 input yields an
// *UnsupportedCompressionError.
//
// Memory is bounded: zstd windows above 128 MiB and xz dictionaries above
// MaxXZDictBytes are refused. The xz dictionary is checked in the first block
// header only, since later headers cannot be located without decoding;
// single-block files (what apt-ftparchive and xz without -T write) are fully
// covered.
//
// Decompression bombs are refused by ratio: once the output passes
// RatioMinBytes it may not exceed MaxRatio times the compressed bytes read
// so far (a *BombError).
//
// Close releases the decoder; it does not close r.
func Decompress(r io.Reader) (io.ReadCloser, error) {
	in := &inCounter{r: r}
	rc, err := decompressStream(in)
	if err != nil {
		return nil, err
	}
	return &ratioReader{ReadCloser: rc, in: in}, nil
}

// MaxRatio and RatioMinBytes bound a compressed index's expansion: real
// Packages indexes compress 5-15x, a bomb 1,000x and more. The minimum is
// low because parsed stanzas take several times their text in memory.
const (
	MaxRatio      = 200
	RatioMinBytes = 16 << 20
)

// BombError reports a compressed index that expands past MaxRatio.
type BombError struct{ In, Out int64 }

func (e *BombError) Error() string {
	return fmt.Sprintf("apt: decompression bomb: %d compressed bytes expanded to more than %d (over MaxRatio=%dx past RatioMinBytes=%d)", e.In, e.Out, MaxRatio, RatioMinBytes)
}

// inCounter counts the compressed bytes read.
type inCounter struct {
	r io.Reader
	n int64
}

func (c *inCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ratioReader refuses output past MaxRatio times the compressed input.
type ratioReader struct {
	io.ReadCloser
	in  *inCounter
	out int64
}

func (r *ratioReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.out += int64(n)
	if r.out > RatioMinBytes && r.out/max(r.in.n, 1) >= MaxRatio {
		return 0, &BombError{In: r.in.n, Out: r.out}
	}
	return n, err
}

func decompressStream(r io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(12 + 1024) // xz stream header + largest block header
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("apt: sniffing compression: %w", err)
	}
	switch {
	case bytes.HasPrefix(head, magicGzip):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("apt: gzip header: %w", err)
		}
		return zr, nil
	case bytes.HasPrefix(head, magicXZ):
		if err := checkXZDict(head); err != nil {
			return nil, err
		}
		xr, err := xz.ReaderConfig{}.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("apt: xz header: %w", err)
		}
		return io.NopCloser(xr), nil
	case bytes.HasPrefix(head, magicZstd):
		zr, err := zstd.NewReader(br,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(maxZstdMemory),
			zstd.WithDecoderMaxWindow(maxZstdMemory))
		if err != nil {
			return nil, fmt.Errorf("apt: zstd: %w", err)
		}
		return zstdCloser{zr}, nil
	case isBzip2(head):
		return io.NopCloser(bzip2.NewReader(br)), nil
	case bytes.HasPrefix(head, magicLZ4):
		return nil, &UnsupportedCompressionError{Format: "lz4"}
	}
	return io.NopCloser(br), nil
}

type zstdCloser struct{ d *zstd.Decoder }

func (z zstdCloser) Read(p []byte) (int, error) { return z.d.Read(p) }
func (z zstdCloser) Close() error               { z.d.Close(); return nil }

// isBzip2 requires "BZh", a block size digit and a block or end-of-stream
// magic, so that text starting with "BZh" is not mistaken for bzip2.
func isBzip2(h []byte) bool {
	if len(h) < 10 || !bytes.HasPrefix(h, magicBzip2) || h[3] < '1' || h[3] > '9' {
		return false
	}
	m := h[4:10]
	return bytes.Equal(m, []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}) ||
		bytes.Equal(m, []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90})
}

// checkXZDict reads the dictionary size of the first block's LZMA2 filter
// from the stream header and block header in h (see the .xz file format,
// sections 2.1 and 3.1) and refuses sizes above MaxXZDictBytes. Anything it
// cannot interpret is left to the decoder, which validates the headers.
func checkXZDict(h []byte) error {
	const streamHeader = 12
	if len(h) < streamHeader+2 || h[streamHeader] == 0 { // 0 = index: no block
		return nil
	}
	bh := h[streamHeader:]
	size := (int(bh[0]) + 1) * 4
	if len(bh) < size {
		return nil
	}
	flags := bh[1]
	nfilters := int(flags&3) + 1
	p := 2
	varint := func() (uint64, bool) {
		v, n := binary.Uvarint(bh[p:size])
		if n <= 0 {
			return 0, false
		}
		p += n
		return v, true
	}
	if flags&0x40 != 0 {
		if _, ok := varint(); !ok {
			return nil
		}
	}
	if flags&0x80 != 0 {
		if _, ok := varint(); !ok {
			return nil
		}
	}
	for i := 0; i < nfilters; i++ {
		id, ok := varint()
		if !ok {
			return nil
		}
		psize, ok := varint()
		if !ok || p+int(psize) > size {
			return nil
		}
		if id == 0x21 && psize == 1 {
			bits := bh[p] & 0x3f
			if bits > 40 {
				return nil
			}
			var dict uint64
			if bits == 40 {
				dict = 1<<32 - 1
			} else {
				dict = uint64(2|(bits&1)) << (bits/2 + 11)
			}
			if dict > MaxXZDictBytes {
				return fmt.Errorf("apt: xz dictionary of %d bytes exceeds the limit of %d", dict, MaxXZDictBytes)
			}
		}
		p += int(psize)
	}
	return nil
}
