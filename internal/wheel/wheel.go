// Package wheel writes Python wheels (PEP 427) with deterministic bytes:
// entries sorted, the .dist-info directory last with RECORD at its end,
// fixed timestamps and permissions, and a deflate encoder pinned in go.mod.
// It packs files it is given; it does not know what belongs in a wheel.
package wheel

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/debredist/debredist/internal/safepath"
	"github.com/klauspost/compress/flate"
)

// Meta names a wheel.
type Meta struct {
	Name        string // distribution name, e.g. tensorrt_lean
	Version     string // e.g. 10.3.0
	PythonTag   string // e.g. cp310
	ABITag      string // e.g. none
	PlatformTag string // e.g. linux_aarch64
	Summary     string
	Generator   string // WHEEL's Generator: line
}

// File is one file of the wheel, relative to site-packages.
type File struct {
	Path string
	Mode fs.FileMode
	Open func() (io.ReadCloser, error)
}

// MTime is the timestamp of every entry (the earliest a zip can hold).
var MTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

var (
	nameRE    = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	versionRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)
	tagRE     = regexp.MustCompile(`^[A-Za-z0-9_.]+$`)
)

func (m Meta) check() error {
	switch {
	case !nameRE.MatchString(m.Name):
		return fmt.Errorf("wheel: invalid distribution name %q", m.Name)
	case !versionRE.MatchString(m.Version):
		return fmt.Errorf("wheel %s: invalid version %q", m.Name, m.Version)
	case !tagRE.MatchString(m.PythonTag) || !tagRE.MatchString(m.ABITag) || !tagRE.MatchString(m.PlatformTag):
		return fmt.Errorf("wheel %s: invalid tags %q-%q-%q", m.Name, m.PythonTag, m.ABITag, m.PlatformTag)
	}
	return nil
}

// escaped is the distribution name as wheel file names spell it.
func (m Meta) escaped() string {
	return regexp.MustCompile(`[-_.]+`).ReplaceAllString(m.Name, "_")
}

// FileName is the wheel's file name:
// {name}-{version}-{python tag}-{abi tag}-{platform tag}.whl.
func (m Meta) FileName() string {
	return fmt.Sprintf("%s-%s-%s-%s-%s.whl", m.escaped(), m.Version, m.PythonTag, m.ABITag, m.PlatformTag)
}

// DistInfo is the name of the wheel's .dist-info directory.
func (m Meta) DistInfo() string { return m.escaped() + "-" + m.Version + ".dist-info" }

// Write writes the wheel. Every file path must be clean, relative and
// outside the .dist-info directory Write generates.
func Write(w io.Writer, m Meta, files []File) error {
	if err := m.check(); err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("wheel %s: no files", m.FileName())
	}
	di := m.DistInfo()
	files = append([]File(nil), files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for i, f := range files {
		if f.Path == "" || path.Clean(f.Path) != f.Path || path.IsAbs(f.Path) || safepath.Escapes(f.Path) {
			return fmt.Errorf("wheel %s: invalid path %q", m.FileName(), f.Path)
		}
		if f.Path == di || strings.HasPrefix(f.Path, di+"/") {
			return fmt.Errorf("wheel %s: %s is inside the generated %s", m.FileName(), f.Path, di)
		}
		if i > 0 && files[i-1].Path == f.Path {
			return fmt.Errorf("wheel %s: %s twice", m.FileName(), f.Path)
		}
	}
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, 6)
	})
	var record bytes.Buffer
	rw := csv.NewWriter(&record)
	add := func(name string, mode fs.FileMode, r io.Reader) error {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: MTime}
		h.SetMode(mode)
		zf, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		sum := sha256.New()
		n, err := io.Copy(io.MultiWriter(zf, sum), r)
		if err != nil {
			return fmt.Errorf("wheel %s: %s: %w", m.FileName(), name, err)
		}
		return rw.Write([]string{name, "sha256=" + base64.RawURLEncoding.EncodeToString(sum.Sum(nil)), fmt.Sprint(n)})
	}
	for _, f := range files {
		mode := fs.FileMode(0o644)
		if f.Mode&0o111 != 0 {
			mode = 0o755
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("wheel %s: %s: %w", m.FileName(), f.Path, err)
		}
		err = add(f.Path, mode, rc)
		_ = rc.Close()
		if err != nil {
			return err
		}
	}
	meta := fmt.Sprintf("Metadata-Version: 2.1\nName: %s\nVersion: %s\n", m.Name, m.Version)
	if m.Summary != "" {
		meta += "Summary: " + strings.ReplaceAll(m.Summary, "\n", " ") + "\n"
	}
	gen := m.Generator
	if gen == "" {
		gen = "debredist"
	}
	whl := fmt.Sprintf(
		"Wheel-Version: 1.0\nGenerator: %s\nRoot-Is-Purelib: false\nTag: %s-%s-%s\n",
		gen,
		m.PythonTag,
		m.ABITag,
		m.PlatformTag,
	)
	if err := add(di+"/METADATA", 0o644, strings.NewReader(meta)); err != nil {
		return err
	}
	if err := add(di+"/WHEEL", 0o644, strings.NewReader(whl)); err != nil {
		return err
	}
	if err := rw.Write([]string{di + "/RECORD", "", ""}); err != nil {
		return err
	}
	rw.Flush()
	if err := rw.Error(); err != nil {
		return err
	}
	h := &zip.FileHeader{Name: di + "/RECORD", Method: zip.Deflate, Modified: MTime}
	h.SetMode(0o644)
	zf, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	if _, err := zf.Write(record.Bytes()); err != nil {
		return err
	}
	return zw.Close()
}
