package apt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/jsonpos"
)

// LockVersion is the format version WriteLock writes and ReadLock accepts.
const LockVersion = 1

// maxLockBytes bounds a lock file read by ReadLock.
const maxLockBytes = 64 << 20

// Lock is the exact deb set of a conversion, so that it can be repeated after
// the repository index moves on. Each package carries Repo, Name, Version,
// Filename, SHA256, Size (0 when unknown: a jetpack-nixos inventory records
// none), Source and SourceVersion.
type Lock struct {
	Suite    string    `json:"suite"`
	Base     string    `json:"base,omitempty"`
	Packages []Package `json:"packages"`
}

// LockError reports an invalid lock entry.
type LockError struct {
	Repo, Package string
	Reason        string
}

func (e *LockError) Error() string {
	return fmt.Sprintf("apt: lock entry %s/%s: %s", e.Repo, e.Package, e.Reason)
}

// lockFile is the on-disk form written by WriteLock.
type lockFile struct {
	Version  int         `json:"version"`
	Suite    string      `json:"suite"`
	Base     string      `json:"base,omitempty"`
	Packages []lockEntry `json:"packages"`
}

type lockEntry struct {
	Repo     string `json:"repo"`
	Name     string `json:"package"`
	Version  string `json:"version"`
	Filename string `json:"filename"`
	SHA256   string `json:"sha256"`
	// Size is positive; absent when unknown (WriteLock of debs read from
	// a jetpack-nixos inventory): a size of 0 would turn the check of the
	// downloaded size off unsaid.
	Size          *int64 `json:"size,omitempty"`
	Source        string `json:"source"`
	SourceVersion string `json:"source_version,omitempty"`
}

// sourceInfoEntry is one package of jetpack-nixos' sourceinfo format.
type sourceInfoEntry struct {
	Filename string  `json:"filename"`
	SHA256   string  `json:"sha256"`
	Version  string  `json:"version"`
	Source   *string `json:"source"`
}

// ReadLock reads a lock file in debredist's own format (an object with
// "version" and a "packages" array) or in jetpack-nixos' sourceinfo format
// ({repo: {package: {filename, sha256, version, source?}}}); the format is
// told by shape. Sourceinfo has no suite and no sizes: Suite stays empty for
// the caller to set and Size is 0. Every entry is validated like an index
// stanza; Source is split into Source and SourceVersion, and defaults to the
// package name. Unknown keys, keys in another case and keys given twice are
// rejected in both formats, and so is a size that is not positive. Packages
// come back sorted by Repo, then Name.
func ReadLock(r io.Reader) (*Lock, error) {
	data, err := jsonpos.ReadAll("lock", r, maxLockBytes)
	if err != nil {
		return nil, err
	}
	return ParseLock("lock", data)
}

// lockShapes says what a lock file may be, for errors.
const lockShapes = `a debredist lock ({"version": 1, "suite": ..., "packages": [...]}) or a jetpack-nixos sourceinfo ` +
	`file ({repo: {package: {"filename", "sha256", "version", "source"}}})`

// ParseLock is ReadLock of the content of the file name; a JSON error
// names the file, line and column ("lock.json:3:7: ...").
func ParseLock(name string, data []byte) (*Lock, error) {
	if len(data) > maxLockBytes {
		return nil, jsonpos.TooLarge(name, maxLockBytes)
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return nil, &jsonpos.Error{File: name, Msg: "the file is empty (want " + lockShapes + ")"}
	case trimmed[0] != '{':
		return nil, jsonpos.At(name, data, int64(len(data)-len(trimmed)), "want a JSON object: %s", lockShapes)
	}
	var top map[string]json.RawMessage
	if err := jsonpos.Decode(name, data, &top); err != nil {
		return nil, err
	}
	if raw, ok := top["packages"]; ok && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		return readOwnLock(name, data)
	}
	for _, repo := range slices.Sorted(maps.Keys(top)) {
		if v := bytes.TrimSpace(top[repo]); len(v) == 0 || v[0] != '{' {
			return nil, jsonpos.At(
				name,
				data,
				max(jsonpos.KeyOffset(data, repo), 0),
				"%s: not a debredist lock (no \"packages\" array) and, read as a jetpack-nixos sourceinfo file, a repo must map "+
					"to an object of packages",
				jsonpos.Quote(repo),
			)
		}
	}
	return readSourceInfo(name, data)
}

func readOwnLock(name string, data []byte) (*Lock, error) {
	var lf lockFile
	if err := jsonpos.Decode(name, data, &lf); err != nil {
		return nil, err // names file, line and column
	}
	if lf.Version != LockVersion {
		return nil, fmt.Errorf("%s: lock format version %d, want %d", name, lf.Version, LockVersion)
	}
	l := &Lock{Suite: lf.Suite, Base: lf.Base, Packages: make([]Package, 0, len(lf.Packages))}
	for _, e := range lf.Packages {
		p := Package{
			Repo: e.Repo, Name: e.Name, Version: e.Version, Filename: e.Filename,
			SHA256: e.SHA256, Source: e.Source, SourceVersion: e.SourceVersion,
		}
		if e.Size != nil {
			if *e.Size <= 0 {
				return nil, &LockError{
					Repo:    e.Repo,
					Package: e.Name,
					Reason: fmt.Sprintf(
						"size %d: want a positive number of bytes (leave \"size\" out when it is not known)",
						*e.Size,
					),
				}
			}
			p.Size = *e.Size
		}
		l.Packages = append(l.Packages, p)
	}
	if err := checkLock(l); err != nil {
		return nil, err
	}
	return l, nil
}

func readSourceInfo(name string, data []byte) (*Lock, error) {
	var repos map[string]map[string]sourceInfoEntry
	if err := jsonpos.Decode(name, data, &repos); err != nil {
		return nil, fmt.Errorf(
			"no \"packages\" array, so read as a jetpack-nixos sourceinfo file ({repo: {package: {...}}}): %w",
			err,
		)
	}
	l := &Lock{}
	for repo, pkgs := range repos {
		for pname, e := range pkgs {
			p := Package{Repo: repo, Name: pname, Version: e.Version, Filename: e.Filename, SHA256: e.SHA256, Source: pname}
			if e.Source != nil {
				src, ver, err := SplitSource(*e.Source)
				if err != nil {
					return nil, &LockError{Repo: repo, Package: pname, Reason: err.Error()}
				}
				p.Source, p.SourceVersion = src, ver
			}
			l.Packages = append(l.Packages, p)
		}
	}
	if err := checkLock(l); err != nil {
		return nil, err
	}
	return l, nil
}

// checkLock validates every entry, sorts the packages and rejects
// duplicates of (Repo, Name).
func checkLock(l *Lock) error {
	if l.Suite != "" && !profile.ValidSuite(l.Suite) {
		return fmt.Errorf("apt: lock: invalid suite %s", jsonpos.Quote(l.Suite))
	}
	for i := range l.Packages {
		p := &l.Packages[i]
		fail := func(reason string) error { return &LockError{Repo: p.Repo, Package: p.Name, Reason: reason} }
		if msg := filenameProblem(p.Repo); msg != "" || strings.Contains(p.Repo, "/") {
			return fail(fmt.Sprintf("invalid repo name %s", jsonpos.Quote(p.Repo)))
		}
		if msg := nameProblem(p.Name); msg != "" {
			return fail(msg)
		}
		if msg := versionProblem(p.Version); msg != "" {
			return fail(msg)
		}
		if msg := filenameProblem(p.Filename); msg != "" {
			return fail(fmt.Sprintf("unsafe filename %s: %s", jsonpos.Quote(p.Filename), msg))
		}
		sum, msg := sha256Problem(p.SHA256)
		if msg != "" {
			return fail(msg)
		}
		p.SHA256 = sum
		if p.Size < 0 {
			return fail(fmt.Sprintf("negative size %d", p.Size))
		}
		if p.Source == "" {
			p.Source = p.Name
		}
		if msg := nameProblem(p.Source); msg != "" {
			return fail("source: " + msg)
		}
		if p.SourceVersion != "" {
			if msg := versionProblem(p.SourceVersion); msg != "" {
				return fail("source version: " + msg)
			}
		}
	}
	sortPackages(l.Packages)
	for i := 1; i < len(l.Packages); i++ {
		a, b := l.Packages[i-1], l.Packages[i]
		if a.Repo == b.Repo && a.Name == b.Name {
			return &LockError{Repo: b.Repo, Package: b.Name, Reason: "listed twice"}
		}
	}
	return nil
}

func sortPackages(ps []Package) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Repo != ps[j].Repo {
			return ps[i].Repo < ps[j].Repo
		}
		return ps[i].Name < ps[j].Name
	})
}

// WriteLock writes l in debredist's lock format: JSON with a "version" field,
// packages sorted by Repo then Name, two-space indent, a trailing newline. The
// same Lock always gives the same bytes. Entries are validated as ReadLock
// does; l is not modified.
func WriteLock(w io.Writer, l *Lock) error {
	c := &Lock{Suite: l.Suite, Base: l.Base, Packages: append([]Package(nil), l.Packages...)}
	if err := checkLock(c); err != nil {
		return err
	}
	lf := lockFile{Version: LockVersion, Suite: c.Suite, Base: c.Base, Packages: make([]lockEntry, 0, len(c.Packages))}
	for _, p := range c.Packages {
		e := lockEntry{
			Repo: p.Repo, Name: p.Name, Version: p.Version, Filename: p.Filename,
			SHA256: p.SHA256, Source: p.Source, SourceVersion: p.SourceVersion,
		}
		if p.Size > 0 {
			e.Size = &p.Size
		}
		lf.Packages = append(lf.Packages, e)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&lf); err != nil {
		return fmt.Errorf("apt: encoding lock: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("apt: writing lock: %w", err)
	}
	return nil
}
