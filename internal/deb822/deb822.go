// Package deb822 reads Debian control syntax (deb822): paragraphs
// (stanzas) of "Name: value" fields with continuation lines, as apt indexes,
// Release files and a deb's control file are written. It is strict, as
// index parsing must be on untrusted bytes: no comments, no control
// characters, no field names outside deb822's alphabet, and every line and
// paragraph bounded by a size limit, so that memory stays bounded whatever
// the input. What the fields mean is the callers' (debredist/apt,
// internal/deb).
package deb822

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
)

// SyntaxError reports input that is not deb822 control syntax; it is
// fault.SyntaxError, public, so that callers match it with errors.As.
type SyntaxError = fault.SyntaxError

// fieldSpan locates one field in Reader.buf.
type fieldSpan struct {
	nameStart, nameEnd, valStart, end int
	line                              int
	multi                             bool
}

// Reader splits deb822 text into paragraphs (stanzas) without holding more
// than one paragraph in memory.
type Reader struct {
	src   *errRecorder
	sc    *bufio.Scanner
	max   int
	line  int // number of the last line read
	start int // line where the current paragraph starts
	buf   []byte
	spans []fieldSpan
}

// NewReader returns a Reader of r whose paragraphs (and so lines) may hold
// at most max bytes; a larger one is a *SyntaxError.
func NewReader(r io.Reader, max int) *Reader {
	src := &errRecorder{r: r}
	sc := bufio.NewScanner(src)
	initial := 64 << 10
	if initial > max+1 {
		initial = max + 1
	}
	sc.Buffer(make([]byte, initial), max+1)
	return &Reader{src: src, sc: sc, max: max}
}

// Next reads the next paragraph. It returns false at the end of the input.
// Text that is not deb822 is a *SyntaxError; a read error is returned
// wrapped, naming the line. Lines are kept without their line ending (CRLF
// and LF both accepted) and joined with "\n".
func (pr *Reader) Next() (bool, error) {
	pr.buf = pr.buf[:0]
	pr.spans = pr.spans[:0]
	for pr.sc.Scan() {
		pr.line++
		if pr.src.err != nil {
			// bufio.Scanner hands out the partial last line after a read
			// error: report the error, not the truncated line.
			break
		}
		b := pr.sc.Bytes()
		if isBlank(b) {
			if len(pr.spans) > 0 {
				return true, nil
			}
			continue
		}
		if i := badByte(b); i >= 0 {
			return false, &SyntaxError{
				Line: pr.line,
				Msg:  fmt.Sprintf("control character %#02x at column %d (binary data?)", b[i], i+1),
			}
		}
		if len(pr.buf)+len(b)+1 > pr.max {
			return false, &SyntaxError{
				Line: pr.line,
				Msg:  fmt.Sprintf("stanza starting at line %d exceeds %d bytes", pr.start, pr.max),
			}
		}
		if b[0] == ' ' || b[0] == '\t' {
			if len(pr.spans) == 0 {
				return false, &SyntaxError{Line: pr.line, Msg: "continuation line outside a field"}
			}
			pr.buf = append(pr.buf, '\n')
			pr.buf = append(pr.buf, b...)
			last := &pr.spans[len(pr.spans)-1]
			last.end = len(pr.buf)
			last.multi = true
			continue
		}
		if b[0] == '#' {
			return false, &SyntaxError{Line: pr.line, Msg: "line starts with '#' (comments are not allowed in indexes)"}
		}
		colon := -1
		for i, c := range b {
			if c == ':' {
				colon = i
				break
			}
		}
		if colon < 0 {
			return false, &SyntaxError{Line: pr.line, Msg: fmt.Sprintf("line without a colon: %q", truncate(b, 40))}
		}
		if msg := checkFieldName(b[:colon]); msg != "" {
			return false, &SyntaxError{Line: pr.line, Msg: msg}
		}
		if len(pr.spans) == 0 {
			pr.start = pr.line
		}
		off := len(pr.buf)
		if off > 0 {
			pr.buf = append(pr.buf, '\n')
			off++
		}
		pr.buf = append(pr.buf, b...)
		pr.spans = append(pr.spans, fieldSpan{
			nameStart: off, nameEnd: off + colon, valStart: off + colon + 1,
			end: len(pr.buf), line: pr.line,
		})
	}
	if err := pr.src.err; err != nil {
		return false, fmt.Errorf("reading line %d: %w", pr.line, err)
	}
	if err := pr.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return false, &SyntaxError{Line: pr.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", pr.max)}
		}
		return false, fmt.Errorf("reading line %d: %w", pr.line+1, err)
	}
	return len(pr.spans) > 0, nil
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// badByte returns the index of the first ASCII control character other than
// tab, or -1. UTF-8 text passes.
func badByte(b []byte) int {
	for i, c := range b {
		if c < 0x20 || c == 0x7f {
			if c != '\t' {
				return i
			}
		}
	}
	return -1
}

// checkFieldName applies deb822: printable US-ASCII except colon, not
// starting with '#' or '-'. It returns "" when the name is fine.
func checkFieldName(n []byte) string {
	if len(n) == 0 {
		return "empty field name"
	}
	if n[0] == '#' || n[0] == '-' {
		return fmt.Sprintf("field name %q starts with %q (comments are not allowed in indexes)", truncate(n, 40), n[0])
	}
	for _, c := range n {
		if c <= 0x20 || c >= 0x7f {
			return fmt.Sprintf("invalid field name %q", truncate(n, 40))
		}
	}
	return ""
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// fieldValue returns the value of a field whose raw text (everything after
// the colon, continuation lines included) is raw. Single-line values are
// trimmed. Continuation lines are trimmed too and joined with "\n"; a line
// "." stands for an empty line. The first line is kept even when empty, so
// "SHA256:\n a b c" yields "\na b c".
func fieldValue(raw string, multi bool) string {
	if !multi {
		return strings.TrimSpace(raw)
	}
	var sb strings.Builder
	sb.Grow(len(raw))
	first := true
	for line := range strings.SplitSeq(raw, "\n") {
		line = strings.TrimSpace(line)
		if !first {
			sb.WriteByte('\n')
			if line == "." {
				line = ""
			}
		}
		first = false
		sb.WriteString(line)
	}
	return sb.String()
}

// Decode stores the paragraph Next read in st, reusing st's slices; the
// names and values share one backing string.
func (pr *Reader) Decode(st *Stanza) {
	s := string(pr.buf)
	st.Names = st.Names[:0]
	st.Values = st.Values[:0]
	st.Lines = st.Lines[:0]
	for _, sp := range pr.spans {
		st.Names = append(st.Names, s[sp.nameStart:sp.nameEnd])
		st.Values = append(st.Values, fieldValue(s[sp.valStart:sp.end], sp.multi))
		st.Lines = append(st.Lines, sp.line)
	}
}

// Start returns the line where the paragraph Next read starts (1-based).
func (pr *Reader) Start() int { return pr.start }

// Line returns the number of the last line read.
func (pr *Reader) Line() int { return pr.line }

// CutShort reports whether the input read so far is not empty and does not
// end with a line break: text cut short ends in the middle of a line.
func (pr *Reader) CutShort() bool { return pr.src.read && pr.src.last != '\n' }

// errRecorder remembers the first read error other than io.EOF, and the
// last byte read (an index cut short ends without a line break).
type errRecorder struct {
	r    io.Reader
	err  error
	read bool
	last byte
}

func (e *errRecorder) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if n > 0 {
		e.read, e.last = true, p[n-1]
	}
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// Stanza is one deb822 paragraph: field names as written, in order, with
// their values (continuation lines joined with "\n") and the line of each
// field.
type Stanza struct {
	Names  []string
	Values []string
	Lines  []int
}

// Field returns the value of the named field in fields (keyed by names as
// written), matching the name case-insensitively as deb822 does, or "" when
// absent.
func Field(fields map[string]string, name string) string {
	if v, ok := fields[name]; ok {
		return v
	}
	for k, v := range fields {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// ParseStanza parses text holding exactly one deb822 paragraph (a deb's
// control file, a Release file) with the same strict rules as index
// stanzas: no comments, no control characters, no field or line above max
// bytes, no field twice (names compared case-insensitively, as Field
// looks them up). It is the one deb822 parser of the project: pault.ag's control
// parser reads lines without a length bound and reads clearsigned input
// whole into memory, so it is not used on untrusted bytes.
func ParseStanza(r io.Reader, max int) (Stanza, error) {
	pr := NewReader(r, max)
	ok, err := pr.Next()
	if err != nil {
		return Stanza{}, err
	}
	if !ok {
		return Stanza{}, &SyntaxError{Line: pr.line, Msg: "no stanza (empty file or blank lines)"}
	}
	var st Stanza
	pr.Decode(&st)
	for i, n := range st.Names {
		for _, m := range st.Names[:i] {
			if strings.EqualFold(n, m) {
				return Stanza{}, &SyntaxError{Line: st.Lines[i], Msg: fmt.Sprintf("duplicate field %q", n)}
			}
		}
	}
	more, err := pr.Next()
	if err != nil {
		return Stanza{}, err
	}
	if more {
		return Stanza{}, &SyntaxError{Line: pr.start, Msg: "more than one stanza (a second stanza starts here)"}
	}
	return st, nil
}
