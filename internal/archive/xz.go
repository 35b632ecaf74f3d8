package archive

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/crc64"
	"io"
	"runtime"

	"github.com/ulikunitz/xz/lzma"
)

// BlockSize is the number of uncompressed bytes in each independently
// compressed xz block or zstd frame. It is a constant, never derived from the
// machine, so that the output bytes do not depend on where they are produced.
const BlockSize = 8 << 20

// xz container constants (https://tukaani.org/xz/xz-file-format.txt).
var (
	xzMagic       = []byte{0xFD, '7', 'z', 'X', 'Z', 0x00}
	xzFooterMagic = []byte{'Y', 'Z'}
)

const (
	xzCheckNone   = 0x00
	xzCheckCRC32  = 0x01
	xzCheckCRC64  = 0x04
	xzCheckSHA256 = 0x0A
	xzFilterLZMA2 = 0x21
)

// crc64Table is the CRC-64/XZ (ECMA-182, reflected) table. Read-only.
var crc64Table = crc64.MakeTable(crc64.ECMA)

// xzDictCaps maps Options.Preset (1..len) to the LZMA2 dictionary capacity.
// Larger dictionaries are slower with ulikunitz/xz's HashTable4 matcher and
// barely help on binaries once blocks are independent. Measured with
// BenchmarkXZPresets (114 MB of .so files, 2 workers): ratio 0.256, 0.247,
// 0.244, 0.243, 0.243, 0.243 at 31, 30, 24, 17, 19, 13 MB/s for presets 1-6
// (xz -6: 0.189).
var xzDictCaps = [...]int{1: 256 << 10, 2: 512 << 10, 3: 1 << 20, 4: 2 << 20, 5: 4 << 20, 6: 8 << 20}

// DefaultPreset is the xz preset used when Options.Preset is 0: LZMA2 with a
// 1 MiB dictionary, lc=3 lp=0 pb=2, HashTable4 match finder, CRC64 check.
const DefaultPreset = 3

// NewXZWriter returns a parallel deterministic xz encoder writing to w with
// the default preset. The input is split into BlockSize blocks compressed by
// up to workers goroutines (0 means runtime.GOMAXPROCS(0)); the output is a
// single xz stream (one block per BlockSize input bytes, each block header
// carrying compressed and uncompressed sizes, CRC64 checks, a full index) and
// is byte-identical for any workers value. Close writes the index and footer
// but does not close w.
func NewXZWriter(w io.Writer, workers int) io.WriteCloser {
	zw, _ := newXZWriter(w, workers, DefaultPreset, nil)
	return zw
}

type xzRecord struct{ unpadded, uncompressed int64 }

func newXZWriter(w io.Writer, workers, preset int, budget *Budget) (io.WriteCloser, error) {
	if preset == 0 {
		preset = DefaultPreset
	}
	if preset < 1 || preset >= len(xzDictCaps) {
		return nil, fmt.Errorf("archive: xz preset %d out of range 1..%d", preset, len(xzDictCaps)-1)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	dictCap := xzDictCaps[preset]
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
		return compressXZBlock(src, dictCap)
	}
	return newParallelWriter(workers, budget, compress, emit, finish), nil
}

func xzStreamFlags() []byte { return []byte{0x00, xzCheckCRC64} }

func xzStreamHeader() []byte {
	h := append([]byte{}, xzMagic...)
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

// xzBlockHeader encodes a block header with both sizes and one LZMA2 filter.
func xzBlockHeader(compressed, uncompressed int64, dictCap int) []byte {
	h := []byte{0, 0x40 | 0x80} // size placeholder; flags: 1 filter, both sizes present
	h = binary.AppendUvarint(h, uint64(compressed))
	h = binary.AppendUvarint(h, uint64(uncompressed))
	h = append(h, xzFilterLZMA2, 1, lzma.EncodeDictCap(int64(dictCap)))
	for (len(h)+4)%4 != 0 {
		h = append(h, 0)
	}
	h[0] = byte((len(h)+4)/4 - 1)
	return binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(h))
}

// compressXZBlock compresses one block into a complete xz block (header,
// LZMA2 data, padding, CRC64). It is a pure function of src and dictCap.
func compressXZBlock(src []byte, dictCap int) (blockResult, error) {
	var data bytes.Buffer
	data.Grow(len(src)/2 + 1024)
	lw, err := lzma.Writer2Config{DictCap: dictCap}.NewWriter2(&data)
	if err != nil {
		return blockResult{}, fmt.Errorf("archive: xz: %w", err)
	}
	if _, err := lw.Write(src); err != nil {
		return blockResult{}, fmt.Errorf("archive: xz: %w", err)
	}
	// Flush before Close: Writer2.Close swallows Flush errors.
	if err := lw.Flush(); err != nil {
		return blockResult{}, fmt.Errorf("archive: xz: %w", err)
	}
	if err := lw.Close(); err != nil {
		return blockResult{}, fmt.Errorf("archive: xz: %w", err)
	}
	hdr := xzBlockHeader(int64(data.Len()), int64(len(src)), dictCap)
	out := make([]byte, 0, len(hdr)+data.Len()+3+8)
	out = append(out, hdr...)
	out = append(out, data.Bytes()...)
	for len(out)%4 != 0 {
		out = append(out, 0)
	}
	out = binary.LittleEndian.AppendUint64(out, crc64.Checksum(src, crc64Table))
	return blockResult{out: out, unpadded: int64(len(hdr) + data.Len() + 8)}, nil
}
