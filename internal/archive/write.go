package archive

import (
	"archive/tar"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"slices"
	"time"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/files"
)

// item is a validated entry in write order.
type item struct {
	Entry
	mode int64
	root *item // hardlinks: the regular file whose content the link shares
}

// plan validates entries, synthesises missing parent directories and
// returns them in canonical (tar --sort=name) order.
func plan(entries []Entry) ([]*item, error) {
	byName := make(map[string]*item, len(entries))
	items := make([]*item, 0, len(entries))
	for _, e := range entries {
		if err := checkName(e.Path); err != nil {
			return nil, &EntryError{Name: e.Path, Err: fmt.Errorf("%w: %v", ErrUnsafeName, err)}
		}
		it := &item{Entry: e}
		switch e.Type {
		case entry.Dir:
			it.mode = 0o755
		case entry.Regular:
			it.mode = 0o644
			if e.Mode&0o111 != 0 {
				it.mode = 0o755
			}
			if e.Size < 0 {
				return nil, &EntryError{Name: e.Path, Err: fmt.Errorf("%w: negative size %d", ErrSize, e.Size)}
			}
			if e.Open == nil {
				return nil, &EntryError{Name: e.Path, Err: fmt.Errorf("%w: regular file without Open", ErrType)}
			}
		case entry.Symlink:
			it.mode = 0o777
		case entry.Hardlink:
			if err := checkName(e.Link); err != nil {
				return nil, &EntryError{Name: e.Path, Err: fmt.Errorf("%w: target %q: %v", ErrHardlink, e.Link, err)}
			}
		default:
			return nil, &EntryError{Name: e.Path, Err: fmt.Errorf("%w: %v", ErrType, e.Type)}
		}
		if _, dup := byName[e.Path]; dup {
			return nil, &EntryError{Name: e.Path, Err: ErrDuplicate}
		}
		byName[e.Path] = it
		items = append(items, it)
	}
	// Parents: must be directories; synthesise missing ones.
	for i := 0; i < len(items); i++ { // items grows while iterating
		for dir := path.Dir(items[i].Path); dir != "."; dir = path.Dir(dir) {
			p, ok := byName[dir]
			if !ok {
				p = &item{Entry: Entry{Header: entry.Header{Path: dir, Type: entry.Dir}}, mode: 0o755}
				byName[dir] = p
				items = append(items, p)
				continue
			}
			if p.Type != entry.Dir {
				return nil, &EntryError{Name: items[i].Path, Err: fmt.Errorf("%w: %q is a %v", ErrNotDir, dir, p.Type)}
			}
		}
	}
	slices.SortFunc(items, func(a, b *item) int { return compareNames(a.Path, b.Path) })
	pos := make(map[string]int, len(items))
	for i, it := range items {
		pos[it.Path] = i
	}
	nodes := make(map[string]linkNode, len(items))
	for _, it := range items {
		nodes[it.Path] = linkNode{typ: it.Type, target: it.Link}
	}
	for _, it := range items {
		if it.Type == entry.Symlink {
			if err := checkSymlinkTarget(it.Path, it.Link, nodes); err != nil {
				return nil, &EntryError{Name: it.Path, Err: fmt.Errorf("%w: %v", ErrSymlink, err)}
			}
		}
	}
	if err := groupHardlinks(items, byName, pos); err != nil {
		return nil, err
	}
	return items, nil
}

// groupHardlinks resolves every hardlink to the regular file it names
// (through chains of hardlinks) and, per group of names sharing that
// content, writes the name that comes first in archive order as the regular
// file and all others as hardlinks to it, whichever name the caller made
// the target (tar needs the file before its links).
func groupHardlinks(items []*item, byName map[string]*item, pos map[string]int) error {
	groups := map[*item][]*item{} // regular file -> hardlinks to it
	for _, it := range items {
		if it.Type != entry.Hardlink {
			continue
		}
		t := it
		for hops := 0; t.Type == entry.Hardlink; hops++ {
			next, ok := byName[t.Link]
			switch {
			case !ok:
				return &EntryError{Name: it.Path, Err: fmt.Errorf("%w: target %q missing", ErrHardlink, t.Link)}
			case hops > len(items):
				return &EntryError{Name: it.Path, Err: fmt.Errorf("%w: hardlink loop through %q", ErrHardlink, t.Link)}
			}
			t = next
		}
		if t.Type != entry.Regular {
			return &EntryError{Name: it.Path, Err: fmt.Errorf("%w: target %q is a %v", ErrHardlink, it.Link, t.Type)}
		}
		groups[t] = append(groups[t], it)
	}
	for file, links := range groups {
		first := file
		for _, l := range links {
			if pos[l.Path] < pos[first.Path] {
				first = l
			}
		}
		content := file.Entry
		for _, m := range append(links, file) {
			if m == first {
				m.Type, m.Size, m.Open, m.Link, m.mode, m.root = entry.Regular, content.Size, content.Open, "", file.mode, nil
				continue
			}
			m.Type, m.Link, m.mode, m.root = entry.Hardlink, first.Path, file.mode, first
		}
	}
	return nil
}

// countWriter counts bytes and feeds hashes of the compressed output.
type countWriter struct {
	w   io.Writer
	sha hash.Hash
	md5 hash.Hash
	n   int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.sha.Write(p[:n])
	c.md5.Write(p[:n])
	c.n += int64(n)
	return n, err
}

// Write writes a reproducible archive of entries below opts.Top to w.
//
// Entries are sorted as tar --sort=name walks a tree (a directory's children
// by byte order of name, recursively); missing parent directories are
// synthesised. The tar is PAX format with uid/gid 0, empty user/group names,
// no atime/ctime, mtime opts.MTime and normalised modes. Sizes, sha256/md5 of
// the compressed bytes and the NAR hash of the content are computed in the
// same pass. Unsafe names (absolute, "..", NUL), duplicates, non-directory
// parents, escaping symlinks and hardlinks to missing or non-regular
// entries are rejected with *EntryError before anything is written. Of a
// group of hardlinked names, the first in archive order carries the content
// and the others link to it, whichever name the caller made the target.
func Write(ctx context.Context, w io.Writer, entries []Entry, opts Options) (Result, error) {
	if err := checkTop(opts.Top); err != nil {
		return Result{}, &EntryError{Name: opts.Top, Err: fmt.Errorf("%w: top directory: %v", ErrUnsafeName, err)}
	}
	items, err := plan(entries)
	if err != nil {
		return Result{}, err
	}
	cw := &countWriter{w: w, sha: sha256.New(), md5: md5.New()}
	var zw io.WriteCloser
	zw, err = opts.Compression.newWriter(cw, opts.Workers, opts.Preset, opts.Budget, opts.blockSize)
	if err != nil {
		return Result{}, err
	}
	res, err := writeTar(ctx, zw, items, opts)
	if err != nil {
		zw.(*parallelWriter).abort() // stop workers, write no trailer
		return Result{}, err
	}
	if err := zw.Close(); err != nil {
		return Result{}, fmt.Errorf("archive: %s: compress: %w", opts.Top, err)
	}
	res.Size = cw.n
	res.SHA256 = hex.EncodeToString(cw.sha.Sum(nil))
	res.MD5 = hex.EncodeToString(cw.md5.Sum(nil))
	return res, nil
}

func writeTar(ctx context.Context, zw io.Writer, items []*item, opts Options) (Result, error) {
	mtime := time.Unix(0, 0)
	if !opts.MTime.IsZero() {
		mtime = time.Unix(opts.MTime.Unix(), 0)
	}
	tw := tar.NewWriter(zw)
	nar := newNARWriter()
	hdr := func(name string, typ byte, mode int64) *tar.Header {
		return &tar.Header{Name: name, Typeflag: typ, Mode: mode, ModTime: mtime, Format: tar.FormatPAX}
	}
	top := opts.Top
	if err := tw.WriteHeader(hdr(top+"/", tar.TypeDir, 0o755)); err != nil {
		return Result{}, fmt.Errorf("archive: %s: %w", top, err)
	}
	var res Result
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("archive: %s: %w", top, err)
		}
		full := top + "/" + it.Path
		var h *tar.Header
		switch it.Type {
		case entry.Dir:
			h = hdr(full+"/", tar.TypeDir, it.mode)
			nar.dir(it.Path)
		case entry.Regular:
			h = hdr(full, tar.TypeReg, it.mode)
			h.Size = it.Size
		case entry.Symlink:
			h = hdr(full, tar.TypeSymlink, it.mode)
			h.Linkname = it.Link
			nar.symlink(it.Path, it.Link)
		case entry.Hardlink:
			h = hdr(full, tar.TypeLink, it.mode)
			h.Linkname = top + "/" + it.Link
		}
		if it.Type != entry.Dir {
			res.Files++
		}
		if err := tw.WriteHeader(h); err != nil {
			return Result{}, &EntryError{Name: it.Path, Err: err}
		}
		switch it.Type {
		case entry.Regular:
			nar.beginFile(it.Path, it.mode&0o111 != 0, it.Size)
			if err := copyContent(ctx, io.MultiWriter(tw, nar), it.Entry); err != nil {
				return Result{}, err
			}
			nar.endFile()
		case entry.Hardlink:
			nar.beginFile(it.Path, it.mode&0o111 != 0, it.root.Size)
			if err := copyContent(ctx, nar, it.root.Entry); err != nil {
				return Result{}, &EntryError{Name: it.Path, Err: fmt.Errorf("hardlink target: %w", err)}
			}
			nar.endFile()
		}
	}
	if err := tw.Close(); err != nil {
		return Result{}, fmt.Errorf("archive: %s: %w", top, err)
	}
	res.NAR = nar.sum()
	return res, nil
}

// copyContent copies exactly e.Size bytes of e's content to w and fails if
// the content is shorter or longer.
func copyContent(ctx context.Context, w io.Writer, e Entry) (err error) {
	rc, err := e.Open()
	if err != nil {
		return &EntryError{Name: e.Path, Err: fmt.Errorf("open: %w", err)}
	}
	defer func() {
		if cerr := rc.Close(); err == nil && cerr != nil {
			err = &EntryError{Name: e.Path, Err: fmt.Errorf("close: %w", cerr)}
		}
	}()
	n, err := io.CopyN(w, files.ContextReader(ctx, rc), e.Size)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return &EntryError{Name: e.Path, Err: fmt.Errorf("%w: got %d bytes, want %d", ErrSize, n, e.Size)}
		}
		return &EntryError{Name: e.Path, Err: fmt.Errorf("read: %w", err)}
	}
	var one [1]byte
	if k, _ := io.ReadFull(rc, one[:]); k > 0 {
		return &EntryError{Name: e.Path, Err: fmt.Errorf("%w: more than %d bytes", ErrSize, e.Size)}
	}
	return nil
}
