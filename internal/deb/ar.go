package deb

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/blakesmith/ar"
	"github.com/debredist/debredist/debredist/fault"
)

const (
	arMagic      = "!<arch>\n"
	arHeaderSize = 60
)

// arHeader is a validated ar member header.
type arHeader struct {
	Name   string // GNU trailing "/" stripped
	Size   int64
	Offset int64 // offset of the member data from the start of the archive
}

// arReader is a validating wrapper around github.com/blakesmith/ar. It reads
// and checks every header itself (magic, field syntax, size against the
// input size when known), hands the library a sanitized copy, lets the
// library frame the member data, turns the library's panics into errors and
// reports a member cut short as truncation.
type arReader struct {
	deb   string
	src   io.Reader // the input
	total int64     // bytes available in src from the archive start; -1 if unknown
	feed  feeder    // what the library reads from
	lib   *ar.Reader
	off   int64 // bytes consumed from src
	cur   arHeader
	left  int64 // unread bytes of the current member
	pad   int64 // pad byte pending after the current member
	err   error // sticky error
}

// feeder serves a prefix (the sanitized header) and then the source, and
// counts what it passes on from the source.
type feeder struct {
	prefix []byte
	a      *arReader
}

func (f *feeder) Read(p []byte) (int, error) {
	if len(f.prefix) > 0 {
		n := copy(p, f.prefix)
		f.prefix = f.prefix[n:]
		return n, nil
	}
	n, err := f.a.src.Read(p)
	f.a.off += int64(n)
	return n, err
}

// inputSize returns the bytes remaining in r when it can seek, else -1.
func inputSize(r io.Reader) int64 {
	s, ok := r.(io.Seeker)
	if !ok {
		return -1
	}
	cur, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return -1
	}
	end, err := s.Seek(0, io.SeekEnd)
	if err != nil {
		return -1
	}
	if _, err := s.Seek(cur, io.SeekStart); err != nil {
		return -1
	}
	return end - cur
}

func newArReader(deb string, r io.Reader) (a *arReader, err error) {
	a = &arReader{deb: deb, src: r, total: inputSize(r)}
	a.feed.a = a
	var magic [len(arMagic)]byte
	n, err := io.ReadFull(r, magic[:])
	a.off += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			if n == 0 {
				return nil, a.errorf(fault.DebTruncated, "", io.ErrUnexpectedEOF, "empty input, no ar magic")
			}
			return nil, a.errorf(fault.DebTruncated, "", io.ErrUnexpectedEOF, "input too short for ar magic")
		}
		return nil, a.errorf(fault.DebIO, "", err, "read ar magic")
	}
	if string(magic[:]) != arMagic {
		return nil, a.errorf(fault.DebFormat, "", nil, "not an ar archive (magic %q)", magic[:])
	}
	defer recoverInto(a, &err)
	a.feed.prefix = []byte(arMagic) // the library discards the magic itself
	a.lib = ar.NewReader(&a.feed)
	return a, nil
}

func (a *arReader) errorf(kind fault.DebKind, member string, cause error, format string, args ...any) *fault.DebError {
	msg := fmt.Sprintf(format, args...)
	var err error
	switch {
	case cause == nil:
		err = errors.New(msg)
	case msg == "":
		err = cause
	default:
		err = fmt.Errorf("%s: %w", msg, cause)
	}
	return &fault.DebError{Deb: a.deb, Member: member, Kind: kind, Err: err}
}

func recoverInto(a *arReader, err *error) {
	if p := recover(); p != nil {
		e := a.errorf(fault.DebFormat, a.cur.Name, nil, "ar reader panic: %v", p)
		a.err = e
		*err = e
	}
}

// next skips the rest of the current member and returns the next header.
// It returns io.EOF (unwrapped) at a clean end of the archive.
func (a *arReader) next() (h arHeader, err error) {
	if a.err != nil {
		return arHeader{}, a.err
	}
	defer recoverInto(a, &err)
	// Drain the current member through the library so its counters agree.
	if a.left > 0 {
		if _, err := io.Copy(io.Discard, a); err != nil {
			return arHeader{}, err
		}
	}
	// Read pad byte and header ourselves.
	raw := make([]byte, a.pad+arHeaderSize)
	n, rerr := io.ReadFull(a.src, raw)
	a.off += int64(n)
	if rerr != nil {
		if errors.Is(rerr, io.EOF) || (errors.Is(rerr, io.ErrUnexpectedEOF) && int64(n) <= a.pad) {
			// End of archive (a missing final pad byte is tolerated).
			a.err = io.EOF
			return arHeader{}, io.EOF
		}
		if errors.Is(rerr, io.ErrUnexpectedEOF) {
			a.err = a.errorf(
				fault.DebTruncated,
				"",
				io.ErrUnexpectedEOF,
				"ar header after %q cut short at offset %d",
				a.cur.Name,
				a.off,
			)
		} else {
			a.err = a.errorf(fault.DebIO, "", rerr, "read ar header at offset %d", a.off)
		}
		return arHeader{}, a.err
	}
	hdrOff := a.off - arHeaderSize
	h, san, err := parseArHeader(raw[a.pad:])
	if err != nil {
		hint := ""
		if a.pad == 1 && raw[0] != '\n' {
			hint = fmt.Sprintf(" (member %q has odd size; missing pad byte?)", a.cur.Name)
		}
		a.err = a.errorf(fault.DebFormat, "", err, "ar header at offset %d%s", hdrOff, hint)
		return arHeader{}, a.err
	}
	h.Offset = a.off
	if a.total >= 0 && h.Offset+h.Size > a.total {
		a.err = a.errorf(fault.DebTruncated, h.Name, io.ErrUnexpectedEOF,
			"member size %d extends past end of input (%d bytes available)", h.Size, a.total-h.Offset)
		return arHeader{}, a.err
	}
	// Hand the sanitized header to the library, preceded by the pad byte it
	// still expects to skip after an odd-sized member.
	a.feed.prefix = append(append(a.feed.prefix[:0], raw[:a.pad]...), san...)
	lh, err := a.lib.Next()
	if err != nil {
		a.err = a.errorf(fault.DebFormat, h.Name, err, "ar library")
		return arHeader{}, a.err
	}
	if lh.Size != h.Size {
		a.err = a.errorf(fault.DebFormat, h.Name, nil, "ar library size %d disagrees with header %d", lh.Size, h.Size)
		return arHeader{}, a.err
	}
	a.cur, a.left, a.pad = h, h.Size, h.Size%2
	return h, nil
}

// Read reads the current member's data.
func (a *arReader) Read(p []byte) (n int, err error) {
	if a.left <= 0 {
		return 0, io.EOF
	}
	defer recoverInto(a, &err)
	if int64(len(p)) > a.left {
		p = p[:a.left]
	}
	n, err = a.lib.Read(p)
	a.left -= int64(n)
	if err == io.EOF {
		if a.left > 0 {
			return n, a.errorf(fault.DebTruncated, a.cur.Name, io.ErrUnexpectedEOF,
				"member data cut short: %d of %d bytes missing", a.left, a.cur.Size)
		}
		if n > 0 {
			err = nil
		}
	} else if err != nil {
		return n, a.errorf(fault.DebIO, a.cur.Name, err, "read member data")
	}
	return n, err
}

// parseArHeader validates a 60-byte ar header and returns it with a
// sanitized copy for the library.
func parseArHeader(b []byte) (arHeader, []byte, error) {
	if len(b) != arHeaderSize {
		return arHeader{}, nil, fmt.Errorf("header is %d bytes, want %d", len(b), arHeaderSize)
	}
	if b[58] != '`' || b[59] != '\n' {
		return arHeader{}, nil, fmt.Errorf("bad header terminator %q", b[58:60])
	}
	name := string(bytes.TrimRight(b[0:16], " "))
	if len(name) > 1 && name[len(name)-1] == '/' {
		name = name[:len(name)-1] // GNU ar style
	}
	if name == "" || name == "/" || name == "//" {
		return arHeader{}, nil, fmt.Errorf("unsupported member name %q (symbol table or long-name table)", b[0:16])
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || c == '/' {
			return arHeader{}, nil, fmt.Errorf("invalid member name %q", b[0:16])
		}
	}
	for _, f := range []struct {
		what string
		b    []byte
		base int
	}{{"mtime", b[16:28], 10}, {"uid", b[28:34], 10}, {"gid", b[34:40], 10}, {"mode", b[40:48], 8}} {
		if s := string(bytes.TrimRight(f.b, " ")); s != "" {
			if _, err := strconv.ParseUint(s, f.base, 64); err != nil {
				return arHeader{}, nil, fmt.Errorf("invalid %s field %q", f.what, f.b)
			}
		}
	}
	sizeField := bytes.TrimRight(b[48:58], " ")
	if len(sizeField) == 0 {
		return arHeader{}, nil, fmt.Errorf("empty size field")
	}
	for _, c := range sizeField {
		if c < '0' || c > '9' {
			return arHeader{}, nil, fmt.Errorf("non-numeric size field %q", b[48:58])
		}
	}
	size, err := strconv.ParseInt(string(sizeField), 10, 64)
	if err != nil {
		return arHeader{}, nil, fmt.Errorf("invalid size field %q: %w", b[48:58], err)
	}
	san := fmt.Appendf(nil, "%-16s%-12d%-6d%-6d%-8s%-10d`\n", name, 0, 0, 0, "100644", size)
	if len(san) != arHeaderSize {
		return arHeader{}, nil, fmt.Errorf("cannot re-encode header")
	}
	return arHeader{Name: name, Size: size}, san, nil
}
