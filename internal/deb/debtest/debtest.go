package debtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// File is one entry of a deb's data.tar.
type File struct {
	// Name is the path inside data.tar, e.g. "usr/local/cuda-12.6/bin/nvcc".
	// The builder writes "./"+Name (and a trailing "/" for directories), like
	// dpkg-deb, unless Raw is set.
	Name string
	// Type is tar.TypeReg (the default when 0), tar.TypeDir,
	// tar.TypeSymlink, tar.TypeLink, or any raw type byte for hostile cases.
	Type byte
	// Mode defaults to 0644 for files, 0755 for directories and 0777 for
	// symlinks. Setuid/setgid/sticky use the tar bits (04000, 02000, 01000).
	Mode int64
	// Linkname is the symlink target, or the hardlink target (for a
	// hardlink, written as "./"+Linkname unless Raw is set).
	Linkname string
	// Body is the content of a regular file.
	Body []byte
	// Raw writes Name and Linkname verbatim (no "./" prefix, no trailing
	// "/"), for hostile names such as "../x" or "/etc/passwd".
	Raw bool
	// Size, when non-zero, overrides the header size written for the entry
	// (the body is then written raw, so the tar stream lies about its size).
	Size int64
	// Devmajor and Devminor for character/block device entries.
	Devmajor, Devminor int64
}

// Member is an extra ar member.
type Member struct {
	Name string
	Body []byte
}

// Deb describes a .deb to build.
type Deb struct {
	// Control is the control file text (Package:, Version:, ... lines). A
	// trailing newline is appended if missing.
	Control string
	// ControlFiles are extra control.tar files (md5sums, conffiles,
	// postinst, ...), written after "control" in sorted name order.
	ControlFiles map[string][]byte
	// MD5Sums adds a generated md5sums control file for the regular files.
	MD5Sums bool
	// Files are written in the given order.
	Files []File
	// AddParents adds missing parent directories ("./", "./usr/", ...)
	// before their children, like dpkg-deb does; a name already written
	// (a symlink, say) is not added again.
	AddParents bool
	// Compression of control.tar and data.tar: "xz" (default), "gzip",
	// "zstd" or "none". bzip2 is not writable.
	Compression string
	// ControlCompression overrides Compression for control.tar.
	ControlCompression string
	// MTime for every tar header and ar member; zero means Unix epoch 0.
	MTime time.Time
	// TarFormat is the tar format of data.tar and control.tar; zero means
	// tar.FormatGNU (what dpkg-deb writes). tar.FormatPAX writes PAX
	// records for long names.
	TarFormat tar.Format

	// Hostile knobs.

	// DebianBinary is the debian-binary content; "" means "2.0\n".
	DebianBinary string
	// DataTar replaces the generated (uncompressed) data.tar; it is then
	// compressed as usual.
	DataTar []byte
	// DataMember replaces the compressed data member bytes verbatim.
	DataMember []byte
	// DataName overrides the data member name (default "data.tar"+suffix).
	DataName string
	// ControlMember replaces the compressed control member bytes verbatim.
	ControlMember []byte
	// ControlName overrides the control member name.
	ControlName string
	// ExtraMembers are written after the data member unless MemberOrder
	// places them elsewhere.
	ExtraMembers []Member
	// MemberOrder, when non-nil, lists the members to write, in order:
	// "debian-binary", "control", "data" for the standard ones and the names
	// of ExtraMembers. Members not listed are omitted.
	MemberOrder []string
	// ArSlash writes member names with a GNU-style trailing "/".
	ArSlash bool
	// NoPadding omits the "\n" pad byte after odd-sized ar members.
	NoPadding bool
	// Trailer is appended verbatim after the last ar member.
	Trailer []byte
}

// Suffix returns the member-name suffix for a compression name.
func Suffix(compression string) (string, error) {
	switch compression {
	case "", "xz":
		return ".xz", nil
	case "gzip", "gz":
		return ".gz", nil
	case "zstd", "zst":
		return ".zst", nil
	case "none":
		return "", nil
	default:
		return "", fmt.Errorf("debtest: unsupported compression %q", compression)
	}
}

// Compress compresses b deterministically with the named compression
// ("xz", "gzip", "zstd", "none").
func Compress(compression string, b []byte) ([]byte, error) {
	var buf bytes.Buffer
	switch compression {
	case "", "xz":
		w, err := xz.WriterConfig{}.NewWriter(&buf)
		if err != nil {
			return nil, fmt.Errorf("debtest: xz: %w", err)
		}
		if _, err := w.Write(b); err != nil {
			return nil, fmt.Errorf("debtest: xz: %w", err)
		}
		if err := w.Close(); err != nil {
			return nil, fmt.Errorf("debtest: xz: %w", err)
		}
	case "gzip", "gz":
		w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			return nil, fmt.Errorf("debtest: gzip: %w", err)
		}
		if _, err := w.Write(b); err != nil {
			return nil, fmt.Errorf("debtest: gzip: %w", err)
		}
		if err := w.Close(); err != nil {
			return nil, fmt.Errorf("debtest: gzip: %w", err)
		}
	case "zstd", "zst":
		w, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
		if err != nil {
			return nil, fmt.Errorf("debtest: zstd: %w", err)
		}
		if _, err := w.Write(b); err != nil {
			_ = w.Close()
			return nil, fmt.Errorf("debtest: zstd: %w", err)
		}
		if err := w.Close(); err != nil {
			return nil, fmt.Errorf("debtest: zstd: %w", err)
		}
	case "none":
		buf.Write(b)
	default:
		return nil, fmt.Errorf("debtest: unsupported compression %q", compression)
	}
	return buf.Bytes(), nil
}

// Build returns the deterministic bytes of the deb.
func Build(d Deb) ([]byte, error) {
	var buf bytes.Buffer
	if err := BuildTo(&buf, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// BuildTo writes the deb to w.
func BuildTo(w io.Writer, d Deb) error {
	mtime := d.MTime
	if mtime.IsZero() {
		mtime = time.Unix(0, 0)
	}
	ccomp := d.ControlCompression
	if ccomp == "" {
		ccomp = d.Compression
	}

	control := d.ControlMember
	controlName := d.ControlName
	if control == nil {
		ct, err := d.ControlTar(mtime)
		if err != nil {
			return err
		}
		if control, err = Compress(ccomp, ct); err != nil {
			return err
		}
	}
	if controlName == "" {
		suf, err := Suffix(ccomp)
		if err != nil {
			return err
		}
		controlName = "control.tar" + suf
	}

	data := d.DataMember
	dataName := d.DataName
	if data == nil {
		dt := d.DataTar
		if dt == nil {
			var err error
			if dt, err = d.BuildDataTar(); err != nil {
				return err
			}
		}
		var err error
		if data, err = Compress(d.Compression, dt); err != nil {
			return err
		}
	}
	if dataName == "" {
		suf, err := Suffix(d.Compression)
		if err != nil {
			return err
		}
		dataName = "data.tar" + suf
	}

	db := d.DebianBinary
	if db == "" {
		db = "2.0\n"
	}
	std := map[string]Member{
		"debian-binary": {Name: "debian-binary", Body: []byte(db)},
		"control":       {Name: controlName, Body: control},
		"data":          {Name: dataName, Body: data},
	}
	order := d.MemberOrder
	if order == nil {
		order = []string{"debian-binary", "control", "data"}
		for _, m := range d.ExtraMembers {
			order = append(order, m.Name)
		}
	}
	var members []Member
	for _, key := range order {
		if m, ok := std[key]; ok {
			members = append(members, m)
			continue
		}
		found := false
		for _, m := range d.ExtraMembers {
			if m.Name == key {
				members = append(members, m)
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("debtest: MemberOrder names unknown member %q", key)
		}
	}

	var out bytes.Buffer
	out.WriteString("!<arch>\n")
	for _, m := range members {
		name := m.Name
		if d.ArSlash {
			name += "/"
		}
		if len(name) > 16 {
			return fmt.Errorf("debtest: ar member name %q longer than 16 bytes", name)
		}
		fmt.Fprintf(&out, "%-16s%-12d%-6d%-6d%-8o%-10d`\n", name, mtime.Unix(), 0, 0, 0100644, len(m.Body))
		out.Write(m.Body)
		if len(m.Body)%2 == 1 && !d.NoPadding {
			out.WriteByte('\n')
		}
	}
	out.Write(d.Trailer)
	_, err := w.Write(out.Bytes())
	if err != nil {
		return fmt.Errorf("debtest: write deb: %w", err)
	}
	return nil
}

func (d *Deb) format() tar.Format {
	if d.TarFormat == 0 {
		return tar.FormatGNU
	}
	return d.TarFormat
}

// ControlTar returns the uncompressed control.tar.
func (d *Deb) ControlTar(mtime time.Time) ([]byte, error) {
	ctl := d.Control
	if !strings.HasSuffix(ctl, "\n") {
		ctl += "\n"
	}
	files := map[string][]byte{}
	for k, v := range d.ControlFiles {
		files[k] = v
	}
	if d.MD5Sums {
		if _, ok := files["md5sums"]; !ok {
			var sb strings.Builder
			for _, f := range d.Files {
				if f.Type != 0 && f.Type != tar.TypeReg {
					continue
				}
				sum := md5.Sum(f.Body)
				fmt.Fprintf(&sb, "%s  %s\n", hex.EncodeToString(sum[:]), strings.TrimPrefix(f.Name, "./"))
			}
			files["md5sums"] = []byte(sb.String())
		}
	}
	names := make([]string, 0, len(files))
	for k := range files {
		if k == "control" {
			continue
		}
		names = append(names, k)
	}
	sort.Strings(names)

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := func(name string, typ byte, mode int64, size int64) *tar.Header {
		return &tar.Header{Name: name, Typeflag: typ, Mode: mode, Size: size, ModTime: mtime,
			Uname: "root", Gname: "root", Format: d.format()}
	}
	if err := tw.WriteHeader(hdr("./", tar.TypeDir, 0755, 0)); err != nil {
		return nil, fmt.Errorf("debtest: control.tar: %w", err)
	}
	write := func(name string, body []byte) error {
		mode := int64(0644)
		switch name {
		case "preinst", "postinst", "prerm", "postrm", "config":
			mode = 0755
		}
		if err := tw.WriteHeader(hdr("./"+name, tar.TypeReg, mode, int64(len(body)))); err != nil {
			return fmt.Errorf("debtest: control.tar %s: %w", name, err)
		}
		if _, err := tw.Write(body); err != nil {
			return fmt.Errorf("debtest: control.tar %s: %w", name, err)
		}
		return nil
	}
	if err := write("control", []byte(ctl)); err != nil {
		return nil, err
	}
	for _, n := range names {
		if err := write(n, files[n]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("debtest: control.tar: %w", err)
	}
	return buf.Bytes(), nil
}

// BuildDataTar returns the uncompressed data.tar built from Files.
func (d *Deb) BuildDataTar() ([]byte, error) {
	mtime := d.MTime
	if mtime.IsZero() {
		mtime = time.Unix(0, 0)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	format := d.format()

	explicitDirs := map[string]File{}
	if d.AddParents {
		for _, f := range d.Files {
			if f.Type == tar.TypeDir && !f.Raw {
				explicitDirs[strings.Trim(f.Name, "/")] = f
			}
		}
	}
	emitted := map[string]bool{}    // names written, any type
	emittedDir := map[string]bool{} // names written as directories

	writeEntry := func(f File) error {
		typ := f.Type
		if typ == 0 {
			typ = tar.TypeReg
		}
		mode := f.Mode
		if mode == 0 {
			switch typ {
			case tar.TypeDir:
				mode = 0755
			case tar.TypeSymlink:
				mode = 0777
			default:
				mode = 0644
			}
		}
		name, link := f.Name, f.Linkname
		if !f.Raw {
			name = "./" + strings.Trim(name, "/")
			if name == "./" || name == "./." {
				name = "./"
			} else if typ == tar.TypeDir {
				name += "/"
			}
			if typ == tar.TypeLink {
				link = "./" + strings.TrimPrefix(link, "./")
			}
		}
		h := &tar.Header{
			Name: name, Linkname: link, Typeflag: typ, Mode: mode, ModTime: mtime,
			Uname: "root", Gname: "root", Format: format,
			Devmajor: f.Devmajor, Devminor: f.Devminor,
		}
		if typ == tar.TypeReg {
			h.Size = int64(len(f.Body))
		}
		if f.Size != 0 {
			h.Size = f.Size
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("debtest: data.tar %s: %w", name, err)
		}
		if f.Size != 0 {
			// Lying header: write the body raw and let the tar writer believe
			// it is complete by padding to the claimed size is not possible
			// without lying, so bypass it entirely.
			return errLyingSize
		}
		if len(f.Body) > 0 && h.Size > 0 {
			if _, err := tw.Write(f.Body); err != nil {
				return fmt.Errorf("debtest: data.tar %s: %w", name, err)
			}
		}
		return nil
	}

	for i, f := range d.Files {
		if d.AddParents && !f.Raw {
			clean := strings.Trim(f.Name, "/")
			var parents []string
			for p := path.Dir(clean); ; p = path.Dir(p) {
				if p == "." || p == "/" || p == "" {
					parents = append(parents, "")
					break
				}
				parents = append(parents, p)
			}
			for j := len(parents) - 1; j >= 0; j-- {
				p := parents[j]
				if p == clean || emitted[p] {
					continue
				}
				emitted[p], emittedDir[p] = true, true
				pf, ok := explicitDirs[p]
				if !ok {
					pf = File{Name: p, Type: tar.TypeDir}
				}
				if p == "" {
					pf.Name = ""
				}
				if err := writeEntry(pf); err != nil {
					return nil, err
				}
			}
			if f.Type == tar.TypeDir && emittedDir[clean] {
				continue
			}
			emittedDir[clean] = f.Type == tar.TypeDir
			// A name already written (of any type) is never added again as
			// a parent directory: that would be an ambiguous duplicate.
			emitted[clean] = true
		}
		if err := writeEntry(f); err == errLyingSize {
			// Flush what the tar writer has, then append the raw body and stop:
			// a lying entry must be the last one.
			if i != len(d.Files)-1 {
				return nil, fmt.Errorf("debtest: entry %q with Size override must be last", f.Name)
			}
			out := append([]byte(nil), buf.Bytes()...)
			out = append(out, f.Body...)
			return out, nil
		} else if err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("debtest: data.tar: %w", err)
	}
	return buf.Bytes(), nil
}

var errLyingSize = fmt.Errorf("debtest: lying size")
