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
	"os"
	"strings"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/decompress"
)

// Limits Inspect applies to untrusted archives. Inspect decodes an archive
// at most twice (a second pass only to hash hardlinked content into the
// NAR), so its work is bounded by these whatever the archive holds.
const (
	MaxEntries    = 1 << 20  // tar entries
	MaxNameBytes  = 64 << 20 // total bytes of entry names and link targets
	MaxBytes      = 64 << 30 // decompressed tar stream
	MaxRatio      = 1000     // decompressed over compressed bytes read so far,
	RatioMinBytes = 64 << 20 // checked once past this much output
	// MaxHeldBytes of hardlink targets are held in memory during the
	// second pass; larger ones are spooled to a temporary file.
	MaxHeldBytes = 64 << 20
	// MaxLinkedFactor bounds the content the NAR hashes again for
	// hardlinks (NAR has no hardlinks: each link is its target's content
	// once more) to this many times the tar stream, or RatioMinBytes when
	// the stream is smaller: 200 links to a 100 MiB file would otherwise
	// cost 20 GB of hashing.
	MaxLinkedFactor = 4
)

// Report is the result of Inspect.
type Report struct {
	Top     string         // the single top-level directory
	Entries []entry.Header // in archive order, without the top directory itself
	Size    int64          // compressed bytes
	SHA256  string         // hex sha256 of the compressed bytes
	MD5     string         // hex md5 of the compressed bytes
	// NAR is the SRI sha256 of the NAR serialisation of the unpacked top
	// directory. It is streamed and is therefore empty when the entries are
	// not in canonical (Write's) order, or when the archive has hardlinks
	// and r is not an io.ReaderAt+io.Seeker (such as *os.File): their
	// content is then hashed in one second pass over the archive that keeps
	// each hardlink target's content (in memory up to MaxHeldBytes, in a
	// temporary file beyond) until its links come.
	NAR string
}

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

// decompressor detects xz or zstd by magic and returns the decoded stream;
// any other format is ErrFormat.
func decompressor(br *bufio.Reader) (io.ReadCloser, error) {
	magic, err := br.Peek(6)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, err
	}
	f := decompress.Sniff(magic)
	if f != decompress.XZ && f != decompress.Zstd {
		return nil, ErrFormat
	}
	rc, err := decompress.Open(f, br, MaxDictCap, 1)
	if err != nil {
		return nil, limitErr(err)
	}
	return limitReader{rc}, nil
}

// MaxDictCap is the largest LZMA2 dictionary and zstd window Inspect
// accepts: decompress.MaxWindow. Larger values are rejected before any
// allocation, bounding decoder memory on untrusted input.
const MaxDictCap = decompress.MaxWindow

// limitErr makes a decoder's memory-limit error an ErrLimit of this package
// too, so that callers of Inspect check one sentinel for every limit.
func limitErr(err error) error {
	if errors.Is(err, decompress.ErrLimit) && !errors.Is(err, ErrLimit) {
		return limitError{err}
	}
	return err
}

type limitError struct{ err error }

func (e limitError) Error() string   { return e.err.Error() }
func (e limitError) Unwrap() []error { return []error{ErrLimit, e.err} }

// limitReader passes limitErr over the errors of a decoder.
type limitReader struct{ io.ReadCloser }

func (l limitReader) Read(p []byte) (int, error) {
	n, err := l.ReadCloser.Read(p)
	return n, limitErr(err)
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
	in := &inspector{ctx: ctx, start: -1, rep: &Report{}, nodes: map[string]*seen{},
		nar: newNARWriter(), narOK: true, targets: map[string]bool{}}
	ra, isRA := r.(io.ReaderAt)
	if s, ok := r.(io.Seeker); ok && isRA {
		if pos, err := s.Seek(0, io.SeekCurrent); err == nil {
			in.ra, in.start = ra, pos
		}
	}
	in.hr = &hashReader{ctx: ctx, r: r, sha: sha256.New(), md5: md5.New()}
	in.br = bufio.NewReaderSize(in.hr, 64<<10)
	dec, err := decompressor(in.br)
	if err != nil {
		return nil, fmt.Errorf("archive: inspect: %w", err)
	}
	defer func() { _ = dec.Close() }()
	in.bound = &boundReader{r: dec, in: in.hr}
	in.tr = tar.NewReader(in.bound)
	for {
		h, err := in.tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("archive: inspect: tar: %w", err)
		}
		if err := in.entry(h); err != nil {
			return nil, err
		}
	}
	return in.finish()
}

// inspector is the state of one Inspect: the streams, the tree seen so far
// and the NAR streamed while the entries come in canonical order.
type inspector struct {
	ctx   context.Context
	ra    io.ReaderAt // for the second pass; start < 0: none
	start int64
	hr    *hashReader // compressed bytes
	br    *bufio.Reader
	bound *boundReader // decompressed bytes
	tr    *tar.Reader
	rep   *Report

	nodes     map[string]*seen
	nameBytes int
	nar       *narWriter
	narOK     bool
	targets   map[string]bool // hardlink targets (regular files)
	prev      string
}

// seen is what the inspector keeps of an entry or implied parent.
type seen struct {
	typ      entry.Type
	mode     fs.FileMode
	size     int64
	target   string
	root     string // of a hardlink: the regular file it resolves to
	implicit bool   // only known as a parent of another entry
}

// entry checks one tar entry, adds it to the tree and the NAR.
func (in *inspector) entry(h *tar.Header) error {
	hd, err := in.header(h)
	if err != nil {
		return err
	}
	if hd.Path == "" {
		if hd.Type != entry.Dir {
			return &EntryError{Name: h.Name, Err: fmt.Errorf("%w: top-level %v", ErrTopDir, hd.Type)}
		}
		if _, dup := in.nodes[""]; dup {
			return &EntryError{Name: h.Name, Err: ErrDuplicate}
		}
		in.nodes[""] = &seen{typ: entry.Dir}
		return nil
	}
	me, err := in.add(h, hd)
	if err != nil {
		return err
	}
	return in.stream(h, hd, me)
}

// header converts a tar header into an entry below the top directory
// (Path "" for the top directory itself), checking its names and type.
func (in *inspector) header(h *tar.Header) (entry.Header, error) {
	fail := func(err error) (entry.Header, error) { return entry.Header{}, &EntryError{Name: h.Name, Err: err} }
	top, rel, err := splitName(h.Name)
	if err != nil {
		return fail(fmt.Errorf("%w: %v", ErrUnsafeName, err))
	}
	if in.rep.Top == "" {
		in.rep.Top = top
	} else if top != in.rep.Top {
		return fail(fmt.Errorf("%w: %q and %q", ErrTopDir, in.rep.Top, top))
	}
	hd, err := entry.FromTar(h) // a sparse file too: its holes would be unbounded output
	if err != nil {
		return fail(tarTypeError{h.Typeflag, err})
	}
	hd.Path = rel
	switch hd.Type {
	case entry.Symlink:
		if strings.IndexByte(h.Linkname, 0) >= 0 || h.Linkname == "" {
			return fail(fmt.Errorf("%w: bad target %q", ErrSymlink, h.Linkname))
		}
	case entry.Hardlink:
		ltop, lrel, err := splitName(h.Linkname)
		if err != nil || ltop != in.rep.Top || lrel == "" {
			return fail(fmt.Errorf("%w: target %q outside the top directory", ErrHardlink, h.Linkname))
		}
		hd.Link = lrel
	}
	return hd, nil
}

// tarTypeError is entry.FromTar's refusal of a tar entry type, reported as
// an ErrType (and the entry package's ErrDevice, ErrUnsupported or
// ErrSparse).
type tarTypeError struct {
	flag  byte
	cause error
}

func (e tarTypeError) Error() string {
	if errors.Is(e.cause, entry.ErrSparse) {
		return fmt.Sprintf("%v: sparse file", ErrType)
	}
	return fmt.Sprintf("%v: tar type %q", ErrType, e.flag)
}

func (e tarTypeError) Unwrap() []error { return []error{ErrType, e.cause} }

// add enters an entry below the top directory into the tree after the
// limits, duplicate, parent and hardlink checks, and into the report.
func (in *inspector) add(h *tar.Header, hd entry.Header) (*seen, error) {
	rel := hd.Path
	if len(in.rep.Entries) >= MaxEntries {
		return nil, fmt.Errorf("archive: inspect: %w: more than %d entries", ErrLimit, MaxEntries)
	}
	if in.nameBytes += len(h.Name) + len(h.Linkname); in.nameBytes > MaxNameBytes {
		return nil, fmt.Errorf("archive: inspect: %w: more than %d bytes of names", ErrLimit, MaxNameBytes)
	}
	if n, ok := in.nodes[rel]; ok {
		if !n.implicit || hd.Type != entry.Dir {
			return nil, &EntryError{Name: h.Name, Err: ErrDuplicate}
		}
	}
	for dir := parentOf(rel); dir != ""; dir = parentOf(dir) {
		n, ok := in.nodes[dir]
		if !ok {
			in.nodes[dir] = &seen{typ: entry.Dir, implicit: true}
			continue
		}
		if n.typ != entry.Dir {
			return nil, &EntryError{Name: h.Name, Err: fmt.Errorf("%w: %q is a %v", ErrNotDir, dir, n.typ)}
		}
	}
	me := &seen{typ: hd.Type, mode: hd.Mode, size: hd.Size, target: hd.Link}
	if hd.Type == entry.Hardlink {
		t, ok := in.nodes[hd.Link]
		if !ok || (t.typ != entry.Regular && t.typ != entry.Hardlink) {
			return nil, &EntryError{
				Name: h.Name,
				Err:  fmt.Errorf("%w: target %q is not an earlier regular file", ErrHardlink, hd.Link),
			}
		}
		me.root = hd.Link
		if t.typ == entry.Hardlink {
			me.root = t.root
			t = in.nodes[t.root] // resolved when t was seen: O(1), not a chain walk
		}
		me.mode, me.size = t.mode, t.size
	}
	in.nodes[rel] = me
	in.rep.Entries = append(in.rep.Entries, hd)
	return me, nil
}

// stream adds an entry to the NAR while the archive's order allows
// streaming it; hardlinks are left to a second pass.
func (in *inspector) stream(h *tar.Header, hd entry.Header, me *seen) error {
	if in.narOK && in.prev != "" && compareNames(in.prev, hd.Path) >= 0 {
		in.narOK = false
	}
	in.prev = hd.Path
	if !in.narOK {
		return nil
	}
	switch hd.Type {
	case entry.Dir, entry.Symlink, entry.Regular:
		return narAdd(in.nar, h.Name, hd, in.tr, nil)
	case entry.Hardlink:
		// Hashed by a second pass (see finish), once, whatever the count.
		if in.start < 0 {
			in.narOK = false
			return nil
		}
		in.targets[me.root] = true
		if in.bound.extra += me.size; in.bound.check() != nil {
			return &EntryError{Name: h.Name, Err: in.bound.check()}
		}
	}
	return nil
}

// finish drains the streams (so that every integrity check runs and every
// compressed byte is hashed), checks the symlinks against the whole tree
// and completes the report, hashing hardlinked content in a second pass.
func (in *inspector) finish() (*Report, error) {
	rep := in.rep
	if rep.Top == "" {
		return nil, fmt.Errorf("archive: inspect: %w: empty archive", ErrTopDir)
	}
	if _, err := io.Copy(io.Discard, in.bound); err != nil {
		return nil, fmt.Errorf("archive: inspect: %w", err)
	}
	if _, err := io.Copy(io.Discard, in.br); err != nil {
		return nil, fmt.Errorf("archive: inspect: %w", err)
	}
	links := make(map[string]linkNode, len(in.nodes))
	for name, n := range in.nodes {
		links[name] = linkNode{typ: n.typ, target: n.target}
	}
	for _, e := range rep.Entries {
		if e.Type == entry.Symlink {
			if err := checkSymlinkTarget(e.Path, e.Link, links); err != nil {
				return nil, &EntryError{Name: rep.Top + "/" + e.Path, Err: fmt.Errorf("%w: %v", ErrSymlink, err)}
			}
		}
	}
	if in.narOK && len(in.targets) > 0 {
		sum, err := narSecondPass(in.ctx, in.ra, in.start, rep, in.targets)
		if err != nil {
			return nil, fmt.Errorf("archive: inspect: second pass for hardlinked content: %w", err)
		}
		rep.NAR = sum
	} else if in.narOK {
		rep.NAR = in.nar.sum()
	}
	rep.Size = in.hr.n
	rep.SHA256 = hex.EncodeToString(in.hr.sha.Sum(nil))
	rep.MD5 = hex.EncodeToString(in.hr.md5.Sum(nil))
	return rep, nil
}

// truncated reports the end of a content read short: nil and io.EOF (the
// stream ended before the entry's declared size) become
// io.ErrUnexpectedEOF.
func truncated(err error) error {
	if err == nil || err == io.EOF {
		return io.ErrUnexpectedEOF
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

// narAdd writes a directory, symlink or regular file to the NAR, a file's
// content read from r (and copied to keep as well, when set).
func narAdd(nar *narWriter, raw string, e entry.Header, r io.Reader, keep io.Writer) error {
	switch e.Type {
	case entry.Dir:
		nar.dir(e.Path)
	case entry.Symlink:
		nar.symlink(e.Path, e.Link)
	case entry.Regular:
		nar.beginFile(e.Path, e.Mode&0o111 != 0, e.Size)
		var w io.Writer = nar
		if keep != nil {
			w = io.MultiWriter(nar, keep)
		}
		if n, err := io.Copy(w, r); err != nil || n != e.Size {
			return &EntryError{Name: raw, Err: fmt.Errorf("read content: %w", truncated(err))}
		}
		nar.endFile()
	}
	return nil
}

// boundReader enforces MaxBytes and MaxRatio on a decompressed stream,
// counting as output the hardlinked content the NAR hashes again (extra).
type boundReader struct {
	r     io.Reader
	in    *hashReader // compressed bytes read so far
	out   int64
	extra int64
}

func (b *boundReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.out += int64(n)
	if lerr := b.check(); lerr != nil {
		return 0, lerr
	}
	return n, err
}

func (b *boundReader) check() error {
	out := b.out + b.extra
	if b.extra > MaxLinkedFactor*max(b.out, RatioMinBytes) {
		return fmt.Errorf(
			"%w: hardlinks repeat %d bytes of content, more than MaxLinkedFactor=%d times the %d-byte tar stream (or "+
				"RatioMinBytes=%d)",
			ErrLimit,
			b.extra,
			MaxLinkedFactor,
			b.out,
			RatioMinBytes,
		)
	}
	if out > MaxBytes {
		return fmt.Errorf("%w: more than MaxBytes=%d bytes of content (hardlinks counted)", ErrLimit, int64(MaxBytes))
	}
	if out > RatioMinBytes && out/max(b.in.n, 1) >= MaxRatio {
		return fmt.Errorf(
			"%w: decompression bomb: %d compressed bytes expand to more than %d (hardlinks counted; over MaxRatio=%dx past "+
				"RatioMinBytes=%d)",
			ErrLimit,
			b.in.n,
			out,
			MaxRatio,
			RatioMinBytes,
		)
	}
	return nil
}

// narSecondPass decodes the archive once more from start and returns the
// NAR hash of its content, keeping the content of each hardlink target
// (known from the first pass) until its links come. The entries must be
// those of the first pass (rep.Entries), or the archive changed meanwhile.
func narSecondPass(
	ctx context.Context,
	ra io.ReaderAt,
	start int64,
	rep *Report,
	targets map[string]bool,
) (string, error) {
	sr := io.NewSectionReader(ra, start, math.MaxInt64-start)
	hr := &hashReader{ctx: ctx, r: sr, sha: sha256.New(), md5: md5.New()}
	br := bufio.NewReaderSize(hr, 64<<10)
	dec, err := decompressor(br)
	if err != nil {
		return "", err
	}
	defer func() { _ = dec.Close() }()
	sp := &spool{mem: map[string][]byte{}, at: map[string][2]int64{}}
	defer sp.close()
	nar := newNARWriter()
	tr := tar.NewReader(&boundReader{r: dec, in: hr})
	rootOf := map[string]string{}     // hardlink -> the regular file it resolves to
	modes := map[string]fs.FileMode{} // of the targets
	i := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("tar: %w", err)
		}
		_, rel, err := splitName(h.Name)
		if err != nil || rel == "" {
			continue // the top directory (names were checked by the first pass)
		}
		if i >= len(rep.Entries) || rep.Entries[i].Path != rel {
			return "", fmt.Errorf("entry %q differs from the first pass: the archive changed", h.Name)
		}
		e := rep.Entries[i]
		i++
		switch e.Type {
		case entry.Dir, entry.Symlink, entry.Regular:
			var keep io.Writer
			if targets[rel] {
				modes[rel] = e.Mode
				keep = sp.writer(rel, e.Size)
			}
			if err := narAdd(nar, h.Name, e, tr, keep); err != nil {
				return "", err
			}
			if err := sp.err; err != nil {
				return "", err
			}
		case entry.Hardlink:
			root := e.Link
			if r, ok := rootOf[root]; ok {
				root = r
			}
			rootOf[rel] = root
			r, size, err := sp.open(root)
			if err != nil {
				return "", err
			}
			nar.beginFile(rel, modes[root]&0o111 != 0, size)
			if _, err := io.Copy(nar, r); err != nil {
				return "", err
			}
			nar.endFile()
		}
	}
	if i != len(rep.Entries) {
		return "", errors.New("fewer entries than the first pass: the archive changed")
	}
	return nar.sum(), nil
}

// heldLimit is MaxHeldBytes (a variable for the tests of the spool file).
var heldLimit int64 = MaxHeldBytes

// spool keeps hardlink targets' content: in memory up to MaxHeldBytes in
// all, in one temporary file beyond.
type spool struct {
	mem  map[string][]byte
	held int64
	f    *os.File
	end  int64
	at   map[string][2]int64 // offset and size in f
	err  error
}

// writer returns where the content of name (size bytes) is to be copied.
func (s *spool) writer(name string, size int64) io.Writer {
	if s.held+size <= heldLimit {
		s.held += size
		b := bytes.NewBuffer(make([]byte, 0, size))
		s.mem[name] = nil
		return writerFunc(func(p []byte) (int, error) {
			b.Write(p)
			s.mem[name] = b.Bytes()
			return len(p), nil
		})
	}
	if s.f == nil {
		if s.f, s.err = os.CreateTemp("", "debredist-inspect-*"); s.err != nil {
			return io.Discard
		}
		_ = os.Remove(s.f.Name()) // unlinked: gone with the descriptor
	}
	s.at[name] = [2]int64{s.end, size}
	return writerFunc(func(p []byte) (int, error) {
		n, err := s.f.WriteAt(p, s.end)
		s.end += int64(n)
		if err != nil && s.err == nil {
			s.err = err
		}
		return len(p), nil
	})
}

func (s *spool) open(name string) (io.Reader, int64, error) {
	if b, ok := s.mem[name]; ok {
		return bytes.NewReader(b), int64(len(b)), nil
	}
	if a, ok := s.at[name]; ok {
		return io.NewSectionReader(s.f, a[0], a[1]), a[1], nil
	}
	return nil, 0, fmt.Errorf("hardlink target %q was not kept", name)
}

func (s *spool) close() {
	if s.f != nil {
		s.f.Close()
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
