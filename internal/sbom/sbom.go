package sbom

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// Format names a document format.
type Format string

// The formats Write writes.
const (
	SPDX      Format = "spdx"      // SPDX 2.3 JSON
	CycloneDX Format = "cyclonedx" // CycloneDX 1.6 JSON
)

// Supplier is the supplier named for every redist component and deb.
const Supplier = "NVIDIA Corporation"

// Input is everything a document says.
type Input struct {
	Tool     string    // the generator, "debredist 0.1.0"
	Created  time.Time // the release date, or SOURCE_DATE_EPOCH
	Releases []Release // one per manifest, in a stable order
}

// Release is one manifest (redistrib_<label>.json) and what its sidecar records.
type Release struct {
	Manifest    string // slash-separated, relative to OUT
	Product     string // release_product
	Label       string // release_label
	Profile     string // the profile's name (jetpack6)
	JetPack     string // the profile's JetPack version, may be empty
	L4T         string // the apt suite (r36.5)
	Components  []Component
	ReleaseDate string
}

// Component is one archive: a redist component at one version, platform
// and CUDA variant.
type Component struct {
	PName       string
	Name        string // the manifest's display name
	Version     string
	Platform    string
	CUDAVariant string // CUDA major, "" for none
	Archive     File   // Path relative to OUT
	License     License
	Debs        []Deb
	Stubs       []Stub
	Wheels      []Wheel
}

// File is a file with its hashes.
type File struct {
	Path   string // slash-separated
	SHA256 string
	SHA1   string
	MD5    string // may be empty
	Size   int64
}

// License is a component's LICENSE text as merged from its debs'
// copyright files, and the manifest's name for it.
type License struct {
	Name string
	Text string
}

// Deb is one deb an archive was made from.
type Deb struct {
	Package  string
	Version  string
	Filename string // the pool path
	SHA256   string
	Size     int64
	// URL is where it can be downloaded ("" when the mirror was a local
	// directory: NOASSERTION).
	URL string
}

// Stub is a stub library synthesized from a real one of the same archive.
type Stub struct {
	File    File   // path inside the archive's top directory
	From    File   // the real library, inside the archive's top directory
	FromDeb string // the deb file the real library came from
	SOName  string
}

// Wheel is a Python wheel built from the dist-packages trees of debs.
type Wheel struct {
	File File     // path inside the archive's top directory
	Debs []string // the deb packages whose trees it holds
}

var (
	hexRE     = regexp.MustCompile(`^[0-9a-f]+$`)
	nameRE    = regexp.MustCompile(`^[a-z0-9_]+$`)
	versionRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.+~:_-]*$`)
	debNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.+-]+$`)
	platRE    = regexp.MustCompile(`^(linux-[a-z0-9]+|source)$`)
	urlRE     = regexp.MustCompile(`^https?://[A-Za-z0-9.:-]+(/[A-Za-z0-9._~%+@/-]*)?$`)
)

// Check refuses an Input whose strings could not be written faithfully:
// each error names the manifest and the field.
func (in *Input) Check() error {
	if err := text("tool", in.Tool, 200); err != nil {
		return err
	}
	if len(in.Releases) == 0 {
		return fmt.Errorf("no release: OUT holds no manifest")
	}
	for _, r := range in.Releases {
		if err := r.check(); err != nil {
			return fmt.Errorf("%s: %w", r.Manifest, err)
		}
	}
	return nil
}

func (r *Release) check() error {
	if !safePath(r.Manifest) {
		return fmt.Errorf("manifest path %q is unsafe", r.Manifest)
	}
	for _, c := range []struct{ f, v string }{
		{"release_product", r.Product},
		{"release_label", r.Label},
		{"profile.l4t", r.L4T},
		{"profile.name", r.Profile},
	} {
		if !versionRE.MatchString(c.v) {
			return fmt.Errorf("%s %q: not a name or version", c.f, c.v)
		}
	}
	if r.JetPack != "" && !versionRE.MatchString(r.JetPack) {
		return fmt.Errorf("profile.jetpack %q: not a version", r.JetPack)
	}
	if _, err := time.Parse(time.DateOnly, r.ReleaseDate); err != nil {
		return fmt.Errorf("release_date %q: not a date (YYYY-MM-DD)", r.ReleaseDate)
	}
	if len(r.Components) == 0 {
		return fmt.Errorf("no archive recorded")
	}
	for _, c := range r.Components {
		if err := c.check(); err != nil {
			return fmt.Errorf("archive %s: %w", c.Archive.Path, err)
		}
	}
	return nil
}

func (c *Component) check() error {
	if !nameRE.MatchString(c.PName) {
		return fmt.Errorf("pname %q: not [a-z0-9_]+", c.PName)
	}
	if !versionRE.MatchString(c.Version) {
		return fmt.Errorf("version %q: not a version", c.Version)
	}
	if !platRE.MatchString(c.Platform) {
		return fmt.Errorf("platform %q: not linux-<arch> or source", c.Platform)
	}
	if c.CUDAVariant != "" && !regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`).MatchString(c.CUDAVariant) {
		return fmt.Errorf("cuda_variant %q: not a CUDA version", c.CUDAVariant)
	}
	if err := text("name", c.Name, 200); err != nil {
		return err
	}
	if err := c.Archive.check("archive"); err != nil {
		return err
	}
	if err := text("license", c.License.Name, 200); err != nil {
		return err
	}
	if strings.TrimSpace(c.License.Text) == "" {
		return fmt.Errorf("license text (%s) is empty", c.License.Name)
	}
	if err := longText("license text", c.License.Text); err != nil {
		return err
	}
	if len(c.Debs) == 0 {
		return fmt.Errorf("debs: none recorded")
	}
	for _, d := range c.Debs {
		if !debNameRE.MatchString(d.Package) {
			return fmt.Errorf("debs: package %q: not a Debian package name", d.Package)
		}
		if !versionRE.MatchString(d.Version) {
			return fmt.Errorf("debs: %s: version %q: not a Debian version", d.Package, d.Version)
		}
		if !safePath(d.Filename) || !strings.HasSuffix(d.Filename, ".deb") {
			return fmt.Errorf("debs: %s: filename %q: not a relative .deb path", d.Package, d.Filename)
		}
		if !isHex(d.SHA256, 64) {
			return fmt.Errorf("debs: %s: sha256 %q: not 64 lower-case hex digits", d.Package, d.SHA256)
		}
		if d.URL != "" && !urlRE.MatchString(d.URL) {
			return fmt.Errorf("debs: %s: download URL %q: not a plain http(s) URL", d.Package, d.URL)
		}
	}
	for _, s := range c.Stubs {
		if err := s.File.check("stub"); err != nil {
			return err
		}
		if err := s.From.check("stub " + s.File.Path + ": from"); err != nil {
			return err
		}
		if !safePath(s.FromDeb) || !strings.HasSuffix(s.FromDeb, ".deb") {
			return fmt.Errorf("stub %s: from_deb %q: not a .deb file name", s.File.Path, s.FromDeb)
		}
		if !versionRE.MatchString(s.SOName) {
			return fmt.Errorf("stub %s: soname %q: not a file name", s.File.Path, s.SOName)
		}
	}
	for _, w := range c.Wheels {
		if err := w.File.check("wheel"); err != nil {
			return err
		}
		for _, d := range w.Debs {
			if !debNameRE.MatchString(d) {
				return fmt.Errorf("wheel %s: deb %q: not a Debian package name", w.File.Path, d)
			}
		}
	}
	return nil
}

func (f *File) check(what string) error {
	if !safePath(f.Path) {
		return fmt.Errorf("%s path %q: not a safe relative path", what, f.Path)
	}
	if !isHex(f.SHA256, 64) {
		return fmt.Errorf("%s %s: sha256 %q: not 64 lower-case hex digits", what, f.Path, f.SHA256)
	}
	if !isHex(f.SHA1, 40) {
		return fmt.Errorf("%s %s: sha1 %q: not 40 lower-case hex digits", what, f.Path, f.SHA1)
	}
	if f.MD5 != "" && !isHex(f.MD5, 32) {
		return fmt.Errorf("%s %s: md5 %q: not 32 lower-case hex digits", what, f.Path, f.MD5)
	}
	if f.Size < 0 {
		return fmt.Errorf("%s %s: size %d is negative", what, f.Path, f.Size)
	}
	return nil
}

func isHex(s string, n int) bool { return len(s) == n && hexRE.MatchString(s) }

// safePath reports whether p is a clean relative slash path of printable
// characters without "..".
func safePath(p string) bool {
	if p == "" || len(p) > 4096 || path.IsAbs(p) || path.Clean(p) != p || p == "." || strings.HasPrefix(p, "../") ||
		p == ".." {
		return false
	}
	for _, r := range p {
		if r < 0x21 || r == 0x7f || r == '\\' || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// text checks a one-line field.
func text(field, s string, max int) error {
	if s == "" || len(s) > max {
		return fmt.Errorf("%s %q: empty or longer than %d bytes", field, s, max)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("%s %q: holds a control character", field, s)
		}
	}
	return nil
}

// longText checks a text field: printable characters, tabs and newlines.
func longText(field, s string) error {
	for i, r := range s {
		if r == unicode.ReplacementChar || (!unicode.IsPrint(r) && r != '\n' && r != '\t' && r != '\r') {
			return fmt.Errorf("%s: byte %d is a control character or not UTF-8", field, i)
		}
	}
	return nil
}

// Write writes the document of in in format f.
func Write(w io.Writer, in *Input, f Format) error {
	if err := in.Check(); err != nil {
		return err
	}
	var b []byte
	var err error
	switch f {
	case SPDX, "":
		b, err = spdxDoc(in)
	case CycloneDX:
		b, err = cdxDoc(in)
	default:
		return fmt.Errorf("unknown SBOM format %q (spdx or cyclonedx)", f)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// idChars turns s into the characters SPDX identifiers allow.
func idChars(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '-'
	}, s)
}

// licenseRef is the LicenseRef- identifier of a license text: its name and
// the head of the text's sha256 (one name may cover several texts).
func licenseRef(l License) string {
	h := sha256.Sum256([]byte(l.Text))
	return "LicenseRef-" + idChars(l.Name) + "-" + hex.EncodeToString(h[:4])
}

// debArch is the architecture of a deb file name (…_arm64.deb).
func debArch(filename string) string {
	base := strings.TrimSuffix(path.Base(filename), ".deb")
	if i := strings.LastIndexByte(base, '_'); i >= 0 {
		return base[i+1:]
	}
	return ""
}

// purl-escape per the package-url spec (percent-encode what is not
// unreserved).
func purlEsc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' ||
			c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// componentPURL is the purl of a redist component archive.
func componentPURL(c *Component) string {
	q := "platform=" + purlEsc(c.Platform)
	if c.CUDAVariant != "" {
		q = "cuda_variant=" + purlEsc(c.CUDAVariant) + "&" + q
	}
	return "pkg:generic/nvidia/" + purlEsc(c.PName) + "@" + purlEsc(c.Version) + "?" + q
}

// debPURL is the purl of a deb.
func debPURL(d *Deb) string {
	p := "pkg:deb/nvidia/" + purlEsc(d.Package) + "@" + purlEsc(d.Version)
	if a := debArch(d.Filename); a != "" {
		p += "?arch=" + purlEsc(a)
	}
	return p
}

// uniq hands out identifiers, numbering repeats.
type uniq map[string]int

func (u uniq) id(base string) string {
	u[base]++
	if n := u[base]; n > 1 {
		return fmt.Sprintf("%s-%d", base, n)
	}
	return base
}

// debKey identifies a deb across archives.
func debKey(d *Deb) string { return d.Package + "\x00" + d.Version + "\x00" + d.SHA256 }

// docName names the document.
func docName(in *Input) string {
	var parts []string
	for _, r := range in.Releases {
		parts = append(parts, r.Product+" "+r.Label)
	}
	r := in.Releases[0]
	head := r.Profile
	if r.JetPack != "" {
		head = "JetPack " + r.JetPack
	}
	return "debredist redistributables of " + head + " (L4T " + r.L4T + "): " + strings.Join(parts, ", ")
}

// contentID is a hash of a document rendered without its identity.
func contentID(b []byte) [32]byte { return sha256.Sum256(b) }
