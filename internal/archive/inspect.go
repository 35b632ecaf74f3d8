package archive

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Limits Inspect applies to untrusted archives.
const (
	MaxEntries   = 1 << 20  // tar entries
	MaxNameBytes = 64 << 20 // total bytes of entry names and link targets
)

// Header describes one entry of an inspected archive.
type Header struct {
	Name     string      // relative to the top directory, no trailing "/"
	Type     EntryType   //
	Mode     fs.FileMode // permission bits plus setuid/setgid/sticky as stored
	Size     int64       // regular files
	Linkname string      // symlink target as stored; hardlink target relative to the top directory
}

// Report is the result of Inspect.
type Report struct {
	Top     string   // the single top-level directory
	Entries []Header // in archive order, without the top directory itself
	Size    int64    // compressed bytes
	SHA256  string   // hex sha256 of the compressed bytes
	MD5     string   // hex md5 of the compressed bytes
	// NAR is the SRI sha256 of the NAR serialisation of the unpacked top
	// directory. It is computed in one pass and is therefore empty when the
	// entries are not in canonical (Write's) order, or when the archive has
	// hardlinks and r is not an io.ReaderAt+io.Seeker (such as *os.File)
	// from which the hardlinked content can be read again.
	NAR string
}

var (
	magicXZ   = xzMagic
	magicZstd = []byte{0x28, 0xB5, 0x2F, 0xFD}
)

// hashReader hashes and counts everything read through it.
type hashReader struct {
	ctx context.Context
	r   io.Reader
	sha hash.Hash
	md5 hash.Hash
	n   int64
}

func (h *hashReader) Read(p []byte) (int, error) {
	if err := h.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := h.r.Read(p)
	h.sha.Write(p[:n])
	h.md5.Write(p[:n])
	h.n += int64(n)
	return n, err
}

// decompressor detects xz or zstd by magic and returns the decoded stream.
func decompressor(br *bufio.Reader) (io.Reader, func(), error) {
	magic, err := br.Peek(6)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, nil, err
	}
	switch {
	case bytes.HasPrefix(magic, magicXZ):
		x, err := newXZReader(br)
		if err != nil {
			return nil, nil, err
		}
		return x, func() {}, nil
	case bytes.HasPrefix(magic, magicZstd):
		d, err := zstd.NewReader(br,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(MaxDictCap),
			zstd.WithDecoderMaxMemory(math.MaxInt64))
		if err != nil {
			return nil, nil, fmt.Errorf("zstd: %w", err)
		}
		return d, d.Close, nil
	}
	return nil, nil, ErrFormat
}

// splitName turns a tar member name into (top, name relative to top).
func splitName(raw string) (top, rel string, err error) {
	name := raw
	for strings.HasPrefix(name, "./") {
		name = strings.TrimLeft(name[2:], "/")
	}
	name = strings.TrimSuffix(name, "/")
	if err := checkName(name); err != nil {
		return "", "", err
	}
	top, rel, _ = strings.Cut(name, "/")
	return top, rel, nil
}

// Inspect reads an xz or zstd compressed tar archive (detected by magic),
// verifies its integrity (xz block checks, index and footer; zstd frame
// checksums) and its safety (a single top directory, no absolute or escaping
// names, no devices or other special files, no duplicates, no paths through
// non-directories, symlinks resolving inside the top directory, hardlinks to
// earlier regular files) and reports its entries, the size, sha256 and md5 of
// the compressed bytes and the NAR hash of the content. Problems with a member
// are returned as *EntryError.
func Inspect(ctx context.Context, r io.Reader) (*Report, error) {
	start := int64(-1)
	ra, isRA := r.(io.ReaderAt)
	if s, ok := r.(io.Seeker); ok && isRA {
		if pos, err := s.Seek(0, io.SeekCurrent); err == nil {
			start = pos
		}
	}
	hr := &hashReader{ctx: ctx, r: r, sha: sha256.New(), md5: md5.New()}
	br := bufio.NewReaderSize(hr, 64<<10)
	dec, closeDec, err := decompressor(br)
	if err != nil {
		return nil, fmt.Errorf("archive: inspect: %w", err)
	}
	defer closeDec()

	rep := &Report{}
	type seen struct {
		typ      EntryType
		mode     fs.FileMode
		size     int64
		target   string
		implicit bool // only known as a parent of another entry
	}
	nodes := map[string]*seen{}
	nar := newNARWriter()
	narOK := true
	prev := ""
	nameBytes := 0
	tr := tar.NewReader(dec)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("archive: inspect: tar: %w", err)
		}
		top, rel, err := splitName(h.Name)
		if err != nil {
			return nil, &EntryError{Name: h.Name, Err: fmt.Errorf("%w: %v", ErrUnsafeName, err)}
		}
		if rep.Top == "" {
			rep.Top = top
		} else if top != rep.Top {
			return nil, &EntryError{Name: h.Name, Err: fmt.Errorf("%w: %q and %q", ErrTopDir, rep.Top, top)}
		}
		hd := Header{Name: rel, Mode: h.FileInfo().Mode() &^ fs.ModeType}
		switch h.Typeflag {
		case tar.TypeDir:
			hd.Type = Dir
		case tar.TypeReg, '\x00':
			hd.Type, hd.Size = Regular, h.Size
		case tar.TypeSymlink:
			hd.Type, hd.Linkname = Symlink, h.Linkname
			if strings.IndexByte(h.Linkname, 0) >= 0 || h.Linkname == "" {
				return nil, &EntryError{Name: h.Name, Err: fmt.Errorf("%w: bad target %q", ErrSymlink, h.Linkname)}
			}
		case tar.TypeLink:
			hd.Type = Hardlink
			ltop, lrel, err := splitName(h.Linkname)
			if err != nil || ltop != rep.Top || lrel == "" {
				return nil, &EntryError{Name: h.Name, Err: fmt.Errorf("%w: target %q outside the top directory", ErrHardlink, h.Linkname)}
			}
			hd.Linkname = lrel
		default:
			return nil, &EntryError{Name: h.Name, Err: fmt.Errorf("%w: tar type %q", ErrType, h.Typeflag)}
		}
		if rel == "" {
			if hd.Type != Dir {
				return nil, &EntryError{Name: h.Name, Err: fmt.Errorf("%w: top-level %v", ErrTopDir, hd.Type)}
			}
			if _, dup := nodes[""]; dup {
				return nil, &EntryError{Name: h.Name, Err: ErrDuplicate}
			}
			nodes[""] = &seen{typ: Dir}
			continue
		}
		if len(rep.Entries) >= MaxEntries {
			return nil, fmt.Errorf("archive: inspect: %w: more than %d entries", ErrLimit, MaxEntries)
		}
		if nameBytes += len(h.Name) + len(h.Linkname); nameBytes > MaxNameBytes {
			return nil, fmt.Errorf("archive: inspect: %w: more than %d bytes of names", ErrLimit, MaxNameBytes)
		}
		if n, ok := nodes[rel]; ok {
			if !(n.implicit && hd.Type == Dir) {
				return nil, &EntryError{Name: h.Name, Err: ErrDuplicate}
			}
		}
		for dir := parentOf(rel); dir != ""; dir = parentOf(dir) {
			n, ok := nodes[dir]
			if !ok {
				nodes[dir] = &seen{typ: Dir, implicit: true}
				continue
			}
			if n.typ != Dir {
				return nil, &EntryError{Name: h.Name, Err: fmt.Errorf("%w: %q is a %v", ErrNotDir, dir, n.typ)}
			}
		}
		me := &seen{typ: hd.Type, mode: hd.Mode, size: hd.Size, target: hd.Linkname}
		if hd.Type == Hardlink {
			t, ok := nodes[hd.Linkname]
			if !ok || (t.typ != Regular && t.typ != Hardlink) {
				return nil, &EntryError{Name: h.Name, Err: fmt.Errorf("%w: target %q is not an earlier regular file", ErrHardlink, hd.Linkname)}
			}
			for t.typ == Hardlink {
				t = nodes[t.target]
			}
			me.mode, me.size = t.mode, t.size
			me.target = hd.Linkname
		}
		nodes[rel] = me
		rep.Entries = append(rep.Entries, hd)

		// NAR, streamed while the order allows it.
		if narOK && prev != "" && compareNames(prev, rel) >= 0 {
			narOK = false
		}
		prev = rel
		if !narOK {
			continue
		}
		switch hd.Type {
		case Dir:
			nar.dir(rel)
		case Symlink:
			nar.symlink(rel, hd.Linkname)
		case Regular:
			nar.beginFile(rel, hd.Mode&0o111 != 0, hd.Size)
			if n, err := io.Copy(nar, tr); err != nil || n != hd.Size {
				return nil, &EntryError{Name: h.Name, Err: fmt.Errorf("read content: %w", noEOF(orEOF(err)))}
			}
			nar.endFile()
		case Hardlink:
			if start < 0 {
				narOK = false
				continue
			}
			root := hd.Linkname
			for nodes[root].typ == Hardlink {
				root = nodes[root].target
			}
			nar.beginFile(rel, me.mode&0o111 != 0, me.size)
			if err := readMember(ctx, ra, start, rep.Top+"/"+root, me.size, nar); err != nil {
				return nil, &EntryError{Name: h.Name, Err: fmt.Errorf("re-read hardlink target %q: %w", root, err)}
			}
			nar.endFile()
		}
	}
	if rep.Top == "" {
		return nil, fmt.Errorf("archive: inspect: %w: empty archive", ErrTopDir)
	}
	// Drain to the end so every check (xz index, footer, zstd checksums)
	// runs and all compressed bytes are hashed.
	if _, err := io.Copy(io.Discard, dec); err != nil {
		return nil, fmt.Errorf("archive: inspect: %w", err)
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		return nil, fmt.Errorf("archive: inspect: %w", err)
	}
	links := make(map[string]linkNode, len(nodes))
	for name, n := range nodes {
		links[name] = linkNode{typ: n.typ, target: n.target}
	}
	for _, e := range rep.Entries {
		if e.Type == Symlink {
			if err := checkSymlinkTarget(e.Name, e.Linkname, links); err != nil {
				return nil, &EntryError{Name: rep.Top + "/" + e.Name, Err: fmt.Errorf("%w: %v", ErrSymlink, err)}
			}
		}
	}
	if narOK {
		rep.NAR = nar.sum()
	}
	rep.Size = hr.n
	rep.SHA256 = hex.EncodeToString(hr.sha.Sum(nil))
	rep.MD5 = hex.EncodeToString(hr.md5.Sum(nil))
	return rep, nil
}

func orEOF(err error) error {
	if err == nil {
		return io.EOF
	}
	return err
}

func parentOf(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return ""
	}
	return name[:i]
}

// readMember decompresses the archive again from start and copies the
// content of the first regular member called name (size bytes) to w.
func readMember(ctx context.Context, ra io.ReaderAt, start int64, name string, size int64, w io.Writer) error {
	sr := io.NewSectionReader(ra, start, math.MaxInt64-start)
	br := bufio.NewReaderSize(ctxReader{ctx, sr}, 64<<10)
	dec, closeDec, err := decompressor(br)
	if err != nil {
		return err
	}
	defer closeDec()
	tr := tar.NewReader(dec)
	for {
		h, err := tr.Next()
		if err != nil {
			return noEOF(err)
		}
		top, rel, err := splitName(h.Name)
		if err != nil || top+"/"+rel != name || (h.Typeflag != tar.TypeReg && h.Typeflag != '\x00') {
			continue
		}
		n, err := io.Copy(w, tr)
		if err != nil {
			return err
		}
		if n != size {
			return errors.New("size changed on re-read")
		}
		return nil
	}
}
