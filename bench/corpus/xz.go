package main

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/debredist/debredist/internal/lzma"
	"github.com/debredist/debredist/internal/xz"
)

// fastCompress is the corpus' mirrorgen.Options.Compress: xz with xzFast,
// gzip and zstd at their fastest levels.
func fastCompress(kind string, b []byte) (string, []byte, error) {
	var buf bytes.Buffer
	switch kind {
	case "xz":
		return ".xz", xzFast(b), nil
	case "gzip":
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		w.Write(b) //nolint:errcheck // bytes.Buffer
		if err := w.Close(); err != nil {
			return "", nil, err
		}
		return ".gz", buf.Bytes(), nil
	case "zstd":
		w, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true),
			zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(1<<20))
		if err != nil {
			return "", nil, err
		}
		w.Write(b) //nolint:errcheck // bytes.Buffer
		if err := w.Close(); err != nil {
			return "", nil, err
		}
		return ".zst", buf.Bytes(), nil
	case "none":
		return "", b, nil
	}
	return "", nil, fmt.Errorf("unsupported compression %q", kind)
}

// The corpus' debs are written with debredist's own LZMA2 encoder at fast
// settings (greedy parsing, one-candidate 4-byte hash) in independent 8 MiB
// xz blocks compressed in parallel: a 1 GiB corpus takes about a minute on
// 2 cores instead of the 25 minutes of ulikunitz/xz. The bytes are a pure
// function of the input (the blocks do not depend on how many run at once).
// These settings are pinned here, not taken from lzma's levels, so that
// retuning the presets does not change the corpus; a change to
// internal/lzma's output may.
var corpusXZParams = lzma.Params{Greedy: true, Depth: 1, Nice: 8, HashBits: 18, NoHash3: true, DictSize: 8 << 20}

const corpusXZBlock = 8 << 20

// xzFast returns b as an .xz stream (CRC64 checks, one block per 8 MiB),
// the blocks compressed in parallel by internal/xz (which bounds how many
// run at once in the process).
func xzFast(b []byte) []byte {
	n := (len(b) + corpusXZBlock - 1) / corpusXZBlock // none for an empty input
	blocks := make([]xz.Block, n)
	var wg sync.WaitGroup
	for i := range blocks {
		src := b[i*corpusXZBlock : min(len(b), (i+1)*corpusXZBlock)]
		wg.Go(func() { blocks[i] = xz.EncodeBlock(src, corpusXZParams) })
	}
	wg.Wait()
	var out bytes.Buffer
	s := xz.NewStream(&out)
	for _, bl := range blocks {
		if err := s.WriteBlock(bl); err != nil {
			panic(err) // a bytes.Buffer does not fail
		}
	}
	if err := s.Close(); err != nil {
		panic(err)
	}
	return out.Bytes()
}
