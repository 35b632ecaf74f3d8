package apt

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/debredist/debredist/internal/deb822"
)

// maxReleaseBytes bounds a Release file (Debian's main one is ~150 KiB).
const maxReleaseBytes = 16 << 20

// FileHash is one line of a Release file's SHA256 field.
type FileHash struct {
	Path   string // relative to dists/<suite>/, e.g. "main/binary-arm64/Packages.xz"
	Size   int64
	SHA256 string // lowercase hex
}

// ReleaseFile is a parsed Release file, or the signed content of an InRelease
// file.
type ReleaseFile struct {
	Origin, Label, Suite, Codename, Date string
	Architectures, Components            []string
	// SHA256 maps a path to its size and hash.
	SHA256 map[string]FileHash
	// Fields holds every field as written (see [Package.Fields]).
	Fields map[string]string
}

// ErrClearsigned is returned by [ParseReleaseFile] for an InRelease file still
// wrapped in its OpenPGP clearsign armor: the caller verifies the signature
// and passes the signed text.
var ErrClearsigned = errors.New("apt: Release is clearsigned; verify and strip the armor first")

// ErrNotListed is wrapped by [ReleaseFile.Verify] when the Release file has
// no SHA256 entry for the path.
var ErrNotListed = errors.New("not listed in Release")

// MismatchError reports data whose size or SHA256 differ from the Release.
type MismatchError struct {
	Path                         string
	ExpectedSize, ActualSize     int64
	ExpectedSHA256, ActualSHA256 string
}

func (e *MismatchError) Error() string {
	if e.ExpectedSize != e.ActualSize {
		return fmt.Sprintf("apt: %s: size %d, Release says %d (sha256 %s, Release says %s)",
			e.Path, e.ActualSize, e.ExpectedSize, e.ActualSHA256, e.ExpectedSHA256)
	}
	return fmt.Sprintf("apt: %s: sha256 %s, Release says %s", e.Path, e.ActualSHA256, e.ExpectedSHA256)
}

// ParseReleaseFile reads a plain-text Release file: one deb822 stanza (at most
// 16 MiB), parsed by the deb822 rules every stanza follows (a second
// stanza, or a field given twice in any case, is a *SyntaxError).
// Malformed SHA256 lines and duplicate paths are errors.
func ParseReleaseFile(r io.Reader) (*ReleaseFile, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(64); bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("-----BEGIN PGP")) {
		return nil, ErrClearsigned
	}
	// One stanza, no field twice in any case: deb822.Field's lookup then
	// names the one the SHA256 lines below come from.
	st, err := deb822.ParseStanza(br, maxReleaseBytes)
	if err != nil {
		return nil, fmt.Errorf("apt: Release: %w", err)
	}
	rel := &ReleaseFile{Fields: make(map[string]string, len(st.Names)), SHA256: map[string]FileHash{}}
	line := 0
	for i, name := range st.Names {
		rel.Fields[name] = st.Values[i]
		if strings.EqualFold(name, "SHA256") {
			line = st.Lines[i]
		}
	}
	get := func(n string) string { return deb822.Field(rel.Fields, n) }
	rel.Origin, rel.Label, rel.Suite = get("Origin"), get("Label"), get("Suite")
	rel.Codename, rel.Date = get("Codename"), get("Date")
	rel.Architectures = strings.Fields(get("Architectures"))
	rel.Components = strings.Fields(get("Components"))
	for n, l := range strings.Split(get("SHA256"), "\n") {
		if l == "" {
			continue
		}
		f := strings.Fields(l)
		if len(f) != 3 {
			return nil, fmt.Errorf(
				"apt: Release: line %d: SHA256 entry %q: want \"hash size path\"",
				line+n,
				truncateString(l, 120),
			)
		}
		sum, msg := sha256Problem(f[0])
		if msg == "" {
			var size int64
			size, msg = parseSize(f[1])
			if msg == "" {
				if _, dup := rel.SHA256[f[2]]; dup {
					msg = "duplicate path"
				}
				rel.SHA256[f[2]] = FileHash{Path: f[2], Size: size, SHA256: sum}
			}
		}
		if msg != "" {
			return nil, fmt.Errorf("apt: Release: line %d: SHA256 entry for %s: %s", line+n, f[2], msg)
		}
	}
	return rel, nil
}

// Has reports whether the Release lists a SHA256 for path.
func (r *ReleaseFile) Has(path string) bool {
	_, ok := r.SHA256[path]
	return ok
}

// Verify reads data to the end and checks its size and SHA256 against the
// Release entry for path (e.g. "main/binary-arm64/Packages.xz"). It returns
// a *MismatchError on a difference, and an error wrapping ErrNotListed when
// the path has no entry.
func (r *ReleaseFile) Verify(path string, data io.Reader) error {
	want, ok := r.SHA256[path]
	if !ok {
		return fmt.Errorf("apt: %s: %w", path, ErrNotListed)
	}
	h := sha256.New()
	n, err := io.Copy(h, data)
	if err != nil {
		return fmt.Errorf("apt: verifying %s: %w", path, err)
	}
	got := hex.EncodeToString(h.Sum(nil))
	if n != want.Size || got != want.SHA256 {
		return &MismatchError{
			Path:           path,
			ExpectedSize:   want.Size,
			ActualSize:     n,
			ExpectedSHA256: want.SHA256,
			ActualSHA256:   got,
		}
	}
	return nil
}
