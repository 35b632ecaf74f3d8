package apt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path"

	"github.com/debredist/debredist/internal/decompress"
)

// MaxXZDictBytes is the largest xz dictionary (and zstd window) [Decompress]
// accepts (64 MiB): the limit every decoder of debredist shares.
const MaxXZDictBytes = 64 << 20

// UnsupportedCompressionError reports input whose magic bytes name a
// compression Decompress does not implement (lz4).
type UnsupportedCompressionError struct {
	Format string
}

func (e *UnsupportedCompressionError) Error() string {
	return "unsupported compression " + e.Format
}

// CompressionMismatchError is an index file whose name names a
// compression (Packages.xz) that its bytes are not in.
type CompressionMismatchError struct {
	Name string // the file name or URL
	Want string // the format the name says ("xz")
	Got  string // the format the bytes start with ("none": plain data)
}

func (e *CompressionMismatchError) Error() string {
	got := e.Got + " data"
	if e.Got == "none" {
		got = "not compressed (no known magic bytes)"
	}
	return fmt.Sprintf("%s: named like %s data, but its bytes are %s", e.Name, e.Want, got)
}

// CheckCompressionName returns a *CompressionMismatchError when name ends in
// a compression suffix with magic bytes (.gz, .xz, .zst, .bz2) and head, the
// file's first bytes (1036 are enough: an xz stream and block header), are not that format.
// Other names are not checked: a plain "Packages" may hold any.
func CheckCompressionName(name string, head []byte) error {
	want, ok := decompress.ForSuffix(path.Ext(name))
	if !ok || want.Magic() == nil {
		return nil
	}
	if got := decompress.Sniff(head); got != want {
		return &CompressionMismatchError{Name: name, Want: want.String(), Got: got.String()}
	}
	return nil
}

// Decompress sniffs the magic bytes of r (never a file name) and returns a
// reader of the decompressed bytes: gzip, xz, zstd, bzip2, or r unchanged when
// it starts with none of those (plain text). lz4 input yields an
// *UnsupportedCompressionError.
//
// Memory is bounded: zstd windows and xz dictionaries above MaxXZDictBytes
// are refused (see package decompress), in every xz block header before
// that block's decoder allocates.
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
	return fmt.Sprintf(
		"decompression bomb: %d compressed bytes expanded to more than %d (over MaxRatio=%dx past RatioMinBytes=%d)",
		e.In,
		e.Out,
		MaxRatio,
		RatioMinBytes,
	)
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
	head, err := br.Peek(decompress.HeadSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("sniffing compression: %w", err)
	}
	f := decompress.Sniff(head)
	rc, err := decompress.Open(f, br, MaxXZDictBytes, 1)
	switch {
	case errors.Is(err, decompress.ErrUnsupported):
		return nil, &UnsupportedCompressionError{Format: f.String()}
	case err != nil && f == decompress.Gzip:
		return nil, fmt.Errorf("gzip header: %w", errors.Unwrap(err)) // this package's words since before the table
	}
	return rc, err
}
