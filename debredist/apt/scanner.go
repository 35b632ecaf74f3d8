package apt

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/debredist/debredist/internal/deb822"
)

// DefaultMaxStanzaBytes is the stanza size limit when ParseOptions leaves it
// zero.
const DefaultMaxStanzaBytes = 1 << 20

// DefaultMaxProblems is the problem count limit when ParseOptions leaves it
// zero.
const DefaultMaxProblems = 1000

// ParseOptions tunes Packages parsing. The zero value is ready to use.
type ParseOptions struct {
	// MaxStanzaBytes bounds one stanza (and so one line); a larger one is a
	// *SyntaxError. Zero means DefaultMaxStanzaBytes.
	MaxStanzaBytes int
	// MaxProblems bounds how many unsafe stanzas are recorded; one more is a
	// *TooManyProblemsError, so that memory stays bounded on hostile input.
	// Zero means DefaultMaxProblems.
	MaxProblems int
	// Strict makes the first unsafe stanza end the scan with a
	// *StanzaError, as apt refuses an index it cannot parse completely;
	// otherwise such a stanza is a Problem and is skipped.
	Strict bool
}

// Problem reports a well-formed stanza that cannot be downloaded safely: no
// Filename, missing or malformed SHA256, bad Size, unsafe Filename, missing
// or invalid Package or Version, duplicate field, malformed Source. The
// stanza is skipped and parsing goes on.
type Problem struct {
	Package string // may be empty when the stanza has no valid Package field
	Line    int    // 1-based line where the stanza starts
	Reason  string
}

func (p Problem) String() string {
	name := p.Package
	if name == "" {
		name = "(unnamed)"
	}
	return fmt.Sprintf("line %d: package %s: %s", p.Line, name, p.Reason)
}

// StanzaError ends a Strict scan at the first stanza that cannot be
// downloaded safely.
type StanzaError struct{ Problem }

func (e *StanzaError) Error() string { return "apt: Packages index: " + e.String() }

// TooManyProblemsError stops a scan that found more than the allowed number
// of unsafe stanzas.
type TooManyProblemsError struct{ Limit int }

func (e *TooManyProblemsError) Error() string {
	return fmt.Sprintf("apt: more than %d unsafe stanzas in Packages index", e.Limit)
}

// Scanner streams the stanzas of a Packages index, holding one stanza at a
// time: memory does not depend on the size of the index.
//
// Error policy: text that is not deb822 control syntax (a line without a
// colon, binary junk, a continuation line before any field, an oversized
// line or stanza) or a decompression failure (truncated .xz) ends the scan
// with an error naming the line, because the rest of such a file cannot be
// trusted to be an index at all. A syntactically fine stanza that fails the
// safety checks becomes a Problem and is skipped.
type Scanner struct {
	rc       io.ReadCloser
	pr       *deb822.Reader
	para     deb822.Stanza
	problems []Problem
	maxProbs int
	strict   bool
	err      error
}

// NewScanner decompresses r as Decompress does and returns a Scanner over it.
func NewScanner(r io.Reader, opts ParseOptions) (*Scanner, error) {
	rc, err := Decompress(r)
	if err != nil {
		return nil, fmt.Errorf("apt: Packages index: %w", err)
	}
	max := opts.MaxStanzaBytes
	if max <= 0 {
		max = DefaultMaxStanzaBytes
	}
	mp := opts.MaxProblems
	if mp <= 0 {
		mp = DefaultMaxProblems
	}
	return &Scanner{rc: rc, pr: deb822.NewReader(rc, max), maxProbs: mp, strict: opts.Strict}, nil
}

var errClosed = errors.New("apt: Scanner is closed")

// Next returns the next safe stanza, or [io.EOF] at the end of the index. After
// any other error, Next keeps returning that error.
func (s *Scanner) Next() (*Package, error) {
	p := new(Package)
	if err := s.next(p); err != nil {
		return nil, err
	}
	return p, nil
}

// next fills p with the next safe stanza.
func (s *Scanner) next(p *Package) error {
	for s.err == nil {
		ok, err := s.pr.Next()
		if err != nil {
			s.err = fmt.Errorf("apt: Packages index: %w", err)
			break
		}
		if !ok {
			s.err = io.EOF
			if s.strict && s.pr.CutShort() {
				s.err = fmt.Errorf(
					"apt: Packages index: %w",
					&SyntaxError{Line: s.pr.Line(), Msg: "the index ends in the middle of this line (cut short?)"},
				)
			}
			break
		}
		s.pr.Decode(&s.para)
		*p = Package{}
		reason := buildPackage(p, &s.para, s.pr.Start())
		if reason == "" {
			return nil
		}
		if s.strict {
			s.err = &StanzaError{Problem{Package: p.Name, Line: s.pr.Start(), Reason: reason}}
			break
		}
		if len(s.problems) >= s.maxProbs {
			s.err = &TooManyProblemsError{Limit: s.maxProbs}
			break
		}
		s.problems = append(s.problems, Problem{Package: p.Name, Line: s.pr.Start(), Reason: reason})
	}
	return s.err
}

// Problems returns the stanzas skipped so far.
func (s *Scanner) Problems() []Problem { return s.problems }

// Close releases the decompressor. It does not close the reader given to
// NewScanner.
func (s *Scanner) Close() error {
	if s.err == nil || s.err == io.EOF {
		s.err = errClosed
	}
	return s.rc.Close()
}

// ParsePackages reads a whole Packages index (any compression Decompress
// knows) and returns its safe packages in index order plus the problems.
func ParsePackages(r io.Reader, opts ParseOptions) ([]Package, []Problem, error) {
	s, err := NewScanner(r, opts)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = s.Close() }()
	var pkgs []Package
	for {
		pkgs = append(pkgs, Package{})
		err := s.next(&pkgs[len(pkgs)-1])
		if err == io.EOF {
			return pkgs[:len(pkgs)-1], s.Problems(), nil
		}
		if err != nil {
			return nil, s.Problems(), err
		}
	}
}

// Field indexes of the fields buildPackage understands.
const (
	fOther = iota
	fPackage
	fVersion
	fArchitecture
	fFilename
	fSize
	fSHA256
	fMD5sum
	fSHA1
	fSource
	fDescription
	fDepends
	fProvides
	fCount
)

var knownNames = [fCount]string{
	"",
	"Package",
	"Version",
	"Architecture",
	"Filename",
	"Size",
	"SHA256",
	"MD5sum",
	"SHA1",
	"Source",
	"Description",
	"Depends",
	"Provides",
}

// knownByLen lists the known fields by name length (read-only).
var knownByLen = [13][]int{
	4: {fSHA1, fSize}, 6: {fSHA256, fMD5sum, fSource}, 7: {fPackage, fVersion, fDepends},
	8: {fFilename, fProvides}, 11: {fDescription}, 12: {fArchitecture},
}

func knownField(name string) int {
	if len(name) >= len(knownByLen) {
		return fOther
	}
	for _, k := range knownByLen[len(name)] {
		if name == knownNames[k] || strings.EqualFold(name, knownNames[k]) {
			return k
		}
	}
	return fOther
}

// buildPackage fills the zero Package p from a decoded stanza and returns the
// reason it is unsafe, or "". p.Name is set when the stanza has a valid
// Package field.
func buildPackage(p *Package, para *deb822.Stanza, line int) string {
	p.Line = line
	p.Fields = make(map[string]string, len(para.Names))
	var vals [fCount]string
	var seen [fCount]bool
	dup := ""
	for i, name := range para.Names {
		v := para.Values[i]
		if _, exists := p.Fields[name]; exists && dup == "" {
			dup = name
		}
		p.Fields[name] = v
		k := knownField(name)
		if k == fOther {
			continue
		}
		if seen[k] && dup == "" {
			dup = name
		}
		seen[k] = true
		vals[k] = v
	}
	p.Name = vals[fPackage]
	p.Version = vals[fVersion]
	p.Architecture = vals[fArchitecture]
	p.Filename = vals[fFilename]
	p.MD5sum = vals[fMD5sum]
	p.SHA1 = vals[fSHA1]
	p.Depends = vals[fDepends]
	p.Provides = vals[fProvides]
	desc, _, _ := strings.Cut(vals[fDescription], "\n")
	p.Description = desc

	if dup != "" {
		return fmt.Sprintf("duplicate field %s", dup)
	}
	if msg := nameProblem(p.Name); msg != "" {
		p.Name = ""
		return msg
	}
	if msg := versionProblem(p.Version); msg != "" {
		return msg
	}
	if p.Filename == "" {
		return "missing Filename field"
	}
	if msg := filenameProblem(p.Filename); msg != "" {
		return fmt.Sprintf("unsafe Filename %q: %s", truncateString(p.Filename, 200), msg)
	}
	size, msg := parseSize(vals[fSize])
	if msg != "" {
		return msg
	}
	p.Size = size
	sum, msg := sha256Problem(vals[fSHA256])
	if msg != "" {
		return msg
	}
	p.SHA256 = sum
	if src := vals[fSource]; src != "" {
		name, ver, err := SplitSource(src)
		if err != nil {
			return fmt.Sprintf("malformed Source %q", truncateString(src, 200))
		}
		p.Source, p.SourceVersion = name, ver
	} else {
		p.Source = p.Name
	}
	return ""
}
