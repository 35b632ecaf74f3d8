package redist

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/jsonpos"
)

// Provenance is the sidecar written beside each manifest
// (debredist-provenance_<label>.json): how every archive was made.
type Provenance struct {
	Tool    string          `json:"tool"`
	Encoder Encoder         `json:"encoder"`
	Profile profile.Profile `json:"profile"`
	Indexes []Index         `json:"indexes"`
	// Mirror is the mirror the debs were read from (a directory as an
	// absolute path) when no index names it: a conversion from a lock file.
	Mirror   string    `json:"mirror,omitempty"`
	Archives []Archive `json:"archives"`
}

// Encoder says how archives were compressed.
type Encoder struct {
	// Format is the archives' file extension: ".tar.xz" (xz, the default)
	// or ".tar.zst" (zstd); debredist build-archive refuses any other
	// value (a bare "xz" too).
	Format string `json:"format"`
	// BlockSize is the number of uncompressed bytes in each independently
	// compressed xz block or zstd frame: 25165824 (24 MiB) in every
	// sidecar this version writes; build-archive refuses another.
	BlockSize int `json:"block_size"`
	// Preset is the preset the archives were compressed with: xz 1 (fast)
	// .. 6 (best), the default, 4, when not chosen; zstd 1 .. 4.
	Preset int `json:"preset,omitempty"`
}

// Index identifies one apt index (or the lock file, Repo "lock") the debs
// of a release were listed in.
type Index struct {
	Repo   string `json:"repo"`
	URL    string `json:"url"`
	SHA256 string `json:"sha256"`
	Signed bool   `json:"signed"`
}

// Archive records how one archive was made: what it is, its hashes, the
// input key that decides whether it is rebuilt, and its debs.
type Archive struct {
	Product      string `json:"product"`
	PName        string `json:"pname"`
	Platform     string `json:"platform"`
	CUDAVariant  string `json:"cuda_variant,omitempty"`
	Version      string `json:"version"`
	RelativePath string `json:"relative_path"`
	Size         int64  `json:"size"`
	SHA256       string `json:"sha256"`
	MD5          string `json:"md5"`
	// NAR is the SRI hash of the unpacked top directory's NAR
	// serialisation (what nix-hash --type sha256 --sri prints).
	NAR      string `json:"nar_hash"`
	InputKey string `json:"input_key"`
	// MTime is every entry's mtime, in seconds since 1970 (the release
	// date, or SOURCE_DATE_EPOCH), and Preset the compression preset (see
	// Encoder), as this archive was written: a conversion with --only keeps
	// the archives of earlier runs, which may differ. Both are absent in
	// sidecars written before debredist recorded them.
	MTime  *int64 `json:"mtime,omitempty"`
	Preset int    `json:"preset,omitempty"`
	Debs   []Deb  `json:"debs"`
	// Stubs are the stub libraries synthesized from real ones (lib/stubs/).
	Stubs []Stub `json:"stubs,omitempty"`
	// Changes lists, one line per affected entry, what the archive changes
	// beyond placing the debs' entries (bits stripped, links re-rooted,
	// merged or dropped, license files merged).
	Changes []string `json:"changes,omitempty"`
	// Warnings are what a consumer of this archive will trip over, with
	// their codes (see Warning); absent when none.
	Warnings []Warning `json:"warnings,omitempty"`
	// ProfileRules are the match patterns of the profile's own layout
	// rules that placed or dropped an entry of this archive (a rule no
	// archive of the release names is a profile-rule-unused warning).
	ProfileRules []string `json:"profile_rules,omitempty"`
}

// Deb is one deb an archive was made from, as read.
type Deb struct {
	Repo     string `json:"repo"`
	Package  string `json:"package"`
	Version  string `json:"version"`
	Filename string `json:"filename"`
	SHA256   string `json:"sha256"`
	Size     int64  `json:"size,omitempty"`
}

// Stub is a stub library synthesized from a real one.
type Stub struct {
	Path string `json:"path"` // in the archive, e.g. lib/stubs/libcublas.so
	// From is the real library it was made from: its archive path and the
	// deb file it came from.
	From    string `json:"from"`
	FromDeb string `json:"from_deb"`
	SOName  string `json:"soname"`
	Symbols int    `json:"symbols"`
	SHA256  string `json:"sha256"`
}

// MirrorBase is the mirror base the debs were read from: the part of its
// first index's URL before /<repo>/dists/ (convert records a mirror
// directory as an absolute path), else Mirror (a conversion from a lock
// file records it); "" when neither says.
func (p *Provenance) MirrorBase() string {
	for _, ix := range p.Indexes {
		if i := strings.Index(ix.URL, "/"+ix.Repo+"/dists/"); ix.Repo != "lock" && i > 0 {
			return ix.URL[:i]
		}
	}
	return p.Mirror
}

// MaxJSON bounds what ReadManifest and ReadProvenance read: 64 MiB.
const MaxJSON = 64 << 20

// ReadProvenance reads a provenance sidecar: at most [MaxJSON] bytes,
// read as every JSON input is (bounded nesting, keys case-sensitive, none
// twice; keys a later version adds are ignored), and valid
// ([Provenance.Check]).
func ReadProvenance(r io.Reader) (*Provenance, error) {
	b, err := jsonpos.ReadAll("", r, MaxJSON)
	if err != nil {
		return nil, fmt.Errorf("provenance sidecar: %w", err)
	}
	var p Provenance
	if err := jsonpos.Decode("", b, &p, jsonpos.AllowUnknown); err != nil {
		return nil, fmt.Errorf("provenance sidecar: %w", err)
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("provenance sidecar: not valid: %w", err)
	}
	return &p, nil
}

// ReadSidecar reads the provenance sidecar of the manifest file at path:
// under its current name, else under the name of versions before it
// (SidecarFor). It returns the file it read; a missing sidecar is an error
// wrapping [fs.ErrNotExist] that names the current name. It reads regular
// files only (a named pipe is refused, not waited on); a reader of an OUT
// reads through debredist/outdir instead, which follows no link either.
func ReadSidecar(manifest string) (*Provenance, string, error) {
	return ReadSidecarWith(manifest, func(name string) (io.ReadCloser, error) { return files.OpenRegular(name) })
}

// ReadSidecarWith is ReadSidecar opening the files with open.
func ReadSidecarWith(manifest string, open func(name string) (io.ReadCloser, error)) (*Provenance, string, error) {
	cur, legacy := SidecarFor(manifest)
	name := cur
	f, err := open(cur)
	if errors.Is(err, fs.ErrNotExist) {
		if lf, lerr := open(legacy); lerr == nil {
			f, err, name = lf, nil, legacy
		}
	}
	if err != nil {
		return nil, cur, err
	}
	defer func() { _ = f.Close() }()
	p, err := ReadProvenance(f)
	if err != nil {
		return nil, name, fmt.Errorf("%s: %w", name, err)
	}
	return p, name, nil
}

// File names. The sidecar of redistrib_<label>.json is
// debredist-provenance_<label>.json: nothing but manifests may match
// redistrib_* in a product directory, because NVIDIA's shell-parse.sh takes
// every such file for a release. Versions before that wrote
// redistrib_<label>.provenance.json (LegacySidecarSuffix); debredist still
// reads it and replaces it.
const (
	ManifestPrefix      = "redistrib_"
	SidecarPrefix       = "debredist-provenance_"
	LegacySidecarSuffix = ".provenance.json"
)

// ManifestName is the file name of the manifest of a release label.
func ManifestName(label string) string { return ManifestPrefix + label + ".json" }

// SidecarName is the file name of the provenance sidecar of a label.
func SidecarName(label string) string { return SidecarPrefix + label + ".json" }

// SidecarFor returns the sidecar path of a manifest path
// (…/redistrib_<label>.json), and the legacy one.
func SidecarFor(manifest string) (current, legacy string) {
	dir, base := filepath.Split(manifest)
	label := strings.TrimSuffix(strings.TrimPrefix(base, ManifestPrefix), ".json")
	return filepath.Join(dir, SidecarName(label)), filepath.Join(dir, ManifestPrefix+label+LegacySidecarSuffix)
}

// IsManifestName reports whether a file name is a redistrib_<label>.json
// manifest (not a legacy sidecar).
func IsManifestName(name string) bool {
	return strings.HasPrefix(name, ManifestPrefix) && strings.HasSuffix(name, ".json") &&
		!strings.HasSuffix(name, LegacySidecarSuffix)
}

// IsSidecarName reports whether a file name is a provenance sidecar, under
// the current or the legacy name.
func IsSidecarName(name string) bool {
	return strings.HasPrefix(name, SidecarPrefix) && strings.HasSuffix(name, ".json") ||
		strings.HasPrefix(name, ManifestPrefix) && strings.HasSuffix(name, LegacySidecarSuffix)
}
