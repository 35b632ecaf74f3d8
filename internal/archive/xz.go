package archive

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/crc64"
	"io"
	"runtime"
	"sync"

	"github.com/debredist/debredist/internal/decompress"
	"github.com/debredist/debredist/internal/lzma"
)

// BlockSize is the number of uncompressed bytes in each independently
// compressed xz block or zstd frame. It is a constant, never derived from the
// machine, so that the output bytes do not depend on where they are produced.
// 24 MiB is three xz dictionaries, as xz -T uses: on real NVIDIA libraries
// the start of every block compresses worse (no history), and 8 MiB blocks
// were 6 % larger than 24 MiB ones.
const BlockSize = 24 << 20

// What the writer needs of the xz container format
// (https://tukaani.org/xz/xz-file-format.txt; package decompress reads it).
var xzFooterMagic = []byte{'Y', 'Z'}

const (
	xzCheckCRC64  = 0x04 // the check every block carries
	xzFilterLZMA2 = 0x21 // the one filter
)

// crc64Table is the CRC-64/XZ (ECMA-182, reflected) table. Read-only.
var crc64Table = crc64.MakeTable(crc64.ECMA)

// xzDictSize is the LZMA2 dictionary of every preset: matches reach 8 MiB
// back inside a block (as xz -6). A larger one gained < 0.1 % on real NVIDIA
// libraries and costs 4 bytes of match-finder memory per byte.
const xzDictSize = 8 << 20

// xzPresets maps Options.Preset to the internal/lzma encoder settings, fast
// to best. Measured on 32 MiB of libcusparse.so (real NVIDIA aarch64 code,
// 24 MiB blocks; xz -6 gives 0.377 on the same bytes in one stream, xz -3
// 0.409, xz -1 0.570), ratio and MB per CPU-second on the loaded 2-core VM:
// 1: 0.490, ~18; 2: 0.445, ~14; 3: 0.44, ~8; 4: 0.415, ~4.5; 5: 0.414, ~3;
// 6: 0.413, ~1. End-to-end numbers are in bench/README.md.
var xzPresets = [...]lzma.Params{
	1: {Greedy: true, Depth: 1, Nice: 8, HashBits: 18, NoHash3: true},
	2: {Depth: 1, Nice: 8},
	3: {Depth: 4, Nice: 16},
	4: {Optimal: true, Depth: 4, Nice: 32},
	5: {Optimal: true, Depth: 8, Nice: 48},
	6: {Optimal: true, BinaryTree: true, Depth: 24, Nice: 64},
}

// DefaultPreset is the xz preset used when Options.Preset is 0: internal/lzma
// with price-based optimal parsing over a hash chain of depth 4, 8 MiB
// dictionary, lc=3 lp=0 pb=2, CRC64 check.
const DefaultPreset = 4

// encoderPool keeps up to GOMAXPROCS idle encoders per preset: their match
// finder tables (about 40 MiB) are reused by the next block. Reuse never
// changes the output: Encode resets every table.
var encoderPool struct {
	sync.Mutex
	free [len(xzPresets)][]*xzEncoder
}

type xzEncoder struct {
	*lzma.Encoder
	buf []byte // LZMA2 output scratch
}

// xzSlots bounds the blocks being compressed at once across all writers to
// the number of cores, so that several archives written at once (convert's
// --jobs) hold no more encoders (about 50 MiB each) than there are cores.
var xzSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

func getEncoder(preset int) *xzEncoder {
	xzSlots <- struct{}{}
	encoderPool.Lock()
	defer encoderPool.Unlock()
	if k := len(encoderPool.free[preset]); k > 0 {
		e := encoderPool.free[preset][k-1]
		encoderPool.free[preset] = encoderPool.free[preset][:k-1]
		return e
	}
	p := xzPresets[preset]
	p.DictSize = xzDictSize
	return &xzEncoder{Encoder: lzma.NewEncoder(p)}
}

func putEncoder(preset int, e *xzEncoder) {
	defer func() { <-xzSlots }()
	encoderPool.Lock()
	defer encoderPool.Unlock()
	if len(encoderPool.free[preset]) < runtime.GOMAXPROCS(0) {
		encoderPool.free[preset] = append(encoderPool.free[preset], e)
	}
}

// NewXZWriter returns a parallel deterministic xz encoder writing to w with
// the default preset. The input is split into BlockSize blocks compressed by
// up to workers goroutines (0 means runtime.GOMAXPROCS(0)); the output is a
// single xz stream (one block per BlockSize input bytes, each block header
// carrying compressed and uncompressed sizes, CRC64 checks, a full index) and
// is byte-identical for any workers value. Close writes the index and footer
// but does not close w.
func NewXZWriter(w io.Writer, workers int) io.WriteCloser {
	zw, _ := newXZWriter(w, workers, DefaultPreset, nil, BlockSize)
	return zw
}

type xzRecord struct{ unpadded, uncompressed int64 }

func newXZWriter(w io.Writer, workers, preset int, budget *Budget, blockSize int) (io.WriteCloser, error) {
	if preset == 0 {
		preset = DefaultPreset
	}
	if preset < 1 || preset >= len(xzPresets) {
		return nil, fmt.Errorf("archive: xz preset %d out of range 1..%d", preset, len(xzPresets)-1)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		records     []xzRecord
		wroteHeader bool
	)
	writeHeader := func() error {
		if wroteHeader {
			return nil
		}
		wroteHeader = true
		_, err := w.Write(xzStreamHeader())
		return err
	}
	emit := func(uncompressed int64, res blockResult) error {
		if err := writeHeader(); err != nil {
			return err
		}
		records = append(records, xzRecord{res.unpadded, uncompressed})
		_, err := w.Write(res.out)
		return err
	}
	finish := func() error {
		if err := writeHeader(); err != nil {
			return err
		}
		index := xzIndex(records)
		if _, err := w.Write(index); err != nil {
			return err
		}
		_, err := w.Write(xzStreamFooter(len(index)))
		return err
	}
	compress := func(src []byte) (blockResult, error) {
		return compressXZBlock(src, preset)
	}
	return newParallelWriter(workers, blockSize, budget, compress, emit, finish), nil
}

func xzStreamFlags() []byte { return []byte{0x00, xzCheckCRC64} }

func xzStreamHeader() []byte {
	h := append([]byte{}, decompress.MagicXZ...)
	flags := xzStreamFlags()
	h = append(h, flags...)
	return binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(flags))
}

func xzStreamFooter(indexSize int) []byte {
	body := binary.LittleEndian.AppendUint32(nil, uint32(indexSize/4-1))
	body = append(body, xzStreamFlags()...)
	f := binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(body))
	f = append(f, body...)
	return append(f, xzFooterMagic...)
}

func xzIndex(records []xzRecord) []byte {
	idx := []byte{0x00}
	idx = binary.AppendUvarint(idx, uint64(len(records)))
	for _, r := range records {
		idx = binary.AppendUvarint(idx, uint64(r.unpadded))
		idx = binary.AppendUvarint(idx, uint64(r.uncompressed))
	}
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	return binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx))
}

// xzDictByte encodes an LZMA2 dictionary size of 2^n or 3*2^n bytes
// (>= 4 KiB) as the filter property byte.
func xzDictByte(size int) byte {
	for b := byte(0); b < 40; b++ {
		if (2|int(b&1))<<(b/2+11) >= size {
			return b
		}
	}
	return 40
}

// xzBlockHeader encodes a block header with both sizes and one LZMA2 filter.
func xzBlockHeader(compressed, uncompressed int64, dictSize int) []byte {
	h := []byte{0, 0x40 | 0x80} // size placeholder; flags: 1 filter, both sizes present
	h = binary.AppendUvarint(h, uint64(compressed))
	h = binary.AppendUvarint(h, uint64(uncompressed))
	h = append(h, xzFilterLZMA2, 1, xzDictByte(dictSize))
	for (len(h)+4)%4 != 0 {
		h = append(h, 0)
	}
	h[0] = byte((len(h)+4)/4 - 1)
	return binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(h))
}

// compressXZBlock compresses one block into a complete xz block (header,
// LZMA2 data, padding, CRC64). It is a pure function of src and preset.
func compressXZBlock(src []byte, preset int) (blockResult, error) {
	// The dictionary need not exceed the block.
	dict := xzDictSize
	for dict > 4096 && dict/2 >= len(src) {
		dict /= 2
	}
	e := getEncoder(preset)
	e.buf = e.Encode(e.buf[:0], src)
	data := e.buf
	hdr := xzBlockHeader(int64(len(data)), int64(len(src)), dict)
	out := make([]byte, 0, len(hdr)+len(data)+3+8)
	out = append(out, hdr...)
	out = append(out, data...)
	putEncoder(preset, e)
	for len(out)%4 != 0 {
		out = append(out, 0)
	}
	out = binary.LittleEndian.AppendUint64(out, crc64.Checksum(src, crc64Table))
	return blockResult{out: out, unpadded: int64(len(hdr) + len(data) + 8)}, nil
}
