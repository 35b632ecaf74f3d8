package archive

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Compression selects the archive compressor: the one home of what a
// compression is called, its file extension and its presets (range and
// default). Flags, completion, option checks, the provenance and
// build-archive all ask it. The zero value is XZ.
type Compression int

// Compressions. The zero value is XZ.
const (
	XZ Compression = iota
	Zstd
)

// format is one output format: each format's own file (xz.go, zstd.go)
// defines one, and formats lists them. Adding a format is a new file and a
// line in formats (and the CLI's help text): nothing else names formats.
type format struct {
	name    string   // what Build.Compression and String say: "xz"
	aliases []string // other accepted names: "zst"
	ext     string   // the archive's file extension: ".tar.xz"
	// Presets are 1..maxPreset, fastest to smallest; 0 means defPreset.
	maxPreset, defPreset int
	// newWriter returns the block-parallel encoder at a preset in range.
	newWriter func(w io.Writer, workers, preset int, budget *Budget, blockSize int) (io.WriteCloser, error)
}

// formats are the output formats, by Compression.
var formats = [...]*format{XZ: &xzFormat, Zstd: &zstdFormat}

// Compressions lists every compression, the default (XZ) first.
func Compressions() []Compression {
	cs := make([]Compression, len(formats))
	for i := range formats {
		cs[i] = Compression(i)
	}
	return cs
}

func (c Compression) format() *format {
	if c < 0 || int(c) >= len(formats) {
		return nil
	}
	return formats[c]
}

// ParseCompression returns the compression a name (or alias, "zst")
// names; "" is XZ. The error lists the names.
func ParseCompression(s string) (Compression, error) {
	if s == "" {
		return XZ, nil
	}
	var names []string
	for _, c := range Compressions() {
		f := c.format()
		if s == f.name || strings.Contains(" "+strings.Join(f.aliases, " ")+" ", " "+s+" ") {
			return c, nil
		}
		names = append(names, f.name)
	}
	return 0, fmt.Errorf("archive: unknown compression %q (want %s)", s, strings.Join(names, " or "))
}

// CompressionOfExt returns the compression whose archives end in ext
// (".tar.zst").
func CompressionOfExt(ext string) (Compression, bool) {
	for _, c := range Compressions() {
		if c.format().ext == ext {
			return c, true
		}
	}
	return 0, false
}

// Ext returns the archive file extension for c: ".tar.xz" or ".tar.zst".
func (c Compression) Ext() string {
	if f := c.format(); f != nil {
		return f.ext
	}
	return ".tar.xz"
}

func (c Compression) String() string {
	if f := c.format(); f != nil {
		return f.name
	}
	return "Compression(" + strconv.Itoa(int(c)) + ")"
}

// MaxPreset is c's largest preset (presets are 1..MaxPreset, fastest to
// smallest).
func (c Compression) MaxPreset() int {
	if f := c.format(); f != nil {
		return f.maxPreset
	}
	return 0
}

// DefaultPreset is the preset c uses for preset 0.
func (c Compression) DefaultPreset() int {
	if f := c.format(); f != nil {
		return f.defPreset
	}
	return 0
}

// Preset returns the preset c really uses for p (0: the default), or an
// error when p is out of c's range.
func (c Compression) Preset(p int) (int, error) {
	f := c.format()
	if f == nil {
		return 0, fmt.Errorf("archive: unknown compression %v", c)
	}
	if p == 0 {
		return f.defPreset, nil
	}
	if p < 1 || p > f.maxPreset {
		return 0, fmt.Errorf("archive: %s preset %d out of range 1..%d", f.name, p, f.maxPreset)
	}
	return p, nil
}

// newWriter returns c's encoder at preset p (0: the default).
func (c Compression) newWriter(w io.Writer, workers, p int, budget *Budget, blockSize int) (io.WriteCloser, error) {
	p, err := c.Preset(p)
	if err != nil {
		return nil, err
	}
	return c.format().newWriter(w, workers, p, budget, blockSize)
}

// TrimExt returns name without the extension of the compression its
// archive is written with, and that compression; ok is false when name
// ends in none of them.
func TrimExt(name string) (top string, c Compression, ok bool) {
	for _, c := range Compressions() {
		if t, found := strings.CutSuffix(name, c.Ext()); found {
			return t, c, true
		}
	}
	return name, 0, false
}

// TopName is the top directory an archive file of this name must hold:
// the name without its extension (.tar.xz, .tar.zst; also .tar.gz).
func TopName(file string) string {
	if top, _, ok := TrimExt(file); ok {
		return top
	}
	return strings.TrimSuffix(file, ".tar.gz")
}
