package xz

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash"
	"hash/crc32"
	"io"
)

// The stream header, stream footer, index and block header, each encoded
// (for Stream and EncodeBlock) and decoded (for the reader) side by side.

// record is one block's index record.
type record struct{ unpadded, uncompressed int64 }

// appendStreamHeader appends a stream header with the given check ID.
func appendStreamHeader(b []byte, check byte) []byte {
	b = append(b, Magic...)
	flags := []byte{0x00, check}
	b = append(b, flags...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(flags))
}

// parseStreamHeader checks a stream header and returns its stream flags.
func parseStreamHeader(h []byte) ([2]byte, error) {
	if !bytes.Equal(h[:6], Magic) {
		return [2]byte{}, xzErr("bad stream magic")
	}
	if crc32.ChecksumIEEE(h[6:8]) != binary.LittleEndian.Uint32(h[8:]) {
		return [2]byte{}, xzErr("stream header CRC mismatch")
	}
	if h[6] != 0 || h[7]&0xF0 != 0 {
		return [2]byte{}, xzErr("unsupported stream flags %x", h[6:8])
	}
	return [2]byte{h[6], h[7]}, nil
}

// appendStreamFooter appends the stream footer of an index of indexSize
// bytes.
func appendStreamFooter(b []byte, indexSize int, check byte) []byte {
	body := binary.LittleEndian.AppendUint32(nil, uint32(indexSize/4-1))
	body = append(body, 0x00, check)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(body))
	b = append(b, body...)
	return append(b, FooterMagic...)
}

// checkStreamFooter checks a stream footer against the header's flags and
// the size of the index read before it.
func checkStreamFooter(f []byte, flags [2]byte, indexSize int64) error {
	if !bytes.Equal(f[10:], FooterMagic) || crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f[:4]) {
		return xzErr("bad stream footer")
	}
	if !bytes.Equal(f[8:10], flags[:]) {
		return xzErr("stream footer flags differ from header")
	}
	if int64(binary.LittleEndian.Uint32(f[4:8])+1)*4 != indexSize {
		return xzErr("stream footer backward size mismatch")
	}
	return nil
}

// appendIndex appends the index of the records: indicator, count,
// records, padding, CRC32.
func appendIndex(b []byte, records []record) []byte {
	start := len(b)
	b = append(b, 0x00)
	b = appendVarint(b, uint64(len(records)))
	for _, r := range records {
		b = appendVarint(b, uint64(r.unpadded))
		b = appendVarint(b, uint64(r.uncompressed))
	}
	for (len(b)-start)%4 != 0 {
		b = append(b, 0)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// readIndex reads the index (its indicator byte already consumed), checks
// it against the records of the blocks read and returns its size.
func readIndex(r *bufio.Reader, records []record) (int64, error) {
	crc := crc32.NewIEEE()
	crc.Write([]byte{0})
	br := &hashByteReader{r: r, h: crc}
	n, err := readVarint(br)
	if err != nil {
		return 0, xzErr("index: %w", noEOF(err))
	}
	if n != uint64(len(records)) {
		return 0, xzErr("index lists %d blocks, stream has %d", n, len(records))
	}
	for i, rec := range records {
		u, err := readVarint(br)
		if err != nil {
			return 0, xzErr("index record %d: %w", i, noEOF(err))
		}
		c, err := readVarint(br)
		if err != nil {
			return 0, xzErr("index record %d: %w", i, noEOF(err))
		}
		if int64(u) != rec.unpadded || int64(c) != rec.uncompressed {
			return 0, xzErr("index record %d does not match block", i)
		}
	}
	for br.n%4 != 3 { // indicator byte + body + padding is a multiple of 4
		b, err := br.ReadByte()
		if err != nil || b != 0 {
			return 0, xzErr("bad index padding")
		}
	}
	var sum [4]byte
	if _, err := io.ReadFull(r, sum[:]); err != nil {
		return 0, xzErr("index CRC: %w", noEOF(err))
	}
	if crc.Sum32() != binary.LittleEndian.Uint32(sum[:]) {
		return 0, xzErr("index CRC mismatch")
	}
	return br.n + 1 + 4, nil
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

// appendBlockHeader appends a block header with both sizes and the one
// LZMA2 filter with a dictionary of dictSize bytes.
func appendBlockHeader(b []byte, compressed, uncompressed int64, dictSize int) []byte {
	start := len(b)
	b = append(b, 0, 0x40|0x80) // size placeholder; flags: 1 filter, both sizes present
	b = appendVarint(b, uint64(compressed))
	b = appendVarint(b, uint64(uncompressed))
	b = append(b, FilterLZMA2, 1, DictByte(dictSize))
	for (len(b)-start+4)%4 != 0 {
		b = append(b, 0)
	}
	b[start] = byte((len(b)-start+4)/4 - 1)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// blockHeader is a decoded block header.
type blockHeader struct {
	compressed, uncompressed int64 // -1 when absent
	dict                     int64 // declared LZMA2 dictionary size
	size                     int64 // of the header
}

// parseBlockHeader decodes a whole block header h (size byte to CRC32)
// whose filter must be a single LZMA2 with a dictionary of at most maxDict
// bytes, else the error wraps ErrLimit.
func parseBlockHeader(h []byte, maxDict int64) (blockHeader, error) {
	hsize := len(h)
	if crc32.ChecksumIEEE(h[:hsize-4]) != binary.LittleEndian.Uint32(h[hsize-4:]) {
		return blockHeader{}, xzErr("block header CRC mismatch")
	}
	flags := h[1]
	if flags&0x3C != 0 {
		return blockHeader{}, xzErr("reserved block flags set")
	}
	if flags&0x03 != 0 {
		return blockHeader{}, xzErr("unsupported filter chain (only a single LZMA2 filter is accepted)")
	}
	body := bytes.NewReader(h[2 : hsize-4])
	bh := blockHeader{compressed: -1, uncompressed: -1, size: int64(hsize)}
	if flags&0x40 != 0 {
		v, err := readVarint(body)
		if err != nil || v == 0 {
			return blockHeader{}, xzErr("bad compressed size in block header")
		}
		bh.compressed = int64(v)
	}
	if flags&0x80 != 0 {
		v, err := readVarint(body)
		if err != nil {
			return blockHeader{}, xzErr("bad uncompressed size in block header")
		}
		bh.uncompressed = int64(v)
	}
	id, err1 := readVarint(body)
	psize, err2 := readVarint(body)
	prop, err3 := body.ReadByte()
	if err1 != nil || err2 != nil || err3 != nil || id != FilterLZMA2 || psize != 1 {
		return blockHeader{}, xzErr("unsupported filter %#x (only LZMA2 is accepted)", id)
	}
	dc, err := DictSize(prop)
	if err != nil {
		return blockHeader{}, xzErr("%w", err)
	}
	if dc > maxDict {
		return blockHeader{}, xzErr("LZMA2 dictionary of %d bytes exceeds the limit of %d: %w", dc, maxDict, ErrLimit)
	}
	bh.dict = dc
	for body.Len() > 0 {
		if c, _ := body.ReadByte(); c != 0 {
			return blockHeader{}, xzErr("non-zero block header padding")
		}
	}
	return bh, nil
}
