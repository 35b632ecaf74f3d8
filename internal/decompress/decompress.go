// Package decompress is the one compression layer of debredist's readers:
// magic bytes, the one table from a Format to the decoder that opens it,
// and the one set of decoder memory limits. The apt index reader, the deb
// member reader and the archive inspector all sniff and open their input
// here; each keeps its own expansion-ratio (bomb) guard, which depends on
// what the output is, and its own choice of the formats it accepts. The xz
// container itself is package xz's.
//
// Limits: MaxWindow bounds every xz/lzma dictionary and zstd window (and
// the zstd decoder's memory) on untrusted input: 64 MiB, what xz -9 uses;
// real NVIDIA debs and apt indexes use 8 MiB or less. A dictionary code
// outside the xz format's range (above 40) is an error (xz.ErrDictCode),
// never read as "huge" or left to the decoder.
package decompress

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/debredist/debredist/internal/xz"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz/lzma"
)

// MaxWindow is the largest xz/lzma dictionary and zstd window accepted.
const MaxWindow = xz.DefaultMaxDict

// ErrLimit reports input beyond a decoder memory limit (a dictionary or
// window larger than the caller allows). It is xz.ErrLimit, which the xz
// reader's errors wrap.
var ErrLimit = xz.ErrLimit

// ErrUnsupported reports a format without a decoder (lz4, or no format).
var ErrUnsupported = errors.New("unsupported compression")

// Format is a compression recognised by its magic bytes (or, for LZMA,
// named by the caller: the legacy .lzma format has no magic).
type Format int

const (
	None Format = iota // no known magic: plain data
	Gzip
	XZ
	Zstd
	Bzip2
	LZ4
	LZMA // legacy .lzma ("LZMA alone"); never sniffed
)

// opener starts a decoder of the stream in br whose dictionary or window is
// at most window bytes (already within MaxWindow), decoding zstd with
// threads goroutines (at least 1).
type opener func(br *bufio.Reader, window int64, threads int) (io.ReadCloser, error)

// formats is the one table of formats: name, magic bytes and decoder.
var formats = [...]struct {
	name  string
	magic []byte // nil: none (plain data, LZMA) or not checked
	open  opener // nil: no decoder
}{
	None:  {"none", nil, openPlain},
	Gzip:  {"gzip", []byte{0x1f, 0x8b}, openGzip},
	XZ:    {"xz", xz.Magic, openXZ},
	Zstd:  {"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd}, openZstd},
	Bzip2: {"bzip2", []byte("BZh"), openBzip2},
	LZ4:   {"lz4", []byte{0x04, 0x22, 0x4d, 0x18}, nil},
	LZMA:  {"lzma", nil, openLZMA},
}

func (f Format) String() string { return formats[f].name }

// suffixes maps a file name's compression suffix to its format ("": none).
var suffixes = map[string]Format{
	"": None, ".gz": Gzip, ".xz": XZ, ".zst": Zstd, ".bz2": Bzip2, ".lzma": LZMA,
}

// ForSuffix returns the format a compression suffix names (".xz"; "" is
// None), or ok=false for a suffix that names none of them.
func ForSuffix(suffix string) (f Format, ok bool) {
	f, ok = suffixes[suffix]
	return f, ok
}

// Magic returns the magic bytes a stream of f starts with (nil for None
// and LZMA). Bzip2's is the "BZh" prefix alone; Sniff checks more.
func (f Format) Magic() []byte { return formats[f].magic }

// HeadSize is how many leading bytes Sniff and xz.FirstDict want: the xz
// stream header and the largest block header.
const HeadSize = xz.HeadSize

// Sniff names the compression of a stream from its first bytes (up to
// HeadSize; fewer at the end of the input). bzip2 needs "BZh", a block size
// digit and a block or end-of-stream magic, so that text starting with
// "BZh" is not mistaken for it.
func Sniff(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, Gzip.Magic()):
		return Gzip
	case bytes.HasPrefix(head, XZ.Magic()):
		return XZ
	case bytes.HasPrefix(head, Zstd.Magic()):
		return Zstd
	case isBzip2(head):
		return Bzip2
	case bytes.HasPrefix(head, LZ4.Magic()):
		return LZ4
	}
	return None
}

func isBzip2(h []byte) bool {
	if len(h) < 10 || !bytes.HasPrefix(h, Bzip2.Magic()) || h[3] < '1' || h[3] > '9' {
		return false
	}
	m := h[4:10]
	return bytes.Equal(m, []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}) ||
		bytes.Equal(m, []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90})
}

// Open returns a decoder of the f-compressed stream in br (None: br
// itself). window bounds the decoder's memory: the xz or lzma dictionary
// or the zstd window, MaxWindow when window <= 0 or larger; beyond it the
// error wraps ErrLimit (xz: in every block header, before that block's
// decoder allocates; zstd: in every frame header, at the Read that reaches
// it, before the frame's window is allocated). threads is the number of
// zstd decoding goroutines (at least 1). An error starting the decoder
// names the format ("gzip: ...", "zstd: ...", "lzma: ...", or the xz
// reader's own "xz: ..."); a format without a decoder (LZ4) is an error
// wrapping ErrUnsupported.
// Close releases the decoder; it does not close br's source.
func Open(f Format, br *bufio.Reader, window int64, threads int) (io.ReadCloser, error) {
	if f < 0 || int(f) >= len(formats) || formats[f].open == nil {
		return nil, fmt.Errorf("%w %v", ErrUnsupported, f)
	}
	if window <= 0 || window > MaxWindow {
		window = MaxWindow
	}
	return formats[f].open(br, window, max(threads, 1))
}

func openPlain(br *bufio.Reader, _ int64, _ int) (io.ReadCloser, error) {
	return io.NopCloser(br), nil
}

func openGzip(br *bufio.Reader, _ int64, _ int) (io.ReadCloser, error) {
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return zr, nil
}

func openXZ(br *bufio.Reader, window int64, _ int) (io.ReadCloser, error) {
	xr, err := xz.NewReader(br, window)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(xr), nil
}

// openZstd returns a streaming zstd decoder whose window (the memory a
// stream decoder holds) is bounded by window. The frame content size is not
// bounded here: a streaming decoder never holds a whole frame, and the
// callers' ratio guards bound the output.
func openZstd(br *bufio.Reader, window int64, threads int) (io.ReadCloser, error) {
	zr, err := zstd.NewReader(br,
		zstd.WithDecoderConcurrency(threads),
		zstd.WithDecoderMaxMemory(math.MaxInt64),
		zstd.WithDecoderMaxWindow(uint64(window)))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return zstdCloser{zr, window}, nil
}

type zstdCloser struct {
	d      *zstd.Decoder
	window int64
}

// Read makes the decoder's window refusals limit errors. The decoder
// returns ErrWindowSizeExceeded for a frame header's window over the limit
// (ErrDecoderSizeExceeded for a single-segment frame, whose window is its
// content size; with no memory limit set it means nothing else), and
// ErrWindowSizeExceeded also for a block larger than its own frame's window
// (a corrupt stream): the two are not told apart, so the latter reads as a
// limit too.
func (z zstdCloser) Read(p []byte) (int, error) {
	n, err := z.d.Read(p)
	if errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		err = zstdLimitError{err, z.window}
	}
	return n, err
}

func (z zstdCloser) Close() error { z.d.Close(); return nil }

// zstdLimitError is the zstd decoder's refusal of a window beyond the
// limit: an ErrLimit that keeps the decoder's error.
type zstdLimitError struct {
	err    error
	window int64
}

func (e zstdLimitError) Error() string {
	return fmt.Sprintf("zstd: window beyond the limit of %d bytes (%v)", e.window, e.err)
}
func (e zstdLimitError) Unwrap() []error { return []error{ErrLimit, e.err} }

func openBzip2(br *bufio.Reader, _ int64, _ int) (io.ReadCloser, error) {
	return io.NopCloser(bzip2.NewReader(br)), nil
}

// openLZMA reads the legacy .lzma header (properties byte, dictionary
// size, uncompressed size) and checks it before the decoder allocates.
func openLZMA(br *bufio.Reader, window int64, _ int) (io.ReadCloser, error) {
	head, err := br.Peek(13)
	if err != nil {
		return nil, fmt.Errorf("lzma: header: %w", err)
	}
	if head[0] >= 9*5*5 {
		return nil, fmt.Errorf("lzma: invalid properties byte %#x", head[0])
	}
	dict := int64(head[1]) | int64(head[2])<<8 | int64(head[3])<<16 | int64(head[4])<<24
	if dict > window {
		return nil, limitError(fmt.Sprintf("lzma dictionary size %d exceeds limit %d", dict, window))
	}
	lr, err := lzma.ReaderConfig{DictCap: int(max(dict, lzma.MinDictCap))}.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("lzma: %w", err)
	}
	return io.NopCloser(lr), nil
}

// limitError is a limit error whose message names no sentinel.
type limitError string

func (e limitError) Error() string { return string(e) }
func (e limitError) Unwrap() error { return ErrLimit }
