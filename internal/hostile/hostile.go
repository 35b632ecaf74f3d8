package hostile

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/mirrorgen"
)

// Case kinds.
const (
	KindDeb   = "deb"
	KindIndex = "index"
)

// Verdicts.
const (
	Reject = "reject"
	Accept = "accept"
)

// Error kinds a reject case expects. A case may list alternatives separated
// by "|" when the exact failure depends on the decoder (e.g. a corrupt
// stream detected as bad data or as a short stream).
const (
	ErrDebFormat      = "deb:format"      // fault.DebFormat
	ErrDebUnsafePath  = "deb:unsafe-path" // fault.DebUnsafePath
	ErrDebDevice      = "deb:device"      // fault.DebDevice
	ErrDebLimit       = "deb:limit"       // fault.DebLimit
	ErrDebCompression = "deb:compression" // fault.DebCompression
	ErrDebTruncated   = "deb:truncated"   // fault.DebTruncated
	ErrLayoutConflict = "layout:conflict" // *fault.ConflictError
	ErrLayoutLink     = "layout:link"     // *fault.LinkError
	ErrLayoutUnplaced = "layout:unplaced" // *fault.UnplacedError
	ErrIndexSyntax    = "index:syntax"    // *apt.SyntaxError
	ErrIndexCompress  = "index:compression"
	ErrIndexTruncated = "index:truncated" // io.ErrUnexpectedEOF from the decompressor
	ErrIndexBomb      = "index:bomb"      // *apt.BombError
)

// The deb every case derives from: libcublas-12-6 of L4T r36.5 (JetPack 6),
// with paths the layout rules place.
const (
	Package  = "libcublas-12-6"
	Version  = "12.6.1.4-1"
	Source   = "libcublas"
	PName    = "libcublas" // the redist package it groups into
	Suite    = "r36.5"
	Repo     = "common"
	Filename = "pool/main/libc/libcublas/libcublas-12-6_12.6.1.4-1_arm64.deb"
	// Lib is the deb directory whose content lands in the redist's lib/.
	Lib = "usr/local/cuda-12.6/targets/aarch64-linux/lib/"
	// Escape is a name traversal cases try to create next to the output
	// directory (and at the filesystem root for absolute paths).
	Escape = "debredist-hostile-escape"
)

// Limits mirrors deb.Limits for the cases that need tighter bounds.
type Limits struct {
	MaxBytes   int64 `json:"max_bytes,omitempty"`
	MaxEntries int   `json:"max_entries,omitempty"`
	MaxNameLen int   `json:"max_name_len,omitempty"`
}

// Case is one corpus entry: generated here (a deb, an index that is not
// text) or read from a txtar archive of testdata/hostile (see text.go).
type Case struct {
	Name   string `json:"name"`
	File   string `json:"file"`
	Kind   string `json:"kind"`   // deb | index | profile
	Expect string `json:"expect"` // reject | accept
	Reason string `json:"reason"`
	// Error is the expected error kind of a reject ("a|b" for alternatives).
	Error string `json:"error,omitempty"`
	// Member and Entry, when set, must be named by a deb reject's error
	// (fault.DebError.Member / Entry, or the layout error's deb path).
	Member string `json:"member,omitempty"`
	Entry  string `json:"entry,omitempty"`
	// Limits to convert with (zero: defaults).
	Limits *Limits `json:"limits,omitempty"`
	// Present lists redist-archive paths (relative to its top directory)
	// an accepted deb must produce.
	Present []string `json:"present,omitempty"`
	// Changes lists texts the conversion's change lines (provenance) must
	// contain for an accepted deb.
	Changes []string `json:"changes,omitempty"`
	// Packages and Problems are what an accepted index parses to; Newest
	// is the version apt.Newest picks for Package when set.
	Packages int    `json:"packages,omitempty"`
	Problems int    `json:"problems,omitempty"`
	Newest   string `json:"newest,omitempty"`
	// Field is the profile field a KindProfile reject's error must name.
	Field string `json:"field,omitempty"`

	build func() ([]byte, error)
}

// Bytes returns the case's file content (a copy: callers may change it).
func (c Case) Bytes() ([]byte, error) {
	b, err := c.build()
	return bytes.Clone(b), err
}

// ManifestName is the file Generate lists the cases in.
const ManifestName = "cases.json"

// Generate writes the file of every case and cases.json, their labels,
// into dir, to look at them with other tools (dpkg-deb, xxd). Output is
// deterministic.
func Generate(dir string, cases []Case) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range cases {
		b, err := c.Bytes()
		if err != nil {
			return fmt.Errorf("hostile: case %s: %w", c.Name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.File), b, 0o644); err != nil {
			return fmt.Errorf("hostile: case %s: %w", c.Name, err)
		}
	}
	m, err := Manifest(cases)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestName), m, 0o644)
}

// Manifest returns the cases.json bytes for cases.
func Manifest(cases []Case) ([]byte, error) {
	b, err := json.MarshalIndent(struct {
		Comment string `json:"comment"`
		Cases   []Case `json:"cases"`
	}{"written by go run ./internal/hostile/cmd/mkhostile", cases}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Load returns the whole corpus, sorted by name: the generated cases and
// the text cases of the txtar archives in dir (testdata/hostile).
func Load(dir string) ([]Case, error) {
	text, err := loadText(dir)
	if err != nil {
		return nil, err
	}
	cs := append(Cases(), text...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	for i := 1; i < len(cs); i++ {
		if cs[i].Name == cs[i-1].Name {
			return nil, fmt.Errorf("hostile: two cases named %s", cs[i].Name)
		}
	}
	return cs, nil
}

// Deb returns the bytes of the generated deb case called name.
func Deb(name string) ([]byte, error) {
	for _, c := range generated() {
		if c.Name == name && c.Kind == KindDeb {
			return c.Bytes()
		}
	}
	return nil, fmt.Errorf("hostile: no deb case %s", name)
}

var mtime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

const control = "Package: " + Package + "\nSource: " + Source + "\nVersion: " + Version +
	"\nArchitecture: arm64\nMaintainer: cudatools <cudatools@nvidia.com>\n" +
	"Description: CUDA cublas native runtime (hostile corpus)\n"

// cublasELF is the library of the base deb: a real aarch64 ELF object
// (mirrorgen's fixture), since conversion reads it to synthesize
// lib/stubs/libcublas.so.
var cublasELF = func() []byte {
	b, err := mirrorgen.ELFLibrary("libcublas.so.12")
	if err != nil {
		panic(err)
	}
	return b
}()

// base is a well-formed libcublas-12-6 deb.
func base() debtest.Deb {
	return debtest.Deb{
		Control:    control,
		MD5Sums:    true,
		AddParents: true,
		MTime:      mtime,
		Files: []debtest.File{
			{Name: Lib + "libcublas.so.12.6.1.4", Mode: 0o755, Body: cublasELF},
			{Name: Lib + "libcublas.so.12", Type: tar.TypeSymlink, Linkname: "libcublas.so.12.6.1.4"},
			{Name: "usr/share/doc/" + Package + "/copyright", Body: []byte("Copyright NVIDIA (synthetic, hostile corpus)\n")},
		},
	}
}

// with returns base() changed by f.
func with(f func(d *debtest.Deb)) debtest.Deb {
	d := base()
	f(&d)
	return d
}

// plus returns base() with extra files appended.
func plus(files ...debtest.File) debtest.Deb {
	return with(func(d *debtest.Deb) { d.Files = append(d.Files, files...) })
}

func build(d debtest.Deb) func() ([]byte, error) {
	return func() ([]byte, error) { return debtest.Build(d) }
}

// mangle builds d and changes the bytes with f.
func mangle(d debtest.Deb, f func([]byte) ([]byte, error)) func() ([]byte, error) {
	return func() ([]byte, error) {
		b, err := debtest.Build(d)
		if err != nil {
			return nil, err
		}
		return f(b)
	}
}

// dataMember builds d's data.tar, compresses it and lets f spoil it.
func dataMember(d debtest.Deb, f func([]byte) []byte) func() ([]byte, error) {
	return func() ([]byte, error) {
		dt, err := d.BuildDataTar()
		if err != nil {
			return nil, err
		}
		c, err := debtest.Compress(d.Compression, dt)
		if err != nil {
			return nil, err
		}
		d.DataMember = f(c)
		return debtest.Build(d)
	}
}

// setArField overwrites a field of the ar header of member name.
func setArField(b []byte, member string, off, width int, val string) ([]byte, error) {
	i := bytes.Index(b, []byte(fmt.Sprintf("%-16s", member)))
	if i < 0 {
		return nil, fmt.Errorf("member %q not found", member)
	}
	out := append([]byte(nil), b...)
	copy(out[i+off:i+off+width], fmt.Sprintf("%-*s", width, val))
	return out, nil
}

func pad(b *bytes.Buffer) { b.Write(make([]byte, (512-b.Len()%512)%512)) }

// paxFileTar is a data.tar whose only file gets its name from a PAX record
// (so the name may hold any byte, NUL included), after the base entries.
func paxFileTar(name string, body []byte) ([]byte, error) {
	return paxTar(debtest.PaxRecord("path", name), "./placeholder", tar.TypeReg, body)
}

// paxTar is base()'s data.tar with one more entry: a PAX header with
// records rec, then name of type typ with body (written raw, so that
// records archive/tar refuses to write can be tried).
func paxTar(rec, name string, typ byte, body []byte) ([]byte, error) {
	d := base()
	dt, err := d.BuildDataTar()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(dt[:len(dt)-1024]) // drop the end-of-archive blocks
	b.Write(debtest.RawTarHeader("./PaxHeaders/x", tar.TypeXHeader, len(rec), mtime))
	b.WriteString(rec)
	pad(&b)
	b.Write(debtest.RawTarHeader(name, typ, len(body), mtime))
	b.Write(body)
	pad(&b)
	b.Write(make([]byte, 1024))
	return b.Bytes(), nil
}

// paxEntry builds base() with paxTar's data.tar.
func paxEntry(rec, name string, typ byte, body []byte) func() ([]byte, error) {
	return func() ([]byte, error) {
		dt, err := paxTar(rec, name, typ, body)
		if err != nil {
			return nil, err
		}
		d := base()
		d.DataTar = dt
		return debtest.Build(d)
	}
}

func zeros(n int) []byte { return make([]byte, n) }

// dataXZ is the base deb's data member.
const dataXZ = "data.tar.xz"

// raw is an entry of type typ whose name is written verbatim (no "./"
// prefix, no trailing "/"), with a short body.
func raw(name string, typ byte) debtest.File {
	return debtest.File{Name: name, Type: typ, Raw: true, Body: []byte("escaped\n")}
}

// debCases collects the deb cases in the order they are added.
type debCases struct{ cs []Case }

// deb adds a deb case and returns it, for fields the helpers do not set.
func (dc *debCases) deb(name, expect, errKind, member, entry, reason string, b func() ([]byte, error)) *Case {
	dc.cs = append(dc.cs, Case{Name: name, File: name + ".deb", Kind: KindDeb, Expect: expect, Error: errKind,
		Member: member, Entry: entry, Reason: reason, build: b})
	return &dc.cs[len(dc.cs)-1]
}

// reject adds a deb the conversion must refuse with errKind.
func (dc *debCases) reject(name, errKind, member, entry, reason string, b func() ([]byte, error)) *Case {
	return dc.deb(name, Reject, errKind, member, entry, reason, b)
}

// accept adds a deb that must convert, producing the base deb's library,
// its soname link, LICENSE and present.
func (dc *debCases) accept(name, reason string, b func() ([]byte, error), present ...string) *Case {
	c := dc.deb(name, Accept, "", "", "", reason, b)
	c.Present = append([]string{"lib/libcublas.so.12.6.1.4", "lib/libcublas.so.12", "LICENSE"}, present...)
	return c
}

// Cases returns the generated cases (every deb, and the indexes that are
// not text), sorted by name; Load adds the text cases. Each case's bytes
// are built once per process, on first use.
func Cases() []Case { return slices.Clone(generated()) }

var generated = sync.OnceValue(func() []Case {
	dc := &debCases{}
	dc.accept("ok-baseline", "well-formed deb: the control case every other case spoils", build(base()))
	dc.pathCases()
	dc.linkCases()
	dc.entryCases()
	dc.variantCases()
	dc.limitCases()
	dc.streamCases()
	dc.arCases()
	dc.nameCases()
	cs := append(dc.cs, indexCases()...)
	for i := range cs {
		cs[i].build = sync.OnceValues(cs[i].build)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	return cs
})

// pathCases adds entries whose names leave the package root: ../ chains
// and absolute names.
func (dc *debCases) pathCases() {
	dc.reject("traversal-dotdot", ErrDebUnsafePath, dataXZ, "../"+Escape,
		"entry ../x escapes the package root",
		build(plus(raw("../"+Escape, tar.TypeReg))))
	dc.reject("traversal-dot-dotdot", ErrDebUnsafePath, dataXZ, "./../"+Escape,
		"entry ./../x escapes the package root",
		build(plus(raw("./../"+Escape, tar.TypeReg))))
	dc.reject("traversal-inner", ErrDebUnsafePath, dataXZ, "usr/../../"+Escape,
		"entry usr/../../x escapes after cleaning",
		build(plus(raw("usr/../../"+Escape, tar.TypeReg))))
	dc.reject("traversal-deep", ErrDebUnsafePath, dataXZ, "./"+Lib+"../../../../../../../"+Escape,
		"deep ../ chain from inside lib/ escapes",
		build(plus(raw("./"+Lib+"../../../../../../../"+Escape, tar.TypeReg))))
	dc.reject("traversal-dir", ErrDebUnsafePath, dataXZ, "../"+Escape+"/",
		"a directory entry ../x/ escapes",
		build(plus(raw("../"+Escape+"/", tar.TypeDir))))
	dc.reject("absolute-file", ErrDebUnsafePath, dataXZ, "/tmp/"+Escape,
		"absolute entry name",
		build(plus(raw("/tmp/"+Escape, tar.TypeReg))))
	dc.reject("absolute-dir", ErrDebUnsafePath, dataXZ, "/etc/",
		"absolute directory entry",
		build(plus(raw("/etc/", tar.TypeDir))))
	dc.reject("absolute-symlink-name", ErrDebUnsafePath, dataXZ, "/tmp/"+Escape,
		"absolute symlink entry name",
		build(plus(debtest.File{Name: "/tmp/" + Escape, Type: tar.TypeSymlink, Linkname: "/etc/passwd", Raw: true})))
}

// linkCases adds symlinks and hardlinks that point outside the package or
// at what it does not hold, and the links that stay inside.
func (dc *debCases) linkCases() {
	// Symlinks pointing outside, and writes through them.
	dc.reject("symlink-out-relative-write-through", ErrLayoutLink, "", Lib+"out",
		"lib/out -> ../../../../../../../tmp, then a file lib/out/x written through it: "+
			"the link leaves the package's filesystem",
		build(plus(
			debtest.File{Name: Lib + "out", Type: tar.TypeSymlink, Linkname: "../../../../../../../tmp"},
			debtest.File{Name: Lib + "out/" + Escape, Body: []byte("through\n")})))
	dc.reject("symlink-out-absolute-write-through", ErrLayoutUnplaced, "", "tmp/"+Escape,
		"lib/out -> /tmp, then lib/out/x: dpkg would write /tmp/x; "+
			"the file resolves to tmp/x, which has no place in a redist",
		build(plus(
			debtest.File{Name: Lib + "out", Type: tar.TypeSymlink, Linkname: "/tmp"},
			debtest.File{Name: Lib + "out/" + Escape, Body: []byte("through\n")})))
	dc.reject("symlink-dangling-outside", ErrLayoutLink, "", Lib+"libevil.so",
		"a library symlink to ../../../../../../../../etc/passwd (outside the filesystem root)",
		build(plus(debtest.File{Name: Lib + "libevil.so", Type: tar.TypeSymlink,
			Linkname: "../../../../../../../../etc/passwd"})))
	dc.reject("symlink-absolute-system", ErrLayoutLink, "", Lib+"libevil.so",
		"a library symlink to /etc/passwd: no place in the redist tree",
		build(plus(debtest.File{Name: Lib + "libevil.so", Type: tar.TypeSymlink, Linkname: "/etc/passwd"})))
	dc.reject("symlink-nul-target", ErrDebFormat, dataXZ, "",
		"a symlink target with a NUL byte (PAX linkpath): archive/tar refuses the header",
		paxEntry(debtest.PaxRecord("linkpath", "libcublas.so\x00/etc/passwd"), "./"+Lib+"libnul.so", tar.TypeSymlink, nil))

	// Hardlinks.
	dc.reject("hardlink-outside", ErrDebUnsafePath, dataXZ, "./"+Lib+"hl",
		"hardlink to ../../etc/shadow",
		build(plus(debtest.File{Name: "./" + Lib + "hl", Type: tar.TypeLink, Linkname: "../../etc/shadow", Raw: true})))
	dc.reject("hardlink-absolute", ErrDebUnsafePath, dataXZ, "./"+Lib+"hl",
		"hardlink to /etc/shadow",
		build(plus(debtest.File{Name: "./" + Lib + "hl", Type: tar.TypeLink, Linkname: "/etc/shadow", Raw: true})))
	dc.reject("hardlink-missing", ErrDebUnsafePath, dataXZ, "./"+Lib+"hl",
		"hardlink to a file the deb does not contain",
		build(plus(debtest.File{Name: Lib + "hl", Type: tar.TypeLink, Linkname: Lib + "nothere"})))
	dc.reject("hardlink-to-dir", ErrDebUnsafePath, dataXZ, "./"+Lib+"hl",
		"hardlink to a directory",
		build(plus(debtest.File{Name: Lib + "hl", Type: tar.TypeLink, Linkname: "usr/local"})))
	dc.accept("hardlink-inside",
		"hardlink to an earlier regular file of the deb",
		build(plus(debtest.File{Name: Lib + "libcublas.so.hard", Type: tar.TypeLink,
			Linkname: Lib + "libcublas.so.12.6.1.4"})),
		"lib/libcublas.so.hard")
}

// entryCases adds entry types and modes: devices, unknown type flags,
// setuid/setgid/sticky bits, type clashes and duplicate paths.
func (dc *debCases) entryCases() {
	// Devices.
	dc.reject("char-device", ErrDebDevice, dataXZ, "./"+Lib+"null",
		"character device entry",
		build(plus(debtest.File{Name: Lib + "null", Type: tar.TypeChar, Devmajor: 1, Devminor: 3})))
	dc.reject("block-device", ErrDebDevice, dataXZ, "./"+Lib+"sda",
		"block device entry",
		build(plus(debtest.File{Name: Lib + "sda", Type: tar.TypeBlock, Devmajor: 8})))
	dc.reject("fifo", ErrDebDevice, dataXZ, "./"+Lib+"fifo",
		"FIFO entry",
		build(plus(debtest.File{Name: Lib + "fifo", Type: tar.TypeFifo})))
	dc.reject("unknown-entry-type", ErrDebFormat, dataXZ, "./"+Lib+"weird",
		"tar type flag 'Z' is not a Debian entry type",
		build(plus(debtest.File{Name: Lib + "weird", Type: 'Z'})))

	// Special mode bits: accepted, dropped in the output.
	dc.accept("setuid-file", "setuid/setgid executables are valid in debs; the redist archive drops the bits (0755)",
		build(plus(
			debtest.File{Name: Lib + "libsuid.so", Mode: 0o4755, Body: []byte("suid\n")},
			debtest.File{Name: Lib + "libsgid.so", Mode: 0o2755, Body: []byte("sgid\n")})),
		"lib/libsuid.so", "lib/libsgid.so",
	).Changes = []string{Lib + "libsuid.so: setuid bit stripped", Lib + "libsgid.so: setgid bit stripped"}
	dc.accept("setgid-sticky-dir", "setgid/sticky directories are accepted; the archive writes 0755 directories",
		build(plus(
			debtest.File{Name: Lib + "sub", Type: tar.TypeDir, Mode: 0o3777},
			debtest.File{Name: Lib + "sub/libx.so", Body: []byte("x\n")})),
		"lib/sub/libx.so",
	).Changes = []string{Lib + "sub: setgid+sticky bits stripped"}

	// Type clashes and duplicates.
	dc.reject("file-replaces-dir", ErrDebFormat, dataXZ, "./"+Lib+"sub",
		"lib/sub/ is a directory with content, then lib/sub comes again as a file: an ambiguous duplicate",
		build(plus(
			debtest.File{Name: Lib + "sub/libx.so", Body: []byte("x\n")},
			debtest.File{Name: Lib + "sub", Body: []byte("file\n")})))
	dc.reject("dir-replaces-file", ErrDebFormat, dataXZ, "./"+Lib+"libcublas.so.12.6.1.4/",
		"the library file, then a directory of the same name: an ambiguous duplicate",
		build(plus(debtest.File{Name: Lib + "libcublas.so.12.6.1.4", Type: tar.TypeDir})))
	dc.reject("file-under-file", ErrLayoutConflict, "", Lib+"libcublas.so.12.6.1.4",
		"a file whose parent is a regular file",
		build(plus(debtest.File{Name: Lib + "libcublas.so.12.6.1.4/x", Body: []byte("x\n")})))
	dc.reject("duplicate-different-content", ErrDebFormat, dataXZ, "./"+Lib+"libcublas.so.12.6.1.4",
		"the same path twice with different content: which one ships would depend on the reader",
		build(plus(debtest.File{Name: Lib + "libcublas.so.12.6.1.4", Mode: 0o755, Body: []byte("other content\n")})))
	dc.reject("duplicate-symlink-retarget", ErrDebFormat, dataXZ, "./"+Lib+"libcublas.so.12",
		"the same symlink twice with different targets",
		build(plus(
			debtest.File{Name: Lib + "libcublas.so.12", Type: tar.TypeSymlink, Linkname: "libcublas.so.12.6.1.4.bak"},
			debtest.File{Name: Lib + "libcublas.so.12.6.1.4.bak", Body: []byte("b\n")})))
	dc.accept("duplicate-same-content",
		"the same path twice with identical content is harmless",
		build(plus(debtest.File{Name: Lib + "libcublas.so.12.6.1.4", Mode: 0o755, Body: cublasELF})))
}

// variantCases adds real-deb variants (plausible from the public evidence
// of real Jetson deb paths): they convert, with the change lines they
// cause, or are refused as unplaced.
func (dc *debCases) variantCases() {
	dc.accept("variant-link-onto-its-target",
		"usr/local/cuda-12.6/lib64/libcublas.so.12.6.1.4 is a link to the targets/ file; "+
			"both land on lib/libcublas.so.12.6.1.4: merged into the file",
		build(plus(debtest.File{Name: "usr/local/cuda-12.6/lib64/libcublas.so.12.6.1.4", Type: tar.TypeSymlink,
			Linkname: "../targets/aarch64-linux/lib/libcublas.so.12.6.1.4"})),
	).Changes = []string{"merged into the file it resolves to at lib/libcublas.so.12.6.1.4"}
	dc.accept("variant-alternatives-link",
		"a link into /etc/alternatives that no link rule of the profile resolves: dropped with a warning, never fatal",
		build(plus(debtest.File{Name: Lib + "libcublas_alt.so", Type: tar.TypeSymlink,
			Linkname: "/etc/alternatives/libcublas_so"})),
	).Changes = []string{"warning: " + Package + ":" + Lib + "libcublas_alt.so: " +
		"link to /etc/alternatives/libcublas_so dropped"}
	dc.accept("variant-deb-license",
		"the deb ships usr/local/cuda-12.6/LICENSE, which lands on the merged LICENSE: merged into it",
		build(plus(debtest.File{Name: "usr/local/cuda-12.6/LICENSE", Body: []byte("NVIDIA software license (synthetic)\n")})),
	).Changes = []string{"usr/local/cuda-12.6/LICENSE: license file merged into LICENSE"}
	dc.reject("variant-etc-unplaced", ErrLayoutUnplaced, "", "etc/cublas.conf",
		"etc/ of a package whose NVIDIA archive has no etc/ (only libcufile's has a rule): unplaced, listed",
		build(plus(debtest.File{Name: "etc/cublas.conf", Body: []byte("x\n")})))
}

// limitCases adds decompression bombs and entries over MaxBytes,
// MaxEntries or MaxNameLen.
func (dc *debCases) limitCases() {
	bomb := func(comp string) debtest.Deb {
		return with(func(d *debtest.Deb) {
			d.Compression = comp
			d.Files = append(d.Files, debtest.File{Name: Lib + "libbomb.so", Body: zeros(4 << 20)})
		})
	}
	xzBomb := sync.OnceValues(build(bomb("xz"))) // the same deb for both
	dc.reject("xz-bomb-limited", ErrDebLimit, dataXZ, "",
		"a ~1 KB xz data member expanding to 4 MiB, over MaxBytes=1 MiB",
		xzBomb).Limits = &Limits{MaxBytes: 1 << 20}
	dc.accept("xz-bomb-default",
		"the same 4 MiB expansion is within the default MaxBytes (16 GiB)",
		xzBomb, "lib/libbomb.so")
	dc.reject("zstd-bomb-limited", ErrDebLimit, "data.tar.zst", "",
		"a tiny zstd data member expanding to 4 MiB, over MaxBytes=1 MiB",
		build(bomb("zstd"))).Limits = &Limits{MaxBytes: 1 << 20}
	ratioBomb := func(comp string) func() ([]byte, error) {
		return func() ([]byte, error) {
			m, err := debtest.BombDataMember(comp, Lib+"bomb", 1, 256<<20)
			if err != nil {
				return nil, err
			}
			suf, _ := debtest.Suffix(comp)
			d := base()
			d.DataMember, d.DataName = m, "data.tar"+suf
			return debtest.Build(d)
		}
	}
	dc.reject("zstd-bomb-ratio", ErrDebLimit, "data.tar.zst", "",
		"a ~30 KB zstd data member expanding to 256 MiB of zeros: refused by the default MaxRatio once past 64 MiB",
		ratioBomb("zstd"))
	dc.reject("xz-bomb-ratio", ErrDebLimit, dataXZ, "",
		"a ~50 KB xz data member (concatenated streams) expanding to 256 MiB of zeros: "+
			"refused by the default MaxRatio once past 64 MiB",
		ratioBomb("xz"))
	dc.reject("pax-sparse-bomb", ErrDebFormat, dataXZ, "./"+Lib+"libsparse.so",
		"a PAX GNU sparse file: 3 KB of tar that archive/tar would read as 100 GB of zeros, above every byte count",
		paxEntry(debtest.PaxRecord("GNU.sparse.major", "1")+debtest.PaxRecord("GNU.sparse.minor", "0")+
			debtest.PaxRecord("GNU.sparse.name", "./"+Lib+"libsparse.so")+
			debtest.PaxRecord("GNU.sparse.realsize", "100000000000"),
			"./"+Lib+"placeholder", tar.TypeReg, append([]byte("1\n0\n0\n"), make([]byte, 506)...)))
	many := with(func(d *debtest.Deb) {
		for i := range 20 {
			d.Files = append(d.Files, debtest.File{Name: fmt.Sprintf("%slibmany%02d.so", Lib, i), Body: []byte{byte(i)}})
		}
	})
	dc.reject("max-entries", ErrDebLimit, dataXZ, "",
		"about 30 entries (parents included) over MaxEntries=16",
		build(many)).Limits = &Limits{MaxEntries: 16}
	long := Lib + strings.Repeat("l", 150) + ".so"
	dc.reject("max-name-len", ErrDebLimit, dataXZ, "",
		"a ~200-byte name over MaxNameLen=128",
		build(with(func(d *debtest.Deb) {
			d.TarFormat = tar.FormatPAX
			d.Files = append(d.Files, debtest.File{Name: long, Body: []byte("l\n")})
		}))).Limits = &Limits{MaxNameLen: 128}
}

// streamCases adds truncated and corrupt compressed data members and tar
// headers whose sizes lie.
func (dc *debCases) streamCases() {
	// Corrupt and truncated compressed streams.
	payload := bytes.Repeat([]byte("realistic-ish payload 0123456789abcdef "), 2000)
	withPayload := func(comp string) debtest.Deb {
		return with(func(d *debtest.Deb) {
			d.Compression = comp
			d.Files = append(d.Files, debtest.File{Name: Lib + "libpayload.so", Body: payload})
		})
	}
	for _, c := range []struct{ comp, member string }{{"xz", dataXZ}, {"zstd", "data.tar.zst"}, {"gzip", "data.tar.gz"}} {
		dc.reject("truncated-"+c.comp, ErrDebCompression+"|"+ErrDebTruncated, c.member, "",
			c.comp+" data member cut in half (ar size matches the cut bytes)",
			dataMember(withPayload(c.comp), func(b []byte) []byte { return b[:len(b)/2] }))
		dc.reject("corrupt-"+c.comp, ErrDebCompression+"|"+ErrDebTruncated+"|"+ErrDebFormat, c.member, "",
			c.comp+" data member with flipped bytes in the middle",
			dataMember(withPayload(c.comp), func(b []byte) []byte {
				b = append([]byte(nil), b...)
				b[len(b)/2] ^= 0x55
				b[len(b)/2+1] ^= 0xaa
				return b
			}))
	}
	dc.reject("corrupt-xz-checksum", ErrDebCompression+"|"+ErrDebTruncated+"|"+ErrDebFormat, dataXZ, "",
		"xz data member whose last check bytes are wrong",
		dataMember(base(), func(b []byte) []byte {
			b = append([]byte(nil), b...)
			b[len(b)-20] ^= 0xff
			return b
		}))

	// Lying tar headers.
	dc.reject("tar-size-larger", ErrDebTruncated, dataXZ, "./"+Lib+"liar", "last header claims 100000 bytes, 10 follow",
		build(plus(debtest.File{Name: Lib + "liar", Body: []byte("0123456789"), Size: 100000})))
	dc.reject("tar-size-smaller", ErrDebFormat+"|"+ErrDebTruncated, dataXZ, "",
		"header claims 5 bytes, 600 bytes of text follow and are read as the next header",
		build(plus(debtest.File{Name: Lib + "liar", Body: bytes.Repeat([]byte("not a tar header "), 40), Size: 5})))
}

// arCases adds spoiled ar containers: members out of order, missing,
// repeated or unknown, bad debian-binary, bad header fields and padding.
func (dc *debCases) arCases() {
	dc.reject("garbage-after-data", ErrDebFormat, dataXZ, "",
		"bytes after the last member that are not an ar member: dpkg ignores them, another reader may not",
		build(with(func(d *debtest.Deb) { d.Trailer = []byte("garbage that is not an ar header\n") })))
	dc.reject("second-data-member", ErrDebFormat, "data.tar.gz", "",
		"a second data member with other contents: dpkg takes the first, another tool may take the second",
		func() ([]byte, error) {
			e := base()
			e.Files[0].Body = []byte("\x7fELF other libcublas\n")
			dt, err := e.BuildDataTar()
			if err != nil {
				return nil, err
			}
			c, err := debtest.Compress("gzip", dt)
			if err != nil {
				return nil, err
			}
			return debtest.Build(with(func(d *debtest.Deb) {
				d.ExtraMembers = []debtest.Member{{Name: "data.tar.gz", Body: c}}
			}))
		})
	dc.reject("control-after-data", ErrDebFormat, "control.tar", "",
		"a second control member after data",
		func() ([]byte, error) {
			d := base()
			ct, err := d.ControlTar(mtime)
			if err != nil {
				return nil, err
			}
			d.ExtraMembers = []debtest.Member{{Name: "control.tar", Body: ct}}
			return debtest.Build(d)
		})
	dc.reject("unknown-member-after-data", ErrDebFormat, "whatever", "",
		"a member after data.tar that is neither _-prefixed nor known",
		build(with(func(d *debtest.Deb) {
			d.ExtraMembers = []debtest.Member{{Name: "whatever", Body: []byte("x")}}
		})))
	dc.accept("member-after-data",
		"an extra _-prefixed member after data.tar is ignored, like dpkg",
		build(with(func(d *debtest.Deb) {
			d.ExtraMembers = []debtest.Member{{Name: "_extra", Body: []byte("extra")}}
		})))
	dc.reject("wrong-debian-binary", ErrDebFormat, "debian-binary", "",
		"debian-binary says 3.0",
		build(with(func(d *debtest.Deb) { d.DebianBinary = "3.0\n" })))
	dc.reject("debian-binary-no-newline", ErrDebFormat, "debian-binary", "",
		"debian-binary is \"2.0\" without its newline",
		build(with(func(d *debtest.Deb) { d.DebianBinary = "2.0" })))
	dc.accept("debian-binary-2.1",
		"dpkg accepts any 2.x format version",
		build(with(func(d *debtest.Deb) { d.DebianBinary = "2.1\n" })))
	dc.reject("missing-debian-binary", ErrDebFormat, "control.tar.xz", "",
		"first member is control.tar",
		build(with(func(d *debtest.Deb) { d.MemberOrder = []string{"control", "data"} })))
	dc.reject("members-out-of-order", ErrDebFormat, dataXZ, "",
		"data.tar before control.tar",
		build(with(func(d *debtest.Deb) { d.MemberOrder = []string{"debian-binary", "data", "control"} })))
	dc.reject("missing-control", ErrDebFormat, "", "",
		"no control.tar member",
		build(with(func(d *debtest.Deb) { d.MemberOrder = []string{"debian-binary", "data"} })))
	dc.reject("missing-data", ErrDebFormat, "", "",
		"no data.tar member",
		build(with(func(d *debtest.Deb) { d.MemberOrder = []string{"debian-binary", "control"} })))
	dc.reject("unknown-compression-suffix", ErrDebCompression, "data.tar.lz4", "",
		"data.tar.lz4 is not a dpkg compression",
		build(with(func(d *debtest.Deb) { d.DataName = "data.tar.lz4" })))
	dc.reject("suffix-magic-mismatch", ErrDebCompression, "data.tar.gz", "",
		"data.tar.gz holds xz bytes",
		build(with(func(d *debtest.Deb) { d.DataName = "data.tar.gz" })))
	dc.reject("ar-size-non-numeric", ErrDebFormat, "", "",
		"ar size field \"12x4\"",
		mangle(base(), func(b []byte) ([]byte, error) { return setArField(b, "control.tar.xz", 48, 10, "12x4") }))
	dc.reject("ar-size-negative", ErrDebFormat, "", "",
		"ar size field \"-1\"",
		mangle(base(), func(b []byte) ([]byte, error) { return setArField(b, "control.tar.xz", 48, 10, "-1") }))
	dc.reject("ar-size-past-eof", ErrDebTruncated, dataXZ, "",
		"data.tar.xz claims 999999 bytes",
		mangle(base(), func(b []byte) ([]byte, error) { return setArField(b, dataXZ, 48, 10, "999999") }))
	dc.reject("ar-bad-terminator", ErrDebFormat, "", "",
		"ar header terminator is not \"`\\n\"",
		mangle(base(), func(b []byte) ([]byte, error) {
			b = append([]byte(nil), b...)
			b[8+58] = 'X'
			return b, nil
		}))
	dc.reject("ar-bad-magic", ErrDebFormat, "", "",
		"not an ar archive",
		func() ([]byte, error) { return []byte("!<arch>Xdebian-binary   "), nil })
	dc.reject("empty-file", ErrDebTruncated, "", "", "zero bytes", func() ([]byte, error) { return []byte{}, nil })
	dc.reject("truncated-deb", ErrDebTruncated, dataXZ, "",
		"the deb cut 20 bytes before its end",
		mangle(base(), func(b []byte) ([]byte, error) { return b[:len(b)-20], nil }))
	dc.accept("odd-member-padded", "an odd-sized member followed by its pad byte", build(with(func(d *debtest.Deb) {
		d.ExtraMembers = []debtest.Member{{Name: "_gpgorigin", Body: []byte("odd")}}
		d.MemberOrder = []string{"debian-binary", "control", "_gpgorigin", "data"}
	})))
	dc.reject("odd-member-unpadded", ErrDebFormat, "", "",
		"an odd-sized member without the pad byte: the next header is misaligned",
		build(with(func(d *debtest.Deb) {
			d.ExtraMembers = []debtest.Member{{Name: "_gpgorigin", Body: []byte("odd")}}
			d.MemberOrder = []string{"debian-binary", "control", "_gpgorigin", "data"}
			d.NoPadding = true
		})))
	dc.accept("gnu-ar-slash-names",
		"GNU ar writes member names with a trailing slash",
		build(with(func(d *debtest.Deb) { d.ArSlash = true })))
	dc.reject("control-without-package", ErrDebFormat, "control.tar.xz", "control",
		"control file without Package field",
		build(with(func(d *debtest.Deb) { d.Control = "Version: 1\n" })))
}

// nameCases adds long, NUL-holding, lookalike and dot-segment entry names.
func (dc *debCases) nameCases() {
	longPAX := Lib + strings.Repeat("p", 180) + ".so"
	dc.accept("long-name-pax",
		"a 230-byte name in a PAX record (valid, under the default MaxNameLen)",
		build(with(func(d *debtest.Deb) {
			d.TarFormat = tar.FormatPAX
			d.Files = append(d.Files, debtest.File{Name: longPAX, Body: []byte("p\n")})
		})), "lib/"+strings.Repeat("p", 180)+".so")
	longGNU := Lib + strings.Repeat("g", 180) + ".so"
	dc.accept("long-name-gnu",
		"a 230-byte name and link target as GNU long name/link records",
		build(with(func(d *debtest.Deb) {
			d.TarFormat = tar.FormatGNU
			d.Files = append(d.Files,
				debtest.File{Name: longGNU, Body: []byte("g\n")},
				debtest.File{Name: Lib + "libg.so", Type: tar.TypeSymlink, Linkname: strings.Repeat("g", 180) + ".so"})
		})), "lib/"+strings.Repeat("g", 180)+".so", "lib/libg.so")
	dc.reject("nul-in-name", ErrDebFormat, dataXZ, "",
		"a PAX path with a NUL byte (C code would see a different name): archive/tar refuses the header",
		func() ([]byte, error) {
			dt, err := paxFileTar("./"+Lib+"libnul.so\x00/../../../etc/passwd", []byte("nul\n"))
			if err != nil {
				return nil, err
			}
			d := base()
			d.DataTar = dt
			return debtest.Build(d)
		})
	dc.accept("nul-in-gnu-longname",
		"a GNU long name is a C string: it ends at the NUL, as GNU tar and dpkg read it; "+
			"the bytes after it (/../../../etc/passwd) are never a path",
		func() ([]byte, error) {
			d := base()
			dt, err := d.BuildDataTar()
			if err != nil {
				return nil, err
			}
			var b bytes.Buffer
			b.Write(dt[:len(dt)-1024])
			name := "./" + Lib + strings.Repeat("n", 100) + ".so\x00/../../../../../../etc/passwd\x00"
			b.Write(debtest.RawTarHeader("././@LongLink", 'L', len(name), mtime))
			b.WriteString(name)
			pad(&b)
			b.Write(debtest.RawTarHeader("./placeholder", tar.TypeReg, 4, mtime))
			b.WriteString("nul\n")
			pad(&b)
			b.Write(make([]byte, 1024))
			d.DataTar = b.Bytes()
			return debtest.Build(d)
		}, "lib/"+strings.Repeat("n", 100)+".so")
	dc.accept("lookalike-unicode",
		"Cyrillic 'а' (U+0430) in libcublаs and NFC vs NFD 'é' are distinct, valid byte strings: "+
			"all are kept, none collides with another",
		build(plus(
			debtest.File{Name: Lib + "libcubl\u0430s.so.12.6.1.4", Body: []byte("cyrillic\n")},
			debtest.File{Name: Lib + "caf\u00e9.txt", Body: []byte("nfc\n")},
			debtest.File{Name: Lib + "cafe\u0301.txt", Body: []byte("nfd\n")})),
		"lib/libcubl\u0430s.so.12.6.1.4", "lib/caf\u00e9.txt", "lib/cafe\u0301.txt")
	dc.accept("dot-segments-inside",
		"./usr/./local/../local/... cleans to a path inside the package",
		build(plus(debtest.File{Name: "./usr/./local/../local/cuda-12.6/targets/aarch64-linux/lib/libdots.so", Raw: true,
			Body: []byte("dots\n")})),
		"lib/libdots.so")
	// NAME_MAX: one policy for convert and extract (internal/safepath).
	long := strings.Repeat("n", 252)
	dc.accept("name-component-255",
		"a 255-byte file name is the longest every Linux file system holds",
		build(plus(debtest.File{Name: Lib + long + ".so", Body: []byte("long\n")})), "lib/"+long+".so")
	dc.reject("name-component-256", ErrDebUnsafePath, dataXZ, "./"+Lib+long+".so1",
		"a 256-byte file name: no Linux file system holds it, the archive could not be unpacked",
		build(plus(debtest.File{Name: Lib + long + ".so1", Body: []byte("long\n")})))
}

const stanza = `Package: %s
Source: libcublas
Version: %s
Architecture: arm64
Maintainer: cudatools <cudatools@nvidia.com>
Installed-Size: 18
Filename: pool/main/libc/libcublas/%s_%s_arm64.deb
Size: 2136
SHA256: f197622fee6c8615032282406897de9a6591eafa99487b127410c7ea64cfc204
Description: CUDA cublas native runtime
`

func st(pkg, ver string) string {
	fv := ver
	if i := strings.IndexByte(fv, ':'); i >= 0 {
		fv = fv[i+1:]
	}
	return fmt.Sprintf(stanza, pkg, ver, pkg, fv)
}

// indexCases are the indexes that are not text: line endings, bytes and
// compressed streams no text file holds as such. The text ones are the
// txtar archives of testdata/hostile.
func indexCases() []Case {
	var cs []Case
	text := func(s string) func() ([]byte, error) { return func() ([]byte, error) { return []byte(s), nil } }
	acc := func(name, reason string, pkgs, probs int, b func() ([]byte, error)) {
		cs = append(cs, Case{Name: name, File: name + ".Packages", Kind: KindIndex, Expect: Accept, Reason: reason,
			Packages: pkgs, Problems: probs, build: b})
	}
	rej := func(name, file, errKind, reason string, b func() ([]byte, error)) {
		cs = append(cs, Case{Name: name, File: file, Kind: KindIndex, Expect: Reject, Error: errKind, Reason: reason,
			build: b})
	}
	two := st("libcublas-12-6", "12.6.1.4-1") + "\n" + st("libcublas-dev-12-6", "12.6.1.4-1")

	acc("index-crlf",
		"CRLF line endings (an index edited on Windows) parse like LF",
		2, 0, text(strings.ReplaceAll(two, "\n", "\r\n")))
	acc("index-xz", "an xz-compressed index", 2, 0, func() ([]byte, error) { return debtest.Compress("xz", []byte(two)) })
	rej("index-binary-garbage", "index-binary-garbage.Packages", ErrIndexSyntax,
		"binary junk is not deb822",
		func() ([]byte, error) {
			b := make([]byte, 4096)
			x := uint32(2463534242)
			for i := range b {
				x ^= x << 13
				x ^= x >> 17
				x ^= x << 5
				b[i] = byte(x)
			}
			b[0], b[1] = 'P', 'a' // not a compression magic
			return b, nil
		})
	rej("index-truncated-xz", "index-truncated-xz.Packages.xz", ErrIndexTruncated+"|"+ErrIndexCompress,
		"Packages.xz cut in half",
		func() ([]byte, error) {
			var s strings.Builder
			for i := range 50 {
				s.WriteString(st(fmt.Sprintf("libpkg%02d", i), "1.0-1") + "\n")
			}
			b, err := debtest.Compress("xz", []byte(s.String()))
			if err != nil {
				return nil, err
			}
			return b[:len(b)/2], nil
		})
	rej("index-corrupt-gzip", "index-corrupt-gzip.Packages.gz", ErrIndexCompress+"|"+ErrIndexTruncated,
		"Packages.gz with flipped bytes",
		func() ([]byte, error) {
			b, err := debtest.Compress("gzip", []byte(two+"\n"+two))
			if err != nil {
				return nil, err
			}
			b[len(b)/2] ^= 0xff
			b[len(b)-6] ^= 0xff
			return b, nil
		})
	rej("index-zstd-bomb", "index-zstd-bomb.Packages.zst", ErrIndexBomb,
		"valid stanzas repeated to 64 MiB in a few KB of zstd (concatenated frames): refused by expansion ratio",
		func() ([]byte, error) {
			var s strings.Builder
			for s.Len() < 4<<20 {
				s.WriteString(st(Package, "12.6.1.4-1") + "\n")
			}
			c, err := debtest.Compress("zstd", []byte(s.String()))
			if err != nil {
				return nil, err
			}
			return bytes.Repeat(c, 16), nil
		})
	rej("index-lz4", "index-lz4.Packages.lz4", ErrIndexCompress,
		"lz4 magic: a compression apt indexes do not use here",
		text("\x04\x22\x4d\x18rest"))
	rej("index-nul-byte", "index-nul-byte.Packages", ErrIndexSyntax,
		"a NUL byte inside a field",
		text(strings.Replace(two, "Maintainer: cudatools", "Maintainer: cuda\x00tools", 1)))
	return cs
}
