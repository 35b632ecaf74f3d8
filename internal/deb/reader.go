package deb

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/decompress"
	"github.com/debredist/debredist/internal/safepath"
)

// Limits bounds what a deb may make this package consume: entry.Limits,
// which documents the fields and their defaults.
type Limits = entry.Limits

func withDefaults(l Limits) Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = 16 << 30
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = 1_000_000
	}
	if l.MaxNameLen <= 0 {
		l.MaxNameLen = 4096
	}
	if l.MaxControlBytes <= 0 {
		l.MaxControlBytes = 16 << 20
	}
	if l.MaxWindow <= 0 || l.MaxWindow > decompress.MaxWindow {
		l.MaxWindow = decompress.MaxWindow
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = 200
	}
	if l.RatioMinBytes <= 0 {
		l.RatioMinBytes = 64 << 20
	}
	if l.MaxDebRatio <= 0 {
		l.MaxDebRatio = 100
	}
	if l.MinEntryBytes <= 0 {
		l.MinEntryBytes = 64
	}
	return l
}

func maxWindow(l Limits) int64 { return withDefaults(l).MaxWindow }

// minEntryBudget is the entry count a deb may always hold, whatever its
// size (Limits.MinEntryBytes).
const minEntryBudget = 16384

// Options configures a Reader. The zero value is ready to use.
type Options struct {
	Limits Limits
	// SystemXZ pipes xz members of at least 32 KiB through the system
	// `xz -dc` when it is on PATH (faster; output is identical); pure Go
	// otherwise.
	SystemXZ bool
	// systemXZMin overrides systemXZMin (0: the constant); tests set 1 to
	// send their small debs to the child process.
	systemXZMin int64
	// Name is used in errors (deb file name or package); defaults to "deb".
	Name string
	// Size is the deb's size in bytes, for Limits.MaxDebRatio when the
	// input cannot seek (0: unknown, or taken from a seekable input).
	Size int64
	// Warn, when set, receives one line per entry Extract writes
	// differently from the deb (special bits stripped, absolute symlink
	// re-rooted).
	Warn func(msg string)
}

func (o *Options) zstdConcurrency() int { return 1 }

// Entry is a checked data.tar entry. Its Path is cleaned, relative,
// slash-separated, without leading "./" or "/" and without trailing "/"
// (the root entry "./" is skipped); Mode keeps setuid, setgid and sticky;
// Link is a symlink's target as written, or a hardlink's target cleaned
// like Path (always an earlier regular entry).
type Entry struct {
	entry.Header
	ModTime time.Time
}

// SetID reports whether the entry is setuid or setgid.
func (e *Entry) SetID() bool { return e.Mode&(fs.ModeSetuid|fs.ModeSetgid) != 0 }

// Reader streams the entries of a deb's data.tar. It is not safe for
// concurrent use. Always Close it.
type Reader struct {
	ctx          context.Context
	opts         Options
	lim          Limits
	name         string
	ar           *arReader
	control      Control
	controlFiles map[string][]byte
	dataMember   string
	dec          *decoder
	data         *countReader // decompressed data.tar stream
	tr           *tar.Reader
	cur          *Entry
	curRaw       string
	entries      int
	maxEntries   int             // Limits.MaxEntries, or less by MinEntryBytes
	regular      map[string]bool // names of earlier regular entries (hardlink targets)
	budget       debBudget
	seen         map[string]seenEntry // every entry so far, to refuse ambiguous duplicates
	hash         hash.Hash            // content hash of the current regular entry
	err          error                // sticky
}

// NewReader reads the ar container up to the start of data.tar: the
// debian-binary member and the control member (parsed and kept in memory,
// bounded by Limits.MaxControlBytes). Entries are then read with Next.
func NewReader(ctx context.Context, r io.Reader, opts Options) (*Reader, error) {
	name := opts.Name
	if name == "" {
		name = "deb"
	}
	rd := &Reader{
		ctx:     ctx,
		opts:    opts,
		lim:     withDefaults(opts.Limits),
		name:    name,
		regular: map[string]bool{},
		seen:    map[string]seenEntry{},
		hash:    sha256.New(),
	}
	if err := ctx.Err(); err != nil {
		return nil, rd.errorf(fault.DebIO, "", "", err)
	}
	a, err := newArReader(name, r)
	if err != nil {
		return nil, err
	}
	rd.ar = a
	if size := a.total; size > 0 || opts.Size > 0 {
		if size <= 0 {
			size = opts.Size
		}
		rd.budget = debBudget{size: size, max: max(rd.lim.RatioMinBytes, rd.lim.MaxDebRatio*size)}
		rd.maxEntries = min(rd.lim.MaxEntries, max(minEntryBudget, int(size/rd.lim.MinEntryBytes)))
	} else {
		rd.maxEntries = rd.lim.MaxEntries
	}
	if err := rd.readHead(); err != nil {
		_ = rd.Close()
		return nil, err
	}
	return rd, nil
}

func (r *Reader) errorf(kind fault.DebKind, member, entry string, err error) *fault.DebError {
	return &fault.DebError{Deb: r.name, Member: member, Entry: entry, Kind: kind, Err: err}
}

// readHead reads debian-binary and control, and positions at data.
func (r *Reader) readHead() error {
	h, err := r.ar.next()
	if err == io.EOF {
		return r.errorf(fault.DebFormat, "", "", errors.New("empty ar archive: missing debian-binary member"))
	} else if err != nil {
		return err
	}
	if h.Name != "debian-binary" {
		return r.errorf(fault.DebFormat, h.Name, "", fmt.Errorf("first member is %q, want debian-binary", h.Name))
	}
	var vb bytes.Buffer
	if _, err := io.Copy(&vb, io.LimitReader(r.ar, 1024)); err != nil {
		return err
	}
	line, _, _ := strings.Cut(vb.String(), "\n")
	if !validFormatVersion(line) || !strings.Contains(vb.String(), "\n") {
		return r.errorf(fault.DebFormat, h.Name, "", fmt.Errorf("unsupported deb format version %q, want 2.x", vb.String()))
	}

	// control.tar*
	for {
		h, err = r.ar.next()
		if err == io.EOF {
			return r.errorf(fault.DebFormat, "", "", errors.New("missing control.tar member"))
		} else if err != nil {
			return err
		}
		if strings.HasPrefix(h.Name, "_") {
			continue
		}
		if suffix, ok := compressionOf(h.Name, "control.tar"); ok {
			if err := r.readControl(h.Name, suffix); err != nil {
				return err
			}
			break
		}
		if strings.HasPrefix(h.Name, "data.tar") {
			return r.errorf(fault.DebFormat, h.Name, "", fmt.Errorf("member %q comes before control.tar", h.Name))
		}
		return r.errorf(fault.DebFormat, h.Name, "", fmt.Errorf("unexpected member %q, want control.tar", h.Name))
	}

	// data.tar*
	for {
		h, err = r.ar.next()
		if err == io.EOF {
			return r.errorf(fault.DebFormat, "", "", errors.New("missing data.tar member"))
		} else if err != nil {
			return err
		}
		if strings.HasPrefix(h.Name, "_") {
			continue
		}
		if suffix, ok := compressionOf(h.Name, "data.tar"); ok {
			r.dataMember = h.Name
			dec, err := newDecoder(r.ctx, r.errorf(0, h.Name, "", nil), suffix, r.ar, h.Size, &r.opts)
			if err != nil {
				return err
			}
			r.dec = dec
			r.data = r.counted(dec, h.Name, r.lim.MaxBytes, "MaxBytes")
			r.tr = tar.NewReader(r.data)
			return nil
		}
		if strings.HasPrefix(h.Name, "control.tar") {
			return r.errorf(fault.DebFormat, h.Name, "", errors.New("second control.tar member"))
		}
		return r.errorf(fault.DebFormat, h.Name, "", fmt.Errorf("unexpected member %q, want data.tar", h.Name))
	}
}

// counted wraps the decoder of the current ar member with the size, ratio
// and deb-budget checks.
func (r *Reader) counted(dec io.Reader, member string, limit int64, what string) *countReader {
	a := r.ar
	size := a.cur.Size
	return &countReader{ctx: r.ctx, r: dec, max: limit, e: r.errorf(0, member, "", nil), what: what,
		lim: r.lim, in: func() int64 { return size - a.left }, budget: &r.budget}
}

func validFormatVersion(s string) bool {
	rest, ok := strings.CutPrefix(s, "2.")
	if !ok || rest == "" {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (r *Reader) readControl(member, suffix string) error {
	dec, err := newDecoder(r.ctx, r.errorf(0, member, "", nil), suffix, r.ar, r.ar.cur.Size, &r.opts)
	if err != nil {
		return err
	}
	defer func() { _ = dec.Close() }()
	cr := r.counted(dec, member, r.lim.MaxControlBytes, "MaxControlBytes")
	tr := tar.NewReader(cr)
	files := map[string][]byte{}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return r.tarError(member, "", err)
		}
		if hdr.Typeflag != tar.TypeReg { // archive/tar's Reader reports TypeRegA as TypeReg
			continue
		}
		if _, err := entry.FromTar(hdr); err != nil {
			// A sparse file: its holes are not counted, and it is read
			// whole into memory below.
			return r.errorf(fault.DebFormat, member, hdr.Name, err)
		}
		name, kind, err := cleanName(hdr.Name, r.lim.MaxNameLen)
		if err != nil {
			return r.errorf(kind, member, hdr.Name, err)
		}
		if name == "" {
			return r.errorf(fault.DebFormat, member, hdr.Name, errors.New("regular file with empty name"))
		}
		// The countReader bounds the total, so ReadAll cannot grow past it.
		b, err := io.ReadAll(tr)
		if err != nil {
			return r.tarError(member, hdr.Name, err)
		}
		files[name] = b
	}
	// Read to the end of the compressed stream so its checksum is verified.
	if _, err := io.Copy(io.Discard, cr); err != nil {
		return r.tarError(member, "", err)
	}
	ctl, ok := files["control"]
	if !ok {
		return r.errorf(fault.DebFormat, member, "", errors.New("control.tar has no control file"))
	}
	c, err := parseControl(string(ctl))
	if err != nil {
		return r.errorf(fault.DebFormat, member, "control", err)
	}
	r.control, r.controlFiles = c, files
	return nil
}

// tarError classifies an error from archive/tar reading a counted stream.
func (r *Reader) tarError(member, entry string, err error) error {
	var e *fault.DebError
	if errors.As(err, &e) {
		x := *e
		x.Deb, x.Member = r.name, member
		if x.Entry == "" {
			x.Entry = entry
		}
		return &x
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return r.errorf(fault.DebTruncated, member, entry, fmt.Errorf("tar stream cut short: %w", err))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return r.errorf(fault.DebIO, member, entry, err)
	}
	return r.errorf(fault.DebFormat, member, entry, fmt.Errorf("tar: %w", err))
}

// Control returns the parsed control stanza.
func (r *Reader) Control() Control { return r.control }

// ControlFiles returns the regular files of control.tar (control, md5sums,
// conffiles, maintainer scripts, ...) by cleaned name.
func (r *Reader) ControlFiles() map[string][]byte { return r.controlFiles }

// DataMember returns the name of the data member, e.g. "data.tar.xz".
func (r *Reader) DataMember() string { return r.dataMember }

// Next returns the next checked data.tar entry, or io.EOF after the last.
// Unread content of the previous entry is skipped. An entry that fails a
// safety check ends the stream with an *Error.
func (r *Reader) Next() (*Entry, error) {
	if r.err != nil {
		return nil, r.err
	}
	e, err := r.next()
	if err != nil {
		r.err = err
		r.cur = nil
		return nil, err
	}
	return e, nil
}

func (r *Reader) next() (*Entry, error) {
	m := r.dataMember
	if err := r.finish(); err != nil {
		return nil, err
	}
	for {
		if err := r.ctx.Err(); err != nil {
			return nil, r.errorf(fault.DebIO, m, "", err)
		}
		hdr, err := r.tr.Next()
		if err == io.EOF {
			// Drain the rest so that the decompressor verifies its checksum
			// (and a system xz reports its exit status).
			if _, err := io.Copy(io.Discard, r.data); err != nil {
				return nil, r.tarError(m, "", err)
			}
			if err := r.checkTrailer(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || r.curRaw == "" {
				// Cut short while skipping the current entry's content.
				return nil, r.tarError(m, r.curRaw, err)
			}
			// The next header is bad: it has no trustworthy name, so say
			// where it is rather than blaming the previous entry.
			return nil, r.tarError(m, "", fmt.Errorf("header after entry %s: %w", fault.QuoteName(r.curRaw), err))
		}
		r.curRaw = hdr.Name
		r.entries++
		if r.entries > r.maxEntries {
			if r.maxEntries == r.lim.MaxEntries {
				return nil, r.errorf(fault.DebLimit, m, hdr.Name, fmt.Errorf("more than MaxEntries=%d entries", r.lim.MaxEntries))
			}
			return nil, r.errorf(
				fault.DebLimit,
				m,
				hdr.Name,
				fmt.Errorf(
					"entry bomb: more than %d entries in a %d-byte deb (MinEntryBytes=%d bytes of deb per entry, at least %d entries)",
					r.maxEntries,
					r.budget.size,
					r.lim.MinEntryBytes,
					minEntryBudget,
				),
			)
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		// FromTar also refuses sparse files: archive/tar synthesizes their
		// holes as zeros above the counted stream, so a few KB could read
		// as terabytes.
		h, err := entry.FromTar(hdr)
		if err != nil {
			kind := fault.DebFormat
			if errors.Is(err, entry.ErrDevice) {
				kind = fault.DebDevice
			}
			return nil, r.errorf(kind, m, hdr.Name, err)
		}
		name, kind, err := cleanName(hdr.Name, r.lim.MaxNameLen)
		if err != nil {
			return nil, r.errorf(kind, m, hdr.Name, err)
		}
		if name == "" {
			if h.Type == entry.Dir {
				continue
			}
			return nil, r.errorf(fault.DebFormat, m, hdr.Name, fmt.Errorf("%s entry with empty name", h.Type))
		}
		h.Path = name
		e := &Entry{Header: h, ModTime: hdr.ModTime}
		switch h.Type {
		case entry.Regular:
			if h.Size < 0 {
				return nil, r.errorf(fault.DebFormat, m, hdr.Name, fmt.Errorf("negative size %d", h.Size))
			}
			r.regular[name] = true
		case entry.Symlink:
			if hdr.Linkname == "" {
				return nil, r.errorf(fault.DebUnsafePath, m, hdr.Name, errors.New("symlink with empty target"))
			}
			if strings.IndexByte(hdr.Linkname, 0) >= 0 {
				return nil, r.errorf(fault.DebUnsafePath, m, hdr.Name, errors.New("symlink target contains NUL"))
			}
			if len(hdr.Linkname) > r.lim.MaxNameLen {
				return nil, r.errorf(
					fault.DebLimit,
					m,
					hdr.Name,
					fmt.Errorf("symlink target longer than MaxNameLen=%d", r.lim.MaxNameLen),
				)
			}
			delete(r.regular, name)
		case entry.Hardlink:
			target, kind, err := cleanName(hdr.Linkname, r.lim.MaxNameLen)
			if err != nil {
				return nil, r.errorf(kind, m, hdr.Name, fmt.Errorf("hardlink target: %w", err))
			}
			if !r.regular[target] {
				return nil, r.errorf(
					fault.DebUnsafePath,
					m,
					hdr.Name,
					fmt.Errorf("hardlink target %q is not an earlier regular file", hdr.Linkname),
				)
			}
			e.Link = target
			r.regular[name] = true
		case entry.Dir:
			delete(r.regular, name)
		}
		r.cur = e
		if e.Type == entry.Regular {
			r.hash.Reset()
		} else if err := r.record(e, r.curRaw, seenEntry{typ: e.Type, mode: e.Mode, link: e.Link}); err != nil {
			return nil, err
		}
		return e, nil
	}
}

// Read reads the content of the current regular entry; it returns io.EOF at
// its end and for other entry types.
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		if r.err == io.EOF {
			return 0, io.EOF
		}
		return 0, r.err
	}
	if r.cur == nil || r.cur.Type != entry.Regular {
		return 0, io.EOF
	}
	n, err := r.tr.Read(p)
	r.hash.Write(p[:n])
	if err != nil && err != io.EOF {
		err = r.tarError(r.dataMember, r.curRaw, err)
		r.err = err
	}
	return n, err
}

// seenEntry is what decides whether two entries of one name are the same.
type seenEntry struct {
	typ  entry.Type
	mode fs.FileMode
	link string
	size int64
	sum  [sha256.Size]byte
}

// finish reads the rest of the current regular entry through its hash and
// records it.
func (r *Reader) finish() error {
	e := r.cur
	if e == nil || e.Type != entry.Regular {
		return nil
	}
	if _, err := io.Copy(r.hash, r.tr); err != nil {
		return r.tarError(r.dataMember, r.curRaw, err)
	}
	s := seenEntry{typ: entry.Regular, mode: e.Mode, size: e.Size}
	r.hash.Sum(s.sum[:0])
	return r.record(e, r.curRaw, s)
}

// record remembers an entry and refuses a second entry of the same name
// that differs from the first in type, mode, target or content: which one
// a reader keeps would depend on the reader (identical duplicates merge).
func (r *Reader) record(e *Entry, raw string, s seenEntry) error {
	old, ok := r.seen[e.Path]
	if !ok {
		r.seen[e.Path] = s
		return nil
	}
	var what string
	switch {
	case old.typ != s.typ:
		what = fmt.Sprintf("a %s, then a %s", old.typ, s.typ)
	case old.mode != s.mode:
		what = fmt.Sprintf("mode %v, then %v", old.mode, s.mode)
	case old.link != s.link:
		what = fmt.Sprintf("target %q, then %q", old.link, s.link)
	case old.size != s.size || old.sum != s.sum:
		what = "different contents"
	default:
		return nil
	}
	return r.errorf(fault.DebFormat, r.dataMember, raw, fmt.Errorf("ambiguous duplicate path %s: %s", e.Path, what))
}

// checkTrailer reads what follows the data member: only "_"-prefixed
// members may, since a second data or control member, or bytes that are not
// an ar member, would be read differently by different tools.
func (r *Reader) checkTrailer() error {
	for {
		h, err := r.ar.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var e *fault.DebError
			if errors.As(err, &e) {
				return r.errorf(
					fault.DebFormat,
					r.dataMember,
					"",
					fmt.Errorf("bytes after the last member are not an ar member: %w", e.Err),
				)
			}
			return r.errorf(
				fault.DebFormat,
				r.dataMember,
				"",
				fmt.Errorf("bytes after the last member are not an ar member: %w", err),
			)
		}
		switch {
		case strings.HasPrefix(h.Name, "_"):
			continue
		case strings.HasPrefix(h.Name, "data.tar"):
			return r.errorf(fault.DebFormat, h.Name, "", fmt.Errorf("second data member after %s", r.dataMember))
		case strings.HasPrefix(h.Name, "control.tar"):
			return r.errorf(fault.DebFormat, h.Name, "", fmt.Errorf("control member after %s", r.dataMember))
		}
		return r.errorf(
			fault.DebFormat,
			h.Name,
			"",
			fmt.Errorf("unexpected member %q after %s (only _-prefixed members may follow)", h.Name, r.dataMember),
		)
	}
}

// Close releases the decompressor (and kills an `xz -dc` child). It does
// not close the underlying io.Reader.
func (r *Reader) Close() error {
	if r.err == nil || r.err == io.EOF {
		r.err = r.errorf(fault.DebIO, r.dataMember, "", errors.New("reader is closed"))
	}
	if r.dec != nil {
		err := r.dec.Close()
		r.dec = nil
		return err
	}
	return nil
}

// cleanName checks a tar entry name and returns it cleaned; "" for the root.
func cleanName(raw string, maxLen int) (string, fault.DebKind, error) {
	if len(raw) > maxLen {
		return "", fault.DebLimit, fmt.Errorf("name longer than MaxNameLen=%d (%d bytes)", maxLen, len(raw))
	}
	if strings.IndexByte(raw, 0) >= 0 {
		return "", fault.DebUnsafePath, errors.New("name contains NUL")
	}
	if strings.HasPrefix(raw, "/") {
		return "", fault.DebUnsafePath, errors.New("absolute path")
	}
	name := path.Clean(raw)
	if name == "." {
		return "", 0, nil
	}
	if safepath.Escapes(name) {
		return "", fault.DebUnsafePath, errors.New("path escapes the archive root")
	}
	if err := safepath.CheckComponents(name); err != nil {
		return "", fault.DebUnsafePath, err
	}
	return name, 0, nil
}

// countReader bounds and counts a decompressed stream, checks the context,
// and classifies decoder errors: a decoder limit (decompress.ErrLimit) is
// DebLimit, a stream cut short DebTruncated, anything else DebCompression.
// Besides its own maximum it enforces the running expansion ratio of its
// member and the deb-wide output budget.
type countReader struct {
	ctx    context.Context
	r      io.Reader
	n      int64
	max    int64
	e      *fault.DebError // template naming deb and member
	what   string
	lim    Limits
	in     func() int64 // compressed bytes of the member read so far
	budget *debBudget
}

// debBudget is the output all members of one deb may produce together.
type debBudget struct {
	n, max int64 // max <= 0: the deb's size is unknown, no budget
	size   int64
}

func (c *countReader) limitErr() error {
	if c.n > c.max {
		return c.e.With(fault.DebLimit, fmt.Errorf("uncompressed size exceeds %s=%d", c.what, c.max))
	}
	if c.n > c.lim.RatioMinBytes {
		if in := max(c.in(), 1); c.n/in >= c.lim.MaxRatio {
			return c.e.With(
				fault.DebLimit,
				fmt.Errorf(
					"decompression bomb: %d compressed bytes expanded to more than %d (over MaxRatio=%dx past RatioMinBytes=%d)",
					in,
					c.n,
					c.lim.MaxRatio,
					c.lim.RatioMinBytes,
				),
			)
		}
	}
	if b := c.budget; b.max > 0 && b.n > b.max {
		return c.e.With(
			fault.DebLimit,
			fmt.Errorf(
				"decompression bomb: the deb's members expand to more than %d bytes (MaxDebRatio=%dx its size %d, at least "+
					"RatioMinBytes=%d)",
				b.max,
				c.lim.MaxDebRatio,
				b.size,
				c.lim.RatioMinBytes,
			),
		)
	}
	return nil
}

func (c *countReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, c.e.With(fault.DebIO, err)
	}
	if err := c.limitErr(); err != nil {
		return 0, err
	}
	if room := c.max - c.n + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.budget.n += int64(n)
	if lerr := c.limitErr(); lerr != nil {
		return 0, lerr
	}
	if err != nil && err != io.EOF {
		var e *fault.DebError
		switch {
		case errors.As(err, &e):
			if e.Deb == "" {
				x := *c.e
				x.Kind, x.Err = e.Kind, e.Err
				return n, &x
			}
		case errors.Is(err, decompress.ErrLimit):
			return n, c.e.With(fault.DebLimit, err) // a dictionary or window beyond Limits.MaxWindow
		case errors.Is(err, io.ErrUnexpectedEOF):
			return n, c.e.With(fault.DebTruncated, fmt.Errorf("compressed stream cut short: %w", err))
		default:
			return n, c.e.With(fault.DebCompression, err)
		}
	}
	return n, err
}
