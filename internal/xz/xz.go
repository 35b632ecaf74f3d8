// Package xz is debredist's one home of the .xz container format
// (https://tukaani.org/xz/xz-file-format.txt): its constants, the stream
// header and footer, the index, block headers and the LZMA2 dictionary size
// byte, each encoded and decoded here and nowhere else; the strict,
// memory-bounded reader of untrusted streams (NewReader); and the writer's
// pieces: EncodeBlock, a pure function turning one block of input into a
// complete xz block with internal/lzma, and Stream, which assembles blocks
// into one stream. Splitting input into blocks and compressing them in
// parallel is the caller's (internal/archive).
//
// Only what debredist writes and reads is supported: LZMA2 as the single
// filter; checks none, CRC32, CRC64 and SHA-256 when reading, CRC64 when
// writing.
package xz

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"io"
)

// Format constants.
var (
	// Magic starts every stream (the stream header).
	Magic = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	// FooterMagic ends every stream footer.
	FooterMagic = []byte{'Y', 'Z'}
)

// Check IDs (the stream flags' second byte) and the LZMA2 filter ID.
const (
	CheckNone   = 0x00
	CheckCRC32  = 0x01
	CheckCRC64  = 0x04
	CheckSHA256 = 0x0A
	FilterLZMA2 = 0x21
)

const (
	// StreamHeaderSize is the size of the stream header and of the footer.
	StreamHeaderSize = 12
	// MaxBlockHeaderSize is the largest block header.
	MaxBlockHeaderSize = 1024
	// HeadSize is how many leading bytes of a stream FirstDict wants: the
	// stream header and the largest block header.
	HeadSize = StreamHeaderSize + MaxBlockHeaderSize
)

// crc64Table is the CRC-64/XZ (ECMA-182, reflected) table. Read-only.
var crc64Table = crc64.MakeTable(crc64.ECMA)

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

// DictByte encodes an LZMA2 dictionary size as the smallest code whose
// size (see DictSize) holds size bytes: exact for 2^n or 3*2^n bytes
// (>= 4 KiB).
func DictByte(size int) byte {
	for b := byte(0); b < 40; b++ {
		if (2|int(b&1))<<(b/2+11) >= size {
			return b
		}
	}
	return 40
}

// FirstDict returns the LZMA2 dictionary size declared in the first block
// header of an xz stream; head starts at the stream header (see HeadSize).
// ok is false when there is no block or the header cannot be read (left to
// the decoder, which validates it); later blocks' headers cannot be located
// without decoding, so single-block streams are fully covered. An invalid
// dictionary code is an error wrapping ErrDictCode. Unlike the reader it
// checks no CRC and accepts non-minimal integers: it only looks ahead.
func FirstDict(head []byte) (dict int64, ok bool, err error) {
	if len(head) < StreamHeaderSize+2 || head[StreamHeaderSize] == 0 { // 0: index, no block
		return 0, false, nil
	}
	bh := head[StreamHeaderSize:]
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
		if id == FilterLZMA2 && psize == 1 {
			d, err := DictSize(bh[p])
			return d, err == nil, err
		}
		p += int(psize)
	}
	return 0, false, nil
}

// appendVarint appends an xz multibyte integer: little-endian base 128,
// the same bytes as binary.AppendUvarint.
func appendVarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

// readVarint reads an xz multibyte integer (at most 9 bytes, minimal).
func readVarint(r io.ByteReader) (uint64, error) {
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

var errXZ = errors.New("xz")

// xzErr is an error of the format: "xz: " and the message.
func xzErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errXZ}, args...)...)
}

// noEOF turns io.EOF into io.ErrUnexpectedEOF: the stream ended early.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
