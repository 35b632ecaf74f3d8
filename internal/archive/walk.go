package archive

import (
	"archive/tar"
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/debredist/debredist/debredist/entry"
)

// Walk decodes an xz or zstd compressed tar archive and calls fn for every
// entry below the top directory, in archive order, with the content of
// regular files (nil for other entries; fn need not read it all). It checks
// names like Inspect but not the rest of Inspect's safety and integrity
// rules: run Inspect first on archives of unknown origin.
func Walk(ctx context.Context, r io.Reader, fn func(h entry.Header, content io.Reader) error) error {
	br := bufio.NewReaderSize(ctxReader{ctx, r}, 64<<10)
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
		hd := entry.Header{Path: rel, Mode: h.FileInfo().Mode().Perm()}
		var content io.Reader
		switch h.Typeflag {
		case tar.TypeDir:
			hd.Type = entry.Dir
		case tar.TypeReg, '\x00':
			hd.Type, hd.Size, content = entry.Regular, h.Size, tr
		case tar.TypeSymlink:
			hd.Type, hd.Link = entry.Symlink, h.Linkname
		case tar.TypeLink:
			hd.Type = entry.Hardlink
			if _, lrel, err := splitName(h.Linkname); err == nil {
				hd.Link = lrel
			}
		default:
			return &EntryError{Name: h.Name, Err: fmt.Errorf("%w: tar type %q", ErrType, h.Typeflag)}
		}
		if err := fn(hd, content); err != nil {
			return err
		}
	}
}
