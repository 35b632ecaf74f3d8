package decompress

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"

	"github.com/ulikunitz/xz/lzma"
)

// ErrLimit reports input beyond a decoder memory limit (a dictionary or
// window larger than the caller allows).
var ErrLimit = errors.New("decoder memory limit exceeded")

// xz container constants (https://tukaani.org/xz/xz-file-format.txt).
const (
	xzCheckNone   = 0x00
	xzCheckCRC32  = 0x01
	xzCheckCRC64  = 0x04
	xzCheckSHA256 = 0x0A
	xzFilterLZMA2 = 0x21
)

var (
	xzFooterMagic = []byte{'Y', 'Z'}
	crc64Table    = crc64.MakeTable(crc64.ECMA)
)

// NewXZ returns a strict, memory-bounded decoder of the .xz stream in r,
// the one xz decoder of debredist for untrusted input (apt indexes, deb
// members, archives being verified). Every block header is checked before
// its decoder allocates: LZMA2 must be the only filter and its dictionary
// at most maxDict bytes (MaxWindow when maxDict <= 0), else the error wraps
// ErrLimit. It verifies header, block and index CRCs, the per-block check
// (none, CRC32, CRC64, SHA-256), sizes declared in block headers, the index
// against the blocks read, and the stream footer. Concatenated streams and
// stream padding are accepted.
func NewXZ(r *bufio.Reader, maxDict int64) (io.Reader, error) {
	if maxDict <= 0 || maxDict > MaxWindow {
		maxDict = MaxWindow
	}
	x := &xzReader{r: r, maxDict: maxDict}
	if err := x.streamHeader(); err != nil {
		return nil, err
	}
	return x, nil
}

type xzRecord struct{ unpadded, uncompressed int64 }

// xzReader is NewXZ's decoder.
type xzReader struct {
	r        *bufio.Reader
	maxDict  int64
	flags    []byte
	records  []xzRecord
	block    io.Reader // current LZMA2 reader, nil between blocks
	cr       *countingReader
	check    hash.Hash
	checkLen int
	bh       blockHdr
	usize    int64
	done     bool
	err      error
}

type blockHdr struct {
	compressed, uncompressed int64 // -1 when absent
	dictCap                  int
	hsize                    int64
}

var errXZ = errors.New("xz")

func xzErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errXZ}, args...)...)
}

func (x *xzReader) streamHeader() error {
	var h [12]byte
	if _, err := io.ReadFull(x.r, h[:]); err != nil {
		return xzErr("stream header: %w", noEOF(err))
	}
	if !bytes.Equal(h[:6], MagicXZ) {
		return xzErr("bad stream magic")
	}
	if crc32.ChecksumIEEE(h[6:8]) != binary.LittleEndian.Uint32(h[8:]) {
		return xzErr("stream header CRC mismatch")
	}
	if h[6] != 0 || h[7]&0xF0 != 0 {
		return xzErr("unsupported stream flags %x", h[6:8])
	}
	x.flags = []byte{h[6], h[7]}
	x.records = x.records[:0]
	return nil
}

// noEOF turns io.EOF into io.ErrUnexpectedEOF: the stream ended early.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (x *xzReader) newCheck() (hash.Hash, int, error) {
	switch x.flags[1] {
	case xzCheckNone:
		return nil, 0, nil
	case xzCheckCRC32:
		return crc32.NewIEEE(), 4, nil
	case xzCheckCRC64:
		return crc64.New(crc64Table), 8, nil
	case xzCheckSHA256:
		return sha256.New(), 32, nil
	}
	return nil, 0, xzErr("unsupported check type %#x", x.flags[1])
}

func (x *xzReader) Read(p []byte) (int, error) {
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
func (x *xzReader) next() error {
	b, err := x.r.ReadByte()
	if err != nil {
		return xzErr("block header: %w", noEOF(err))
	}
	if b == 0 {
		return x.index()
	}
	hsize := (int(b) + 1) * 4
	h := make([]byte, hsize)
	h[0] = b
	if _, err := io.ReadFull(x.r, h[1:]); err != nil {
		return xzErr("block header: %w", noEOF(err))
	}
	if crc32.ChecksumIEEE(h[:hsize-4]) != binary.LittleEndian.Uint32(h[hsize-4:]) {
		return xzErr("block header CRC mismatch")
	}
	flags := h[1]
	if flags&0x3C != 0 {
		return xzErr("reserved block flags set")
	}
	if flags&0x03 != 0 {
		return xzErr("unsupported filter chain (only a single LZMA2 filter is accepted)")
	}
	body := bytes.NewReader(h[2 : hsize-4])
	bh := blockHdr{compressed: -1, uncompressed: -1}
	if flags&0x40 != 0 {
		v, err := readXZVarint(body)
		if err != nil || v == 0 {
			return xzErr("bad compressed size in block header")
		}
		bh.compressed = int64(v)
	}
	if flags&0x80 != 0 {
		v, err := readXZVarint(body)
		if err != nil {
			return xzErr("bad uncompressed size in block header")
		}
		bh.uncompressed = int64(v)
	}
	id, err1 := readXZVarint(body)
	psize, err2 := readXZVarint(body)
	prop, err3 := body.ReadByte()
	if err1 != nil || err2 != nil || err3 != nil || id != xzFilterLZMA2 || psize != 1 {
		return xzErr("unsupported filter %#x (only LZMA2 is accepted)", id)
	}
	dc, err := DictSize(prop)
	if err != nil {
		return xzErr("%w", err)
	}
	if dc > x.maxDict {
		return xzErr("LZMA2 dictionary of %d bytes exceeds the limit of %d: %w", dc, x.maxDict, ErrLimit)
	}
	// A dictionary larger than the block's declared content is never used:
	// cap it so tiny hostile blocks cannot each allocate MaxDictCap bytes.
	if bh.uncompressed >= 0 && bh.uncompressed < dc {
		dc = bh.uncompressed
	}
	bh.dictCap = int(max(dc, lzma.MinDictCap))
	for body.Len() > 0 {
		if c, _ := body.ReadByte(); c != 0 {
			return xzErr("non-zero block header padding")
		}
	}
	bh.hsize = int64(hsize)
	x.bh = bh
	x.check, x.checkLen, err = x.newCheck()
	if err != nil {
		return err
	}
	var src io.Reader = x.r
	if bh.compressed >= 0 {
		src = io.LimitReader(x.r, bh.compressed)
	}
	x.cr = &countingReader{r: src}
	x.usize = 0
	lr, err := lzma.Reader2Config{DictCap: bh.dictCap}.NewReader2(x.cr)
	if err != nil {
		return xzErr("lzma2: %w", err)
	}
	x.block = lr
	x.records = append(x.records, xzRecord{}) // filled by endBlock
	return nil
}

func (x *xzReader) endBlock() error {
	x.block = nil
	csize := x.cr.n
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
		if x.flags[1] != xzCheckSHA256 { // CRCs are stored little-endian
			slicesReverse(want)
		}
		if !bytes.Equal(got, want) {
			return xzErr("block check (%s) mismatch: data corrupted", xzCheckString(x.flags[1]))
		}
	}
	x.records[len(x.records)-1] = xzRecord{unpadded: x.bh.hsize + csize + int64(x.checkLen), uncompressed: x.usize}
	return nil
}

func xzCheckString(t byte) string {
	switch t {
	case xzCheckCRC32:
		return "CRC32"
	case xzCheckCRC64:
		return "CRC64"
	case xzCheckSHA256:
		return "SHA-256"
	}
	return "none"
}

func slicesReverse(b []byte) {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
}

// index reads and verifies the index (its indicator byte already consumed)
// and the stream footer, then moves on to stream padding or the next stream.
func (x *xzReader) index() error {
	crc := crc32.NewIEEE()
	crc.Write([]byte{0})
	br := &hashByteReader{r: x.r, h: crc}
	n, err := readXZVarint(br)
	if err != nil {
		return xzErr("index: %w", noEOF(err))
	}
	if n != uint64(len(x.records)) {
		return xzErr("index lists %d blocks, stream has %d", n, len(x.records))
	}
	for i, rec := range x.records {
		u, err := readXZVarint(br)
		if err != nil {
			return xzErr("index record %d: %w", i, noEOF(err))
		}
		c, err := readXZVarint(br)
		if err != nil {
			return xzErr("index record %d: %w", i, noEOF(err))
		}
		if int64(u) != rec.unpadded || int64(c) != rec.uncompressed {
			return xzErr("index record %d does not match block", i)
		}
	}
	for br.n%4 != 3 { // indicator byte + body + padding is a multiple of 4
		b, err := br.ReadByte()
		if err != nil || b != 0 {
			return xzErr("bad index padding")
		}
	}
	var sum [4]byte
	if _, err := io.ReadFull(x.r, sum[:]); err != nil {
		return xzErr("index CRC: %w", noEOF(err))
	}
	if crc.Sum32() != binary.LittleEndian.Uint32(sum[:]) {
		return xzErr("index CRC mismatch")
	}
	indexSize := br.n + 1 + 4
	var f [12]byte
	if _, err := io.ReadFull(x.r, f[:]); err != nil {
		return xzErr("stream footer: %w", noEOF(err))
	}
	if !bytes.Equal(f[10:], xzFooterMagic) || crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f[:4]) {
		return xzErr("bad stream footer")
	}
	if !bytes.Equal(f[8:10], x.flags) {
		return xzErr("stream footer flags differ from header")
	}
	if int64(binary.LittleEndian.Uint32(f[4:8])+1)*4 != indexSize {
		return xzErr("stream footer backward size mismatch")
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
		x.r.Discard(4)
	}
	return x.streamHeader()
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type hashByteReader struct {
	r *bufio.Reader
	h hash.Hash32
	n int64
}

func (b *hashByteReader) ReadByte() (byte, error) {
	c, err := b.r.ReadByte()
	if err == nil {
		b.h.Write([]byte{c})
		b.n++
	}
	return c, err
}

// readXZVarint reads an xz multibyte integer (at most 9 bytes, minimal).
func readXZVarint(r io.ByteReader) (uint64, error) {
	var v uint64
	for i := 0; i < 9; i++ {
		b, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		v |= uint64(b&0x7F) << (7 * i)
		if b&0x80 == 0 {
			if b == 0 && i > 0 {
				return 0, errors.New("non-minimal integer")
			}
			return v, nil
		}
	}
	return 0, errors.New("integer too long")
}
