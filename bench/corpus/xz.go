package main

import (
	"encoding/binary"
	"hash/crc32"
	"hash/crc64"
	"runtime"
	"sync"

	"github.com/debredist/debredist/internal/lzma"
)

// The corpus' debs are written with debredist's own LZMA2 encoder at fast
// settings (greedy parsing, one-candidate 4-byte hash, as archive's preset 1)
// in independent 8 MiB xz blocks compressed in parallel: a 1 GiB corpus takes
// about a minute on 2 cores instead of the 25 minutes of ulikunitz/xz. The
// bytes are a pure function of the input (the blocks do not depend on how
// many run at once). These settings are pinned here, not taken from
// internal/archive's preset table, so that retuning the presets does not
// change the corpus; a change to internal/lzma's output may.
var corpusXZParams = lzma.Params{Greedy: true, Depth: 1, Nice: 8, HashBits: 18, NoHash3: true, DictSize: 8 << 20}

const corpusXZBlock = 8 << 20

// xzSem bounds the blocks being compressed at once across all debs.
var xzSem = make(chan struct{}, runtime.GOMAXPROCS(0))

var xzEncoders = sync.Pool{New: func() any { return lzma.NewEncoder(corpusXZParams) }}

var crc64Table = crc64.MakeTable(crc64.ECMA)

// xzFast returns b as an .xz stream (CRC64 checks, one block per 8 MiB).
func xzFast(b []byte) []byte {
	type block struct {
		out      []byte
		unpadded int
	}
	n := (len(b) + corpusXZBlock - 1) / corpusXZBlock
	blocks := make([]block, n)
	var wg sync.WaitGroup
	for i := range blocks {
		src := b[i*corpusXZBlock : min(len(b), (i+1)*corpusXZBlock)]
		xzSem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-xzSem; wg.Done() }()
			e := xzEncoders.Get().(*lzma.Encoder)
			data := e.Encode(nil, src)
			xzEncoders.Put(e)
			dict := corpusXZParams.DictSize
			for dict > 4096 && dict/2 >= len(src) {
				dict /= 2
			}
			h := xzBlockHeader(len(data), len(src), dict)
			out := append(h, data...)
			unpadded := len(out) + 8
			for len(out)%4 != 0 {
				out = append(out, 0)
			}
			blocks[i] = block{binary.LittleEndian.AppendUint64(out, crc64.Checksum(src, crc64Table)), unpadded}
		}()
	}
	wg.Wait()
	flags := []byte{0, 0x04} // CRC64
	out := append([]byte{0xFD, '7', 'z', 'X', 'Z', 0}, flags...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(flags))
	idx := []byte{0}
	idx = binary.AppendUvarint(idx, uint64(n))
	for i, bl := range blocks {
		out = append(out, bl.out...)
		idx = binary.AppendUvarint(idx, uint64(bl.unpadded))
		idx = binary.AppendUvarint(idx, uint64(min(len(b), (i+1)*corpusXZBlock)-i*corpusXZBlock))
	}
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	idx = binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx))
	out = append(out, idx...)
	foot := binary.LittleEndian.AppendUint32(nil, uint32(len(idx)/4-1))
	foot = append(foot, flags...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(foot))
	out = append(out, foot...)
	return append(out, 'Y', 'Z')
}

// xzBlockHeader encodes a block header with both sizes and one LZMA2 filter
// whose dictionary is dict (a power of two >= 4 KiB).
func xzBlockHeader(compressed, uncompressed, dict int) []byte {
	h := []byte{0, 0x40 | 0x80}
	h = binary.AppendUvarint(h, uint64(compressed))
	h = binary.AppendUvarint(h, uint64(uncompressed))
	db := byte(0)
	for 2<<(db/2+11) < dict {
		db += 2
	}
	h = append(h, 0x21, 1, db)
	for len(h)%4 != 0 {
		h = append(h, 0)
	}
	h[0] = byte(len(h) / 4) // (header size incl. CRC32)/4 - 1
	return binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(h))
}
