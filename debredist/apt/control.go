package apt

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// SyntaxError reports input that is not deb822 control syntax: a line
// without a colon, a continuation line before any field, an invalid field
// name, a control character (binary junk), or a stanza or line above the
// size limit. Line is 1-based.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("control syntax: line %d: %s", e.Line, e.Msg)
}

// fieldSpan locates one field in paragraphReader.buf.
type fieldSpan struct {
	nameStart, nameEnd, valStart, end int
	line                              int
	multi                             bool
}

// paragraphReader splits deb822 text into paragraphs (stanzas) without
// holding more than one paragraph in memory.
type paragraphReader struct {
	src   *errRecorder
	sc    *bufio.Scanner
	max   int
	line  int // number of the last line read
	start int // line where the current paragraph starts
	buf   []byte
	spans []fieldSpan
}

func newParagraphReader(r io.Reader, max int) *paragraphReader {
	src := &errRecorder{r: r}
	sc := bufio.NewScanner(src)
	initial := 64 << 10
	if initial > max+1 {
		initial = max + 1
	}
	sc.Buffer(make([]byte, initial), max+1)
	return &paragraphReader{src: src, sc: sc, max: max}
}

// next reads the next paragraph into buf and spans. It returns false at the
// end of the input. Lines are stored without their line ending (CRLF and LF
// both accepted) and joined with "\n".
func (pr *paragraphReader) next() (bool, error) {
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
			return false, &SyntaxError{Line: pr.line, Msg: fmt.Sprintf("control character %#02x at column %d (binary data?)", b[i], i+1)}
		}
		if len(pr.buf)+len(b)+1 > pr.max {
			return false, &SyntaxError{Line: pr.line, Msg: fmt.Sprintf("stanza starting at line %d exceeds %d bytes", pr.start, pr.max)}
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

// paragraph is a decoded stanza.
type paragraph struct {
	names  []string
	values []string
	lines  []int
}

// decode converts the buffered paragraph into names and values sharing one
// backing string.
func (pr *paragraphReader) decode(p *paragraph) {
	s := string(pr.buf)
	p.names = p.names[:0]
	p.values = p.values[:0]
	p.lines = p.lines[:0]
	for _, sp := range pr.spans {
		p.names = append(p.names, s[sp.nameStart:sp.nameEnd])
		p.values = append(p.values, fieldValue(s[sp.valStart:sp.end], sp.multi))
		p.lines = append(p.lines, sp.line)
	}
}

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
// their values (continuation lines joined with "\n").
type Stanza struct {
	Names  []string
	Values []string
}

// Get returns a field's value by case-insensitive name.
func (s Stanza) Get(name string) (string, bool) {
	for i, n := range s.Names {
		if strings.EqualFold(n, name) {
			return s.Values[i], true
		}
	}
	return "", false
}

// ParseStanza parses text holding exactly one deb822 paragraph (a deb's
// control file) with the same strict rules as index stanzas: no comments,
// no control characters, no field or line above max bytes, no duplicate
// fields. It is the one deb822 parser of the project: pault.ag's control
// parser reads lines without a length bound and reads clearsigned input
// whole into memory, so it is not used on untrusted bytes.
func ParseStanza(r io.Reader, max int) (Stanza, error) {
	pr := newParagraphReader(r, max)
	ok, err := pr.next()
	if err != nil {
		return Stanza{}, err
	}
	if !ok {
		return Stanza{}, &SyntaxError{Line: pr.line, Msg: "no stanza"}
	}
	var p paragraph
	pr.decode(&p)
	st := Stanza{Names: append([]string(nil), p.names...), Values: append([]string(nil), p.values...)}
	for i, n := range st.Names {
		for _, m := range st.Names[:i] {
			if strings.EqualFold(n, m) {
				return Stanza{}, &SyntaxError{Line: p.lines[i], Msg: fmt.Sprintf("duplicate field %q", n)}
			}
		}
	}
	more, err := pr.next()
	if err != nil {
		return Stanza{}, err
	}
	if more {
		return Stanza{}, &SyntaxError{Line: pr.start, Msg: "more than one stanza"}
	}
	return st, nil
}
