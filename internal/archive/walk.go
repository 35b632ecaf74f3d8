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
// regular files (nil for other entries; fn need not read it all). It checks
// names and entry types like Inspect (a device, FIFO or sparse file is an
// ErrType) but not the rest of Inspect's safety and integrity rules: run
// Inspect first on archives of unknown origin.
func Walk(ctx context.Context, r io.Reader, fn func(h entry.Header, content io.Reader) error) error {
	br := bufio.NewReaderSize(files.ContextReader(ctx, r), 64<<10)
	dec, err := decompressor(br)
	if err != nil {
		return fmt.Errorf("archive: walk: %w", err)
	}
	defer dec.Close()
	tr := tar.NewReader(dec)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("archive: walk: tar: %w", err)
		}
		_, rel, err := splitName(h.Name)
		if err != nil {
			return &EntryError{Name: h.Name, Err: fmt.Errorf("%w: %v", ErrUnsafeName, err)}
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
