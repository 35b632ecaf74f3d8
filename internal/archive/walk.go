package archive

import (
	"archive/tar"
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/files"
)

// Walk decodes an xz or zstd compressed tar archive and calls fn for every
// entry below the top directory, in archive order, with the content of
// regular files (nil for other entries; fn need not read it all). It
// bounds the decoding as Inspect does (MaxBytes, MaxRatio: ErrLimit),
// checks that every entry is below one top directory, named top when top
// is not "" (ErrTopDir), and checks names and entry types like Inspect (a
// device, FIFO or sparse file is an ErrType), but not the rest of
// Inspect's safety and integrity rules: run Inspect first on archives of
// unknown origin.
func Walk(ctx context.Context, r io.Reader, top string, fn func(h entry.Header, content io.Reader) error) error {
	hr := &hashReader{ctx: ctx, r: r, sha: nopHash{}, md5: nopHash{}}
	br := bufio.NewReaderSize(files.ContextReader(ctx, hr), 64<<10)
	dec, err := decompressor(br)
	if err != nil {
		return fmt.Errorf("archive: walk: %w", err)
	}
	defer func() { _ = dec.Close() }()
	tr := tar.NewReader(&boundReader{r: dec, in: hr})
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("archive: walk: tar: %w", err)
		}
		t, rel, err := splitName(h.Name)
		if err != nil {
			return &EntryError{Name: h.Name, Err: fmt.Errorf("%w: %v", ErrUnsafeName, err)}
		}
		switch {
		case top == "":
			top = t
		case t != top:
			return &EntryError{
				Name: h.Name,
				Err:  fmt.Errorf("%w: %q, want %q (the file name without its extension)", ErrTopDir, t, top),
			}
		}
		if rel == "" {
			continue
		}
		hd, err := entry.FromTar(h)
		if err != nil {
			return &EntryError{Name: h.Name, Err: tarTypeError{h.Typeflag, err}}
		}
		hd.Path, hd.Mode = rel, hd.Mode.Perm()
		var content io.Reader
		switch hd.Type {
		case entry.Regular:
			content = tr
		case entry.Hardlink:
			hd.Link = ""
			if _, lrel, err := splitName(h.Linkname); err == nil {
				hd.Link = lrel
			}
		}
		if err := fn(hd, content); err != nil {
			return err
		}
	}
}

// nopHash is a hash.Hash that hashes nothing: Walk counts the compressed
// bytes (for MaxRatio) without hashing them.
type nopHash struct{}

func (nopHash) Write(p []byte) (int, error) { return len(p), nil }
func (nopHash) Sum(b []byte) []byte         { return b }
func (nopHash) Reset()                      {}
func (nopHash) Size() int                   { return 0 }
func (nopHash) BlockSize() int              { return 1 }
