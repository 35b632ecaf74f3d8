package xz

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"math"
	"slices"

	"github.com/ulikunitz/xz/lzma"
)

// ErrLimit reports input beyond a decoder memory limit (a dictionary or
// window larger than the caller allows).
var ErrLimit = errors.New("decoder memory limit exceeded")

// DefaultMaxDict is NewReader's dictionary limit when none is given: 64
// MiB, the dictionary of xz -9.
const DefaultMaxDict = 64 << 20

// NewReader returns a strict, memory-bounded decoder of the .xz stream in
// r, the one xz decoder of debredist for untrusted input (apt indexes, deb
// members, archives being verified). Every block header is checked before
// its decoder allocates: LZMA2 must be the only filter and its dictionary
// at most maxDict bytes (DefaultMaxDict when maxDict <= 0), else the error
// wraps ErrLimit. It verifies header, block and index CRCs, the per-block
// check (none, CRC32, CRC64, SHA-256), sizes declared in block headers, the
// index against the blocks read, and the stream footer. Concatenated
// streams and stream padding are accepted.
func NewReader(r *bufio.Reader, maxDict int64) (io.Reader, error) {
	if maxDict <= 0 {
		maxDict = DefaultMaxDict
	}
	x := &reader{r: r, maxDict: maxDict}
	if err := x.streamHeader(); err != nil {
		return nil, err
	}
	return x, nil
}

// reader is NewReader's decoder.
type reader struct {
	r        *bufio.Reader
	maxDict  int64
	flags    [2]byte
	records  []record
	block    io.Reader         // current LZMA2 reader, nil between blocks
	src      *io.LimitedReader // its compressed input; N counts down from limit
	limit    int64
	check    hash.Hash
	checkLen int
	bh       blockHeader
	usize    int64
	done     bool
	err      error
}

func (x *reader) streamHeader() error {
	var h [StreamHeaderSize]byte
	if _, err := io.ReadFull(x.r, h[:]); err != nil {
		return xzErr("stream header: %w", noEOF(err))
	}
	flags, err := parseStreamHeader(h[:])
	if err != nil {
		return err
	}
	x.flags = flags
	x.records = x.records[:0]
	return nil
}

func (x *reader) newCheck() (hash.Hash, int, error) {
	switch x.flags[1] {
	case CheckNone:
		return nil, 0, nil
	case CheckCRC32:
		return crc32.NewIEEE(), 4, nil
	case CheckCRC64:
		return crc64.New(crc64Table), 8, nil
	case CheckSHA256:
		return sha256.New(), 32, nil
	}
	return nil, 0, xzErr("unsupported check type %#x", x.flags[1])
}

func (x *reader) Read(p []byte) (int, error) {
	for x.err == nil {
		if x.block != nil {
			n, err := x.block.Read(p)
			if n > 0 {
				x.usize += int64(n)
				if x.check != nil {
					x.check.Write(p[:n])
				}
				if x.bh.uncompressed >= 0 && x.usize > x.bh.uncompressed {
					x.err = xzErr("block longer than its declared uncompressed size")
					return 0, x.err
				}
			}
			if err == io.EOF {
				x.err = x.endBlock()
			} else if err != nil {
				x.err = xzErr("lzma2: %w", noEOF(err))
			}
			if n > 0 {
				return n, nil
			}
			continue
		}
		if x.done {
			return 0, io.EOF
		}
		x.err = x.next()
	}
	return 0, x.err
}

// next reads a block header and starts the block, or reads the index and
// footer when the next byte is the index indicator.
func (x *reader) next() error {
	b, err := x.r.ReadByte()
	if err != nil {
		return xzErr("block header: %w", noEOF(err))
	}
	if b == 0 {
		return x.index()
	}
	h := make([]byte, (int(b)+1)*4)
	h[0] = b
	if _, err := io.ReadFull(x.r, h[1:]); err != nil {
		return xzErr("block header: %w", noEOF(err))
	}
	bh, err := parseBlockHeader(h, x.maxDict)
	if err != nil {
		return err
	}
	// A dictionary larger than the block's declared content is never used:
	// cap it so tiny hostile blocks cannot each allocate maxDict bytes.
	dc := bh.dict
	if bh.uncompressed >= 0 && bh.uncompressed < dc {
		dc = bh.uncompressed
	}
	x.bh = bh
	x.check, x.checkLen, err = x.newCheck()
	if err != nil {
		return err
	}
	x.limit = math.MaxInt64
	if bh.compressed >= 0 {
		x.limit = bh.compressed
	}
	x.src = &io.LimitedReader{R: x.r, N: x.limit}
	x.usize = 0
	lr, err := lzma.Reader2Config{DictCap: int(max(dc, lzma.MinDictCap))}.NewReader2(x.src)
	if err != nil {
		return xzErr("lzma2: %w", err)
	}
	x.block = lr
	x.records = append(x.records, record{}) // filled by endBlock
	return nil
}

func (x *reader) endBlock() error {
	x.block = nil
	csize := x.limit - x.src.N
	if x.bh.compressed >= 0 && csize != x.bh.compressed {
		return xzErr("block compressed size %d, header says %d", csize, x.bh.compressed)
	}
	if x.bh.uncompressed >= 0 && x.usize != x.bh.uncompressed {
		return xzErr("block uncompressed size %d, header says %d", x.usize, x.bh.uncompressed)
	}
	var pad [3]byte
	np := int((4 - csize%4) % 4)
	if _, err := io.ReadFull(x.r, pad[:np]); err != nil {
		return xzErr("block padding: %w", noEOF(err))
	}
	if pad != [3]byte{} {
		return xzErr("non-zero block padding")
	}
	if x.checkLen > 0 {
		got := make([]byte, x.checkLen)
		if _, err := io.ReadFull(x.r, got); err != nil {
			return xzErr("block check: %w", noEOF(err))
		}
		want := x.check.Sum(nil)
		if x.flags[1] != CheckSHA256 { // CRCs are stored little-endian
			slices.Reverse(want)
		}
		if !bytes.Equal(got, want) {
			return xzErr("block check (%s) mismatch: data corrupted", checkString(x.flags[1]))
		}
	}
	x.records[len(x.records)-1] = record{unpadded: x.bh.size + csize + int64(x.checkLen), uncompressed: x.usize}
	return nil
}

func checkString(t byte) string {
	switch t {
	case CheckCRC32:
		return "CRC32"
	case CheckCRC64:
		return "CRC64"
	case CheckSHA256:
		return "SHA-256"
	}
	return "none"
}

// index reads and verifies the index (its indicator byte already consumed)
// and the stream footer, then moves on to stream padding or the next stream.
func (x *reader) index() error {
	indexSize, err := readIndex(x.r, x.records)
	if err != nil {
		return err
	}
	var f [StreamHeaderSize]byte
	if _, err := io.ReadFull(x.r, f[:]); err != nil {
		return xzErr("stream footer: %w", noEOF(err))
	}
	if err := checkStreamFooter(f[:], x.flags, indexSize); err != nil {
		return err
	}
	// Stream padding (multiples of four zero bytes), then EOF or a new stream.
	for {
		b, err := x.r.Peek(4)
		if len(b) == 0 && err == io.EOF {
			x.done = true
			return nil
		}
		if len(b) < 4 {
			if err != nil && err != io.EOF {
				return err // the input failed (a member cut short): that is the cause
			}
			return xzErr("trailing garbage after stream")
		}
		if !bytes.Equal(b, []byte{0, 0, 0, 0}) {
			break
		}
		_, _ = x.r.Discard(4) // the 4 bytes peeked above
	}
	return x.streamHeader()
}
