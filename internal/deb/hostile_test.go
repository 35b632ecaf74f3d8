package deb

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/testutil"
)

const miniControl = "Package: p\nVersion: 1\nArchitecture: arm64\n"

func mini(files ...debtest.File) debtest.Deb {
	return debtest.Deb{Control: miniControl, Files: files}
}

func mustBuild(t testing.TB, d debtest.Deb) []byte {
	t.Helper()
	b, err := debtest.Build(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustCompress(t testing.TB, comp string, b []byte) []byte {
	t.Helper()
	c, err := debtest.Compress(comp, b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func paxTar(records string, name string, body []byte) []byte {
	var b bytes.Buffer
	rec := records
	b.Write(debtest.RawTarHeader("PaxHeaders/x", tar.TypeXHeader, len(rec), time.Unix(0, 0)))
	b.WriteString(rec)
	b.Write(make([]byte, (512-len(rec)%512)%512))
	b.Write(debtest.RawTarHeader(name, tar.TypeReg, len(body), time.Unix(0, 0)))
	b.Write(body)
	b.Write(make([]byte, (512-len(body)%512)%512))
	b.Write(make([]byte, 1024))
	return b.Bytes()
}

// setArSize rewrites the size field of the ar member called name.
func setArSize(t testing.TB, deb []byte, name, size string) []byte {
	t.Helper()
	out := append([]byte(nil), deb...)
	i := bytes.Index(out, []byte(fmt.Sprintf("%-16s", name)))
	if i < 0 {
		t.Fatalf("member %q not found", name)
	}
	copy(out[i+48:i+58], fmt.Sprintf("%-10s", size))
	return out
}

type hostileCase struct {
	name    string
	deb     func(t testing.TB) []byte
	opts    Options
	reader  func([]byte) io.Reader // default bytes.NewReader
	kind    fault.DebKind          // 0: must succeed
	kinds   []fault.DebKind        // alternatives to kind
	member  string
	entry   string
	errText string
}

func hostileCases() []hostileCase {
	simple := func(d debtest.Deb) func(t testing.TB) []byte {
		return func(t testing.TB) []byte { return mustBuild(t, d) }
	}
	zeros := make([]byte, 4<<20)
	payload := bytes.Repeat([]byte("some realistic payload 0123456789 "), 3000)
	corrupt := func(comp string) func(t testing.TB) []byte {
		return func(t testing.TB) []byte {
			d := mini(debtest.File{Name: "f", Body: payload})
			d.Compression = comp
			dt, err := d.BuildDataTar()
			if err != nil {
				t.Fatal(err)
			}
			c := mustCompress(t, comp, dt)
			c[len(c)/2] ^= 0x55
			c[len(c)/2+1] ^= 0x55
			d.DataMember = c
			return mustBuild(t, d)
		}
	}
	truncated := func(comp string) func(t testing.TB) []byte {
		return func(t testing.TB) []byte {
			d := mini(debtest.File{Name: "f", Body: payload})
			d.Compression = comp
			dt, err := d.BuildDataTar()
			if err != nil {
				t.Fatal(err)
			}
			c := mustCompress(t, comp, dt)
			d.DataMember = c[:len(c)/2]
			return mustBuild(t, d)
		}
	}
	with := func(d debtest.Deb, f func(*debtest.Deb)) debtest.Deb { f(&d); return d }
	ok := mini(debtest.File{Name: "usr/a", Body: []byte("a")})

	return []hostileCase{
		{name: "ok", deb: simple(ok)},
		{
			name:   "traversal ../x",
			deb:    simple(mini(debtest.File{Name: "../x", Raw: true})),
			kind:   fault.DebUnsafePath,
			member: "data.tar.xz",
			entry:  "../x",
		},
		{
			name:   "traversal ./../x",
			deb:    simple(mini(debtest.File{Name: "./../x", Raw: true})),
			kind:   fault.DebUnsafePath,
			member: "data.tar.xz",
			entry:  "./../x",
		},
		{
			name:  "traversal usr/../../x",
			deb:   simple(mini(debtest.File{Name: "usr/../../x", Raw: true})),
			kind:  fault.DebUnsafePath,
			entry: "usr/../../x",
		},
		{name: "inner .. that stays inside", deb: simple(mini(debtest.File{Name: "./usr/../x", Raw: true}))},
		{
			name:  "absolute",
			deb:   simple(mini(debtest.File{Name: "/etc/passwd", Raw: true})),
			kind:  fault.DebUnsafePath,
			entry: "/etc/passwd",
		},
		{
			name:  "absolute dir",
			deb:   simple(mini(debtest.File{Name: "/", Raw: true, Type: tar.TypeDir})),
			kind:  fault.DebUnsafePath,
			entry: "/",
		},
		{name: "NUL in PAX path", deb: simple(with(ok, func(d *debtest.Deb) {
			d.DataTar = paxTar(debtest.PaxRecord("path", "./a\x00b"), "./a", []byte("x"))
		})), kind: fault.DebFormat, member: "data.tar.xz"},
		{name: "PAX long traversal", deb: simple(with(ok, func(d *debtest.Deb) {
			d.DataTar = paxTar(
				debtest.PaxRecord("path", "./"+strings.Repeat("d/", 80)+strings.Repeat("../", 81)+"x"),
				"./a",
				[]byte("x"),
			)
		})), kind: fault.DebUnsafePath, entry: strings.Repeat("d/", 80)},
		{
			name: "GNU long traversal",
			deb: simple(
				with(
					mini(debtest.File{Name: "./" + strings.Repeat("d/", 80) + strings.Repeat("../", 81) + "x", Raw: true}),
					func(d *debtest.Deb) { d.TarFormat = tar.FormatGNU },
				),
			),
			kind:  fault.DebUnsafePath,
			entry: strings.Repeat("d/", 80),
		},
		{
			name:  "char device",
			deb:   simple(mini(debtest.File{Name: "dev/null", Type: tar.TypeChar, Devmajor: 1, Devminor: 3})),
			kind:  fault.DebDevice,
			entry: "./dev/null",
		},
		{
			name:  "block device",
			deb:   simple(mini(debtest.File{Name: "dev/sda", Type: tar.TypeBlock})),
			kind:  fault.DebDevice,
			entry: "./dev/sda",
		},
		{
			name:  "fifo",
			deb:   simple(mini(debtest.File{Name: "fifo", Type: tar.TypeFifo})),
			kind:  fault.DebDevice,
			entry: "./fifo",
		},
		{
			name:  "unknown entry type",
			deb:   simple(mini(debtest.File{Name: "x", Type: 'Z'})),
			kind:  fault.DebFormat,
			entry: "./x",
		},
		{
			name:  "hardlink outside",
			deb:   simple(mini(debtest.File{Name: "l", Type: tar.TypeLink, Linkname: "../../etc/shadow", Raw: true})),
			kind:  fault.DebUnsafePath,
			entry: "l",
		},
		{
			name:  "hardlink absolute",
			deb:   simple(mini(debtest.File{Name: "l", Type: tar.TypeLink, Linkname: "/etc/shadow", Raw: true})),
			kind:  fault.DebUnsafePath,
			entry: "l",
		},
		{
			name:    "hardlink missing",
			deb:     simple(mini(debtest.File{Name: "l", Type: tar.TypeLink, Linkname: "nothere"})),
			kind:    fault.DebUnsafePath,
			entry:   "./l",
			errText: "not an earlier regular file",
		},
		{
			name:  "hardlink to later",
			deb:   simple(mini(debtest.File{Name: "l", Type: tar.TypeLink, Linkname: "f"}, debtest.File{Name: "f"})),
			kind:  fault.DebUnsafePath,
			entry: "./l",
		},
		{
			name: "hardlink to dir",
			deb: simple(
				mini(debtest.File{Name: "d", Type: tar.TypeDir}, debtest.File{Name: "l", Type: tar.TypeLink, Linkname: "d"}),
			),
			kind:  fault.DebUnsafePath,
			entry: "./l",
		},
		{
			name: "hardlink ok",
			deb: simple(
				mini(debtest.File{Name: "f", Body: []byte("x")}, debtest.File{Name: "l", Type: tar.TypeLink, Linkname: "f"}),
			),
		},
		{
			name:  "symlink empty target",
			deb:   simple(mini(debtest.File{Name: "s", Type: tar.TypeSymlink})),
			kind:  fault.DebUnsafePath,
			entry: "./s",
		},
		{
			name:    "bomb MaxBytes",
			deb:     simple(mini(debtest.File{Name: "zeros", Body: zeros})),
			opts:    Options{Limits: Limits{MaxBytes: 1 << 20}},
			kind:    fault.DebLimit,
			member:  "data.tar.xz",
			errText: "MaxBytes",
		},
		{
			name: "bomb MaxBytes zstd",
			deb: simple(
				with(mini(debtest.File{Name: "zeros", Body: zeros}), func(d *debtest.Deb) { d.Compression = "zstd" }),
			),
			opts:   Options{Limits: Limits{MaxBytes: 1 << 20}},
			kind:   fault.DebLimit,
			member: "data.tar.zst",
		},
		{
			name:    "MaxEntries",
			deb:     simple(with(mini(debtest.File{Name: "a/b/c/d/e/f"}), func(d *debtest.Deb) { d.AddParents = true })),
			opts:    Options{Limits: Limits{MaxEntries: 4}},
			kind:    fault.DebLimit,
			errText: "MaxEntries",
		},
		{
			name:    "MaxNameLen",
			deb:     simple(mini(debtest.File{Name: strings.Repeat("n", 300)})),
			opts:    Options{Limits: Limits{MaxNameLen: 200}},
			kind:    fault.DebLimit,
			errText: "MaxNameLen",
		},
		{
			name:    "MaxControlBytes",
			deb:     simple(with(ok, func(d *debtest.Deb) { d.ControlFiles = map[string][]byte{"postinst": payload} })),
			opts:    Options{Limits: Limits{MaxControlBytes: 4096}},
			kind:    fault.DebLimit,
			member:  "control.tar.xz",
			errText: "MaxControlBytes",
		},
		{
			name:    "xz dictionary over MaxWindow",
			deb:     simple(ok),
			opts:    Options{Limits: Limits{MaxWindow: 1 << 20}},
			kind:    fault.DebLimit,
			member:  "control.tar.xz",
			errText: "xz: LZMA2 dictionary of 8388608 bytes exceeds the limit of 1048576",
		}, // the in-process reader's block header check
		{
			name:    "xz dictionary over MaxWindow system",
			deb:     simple(ok),
			opts:    Options{SystemXZ: true, systemXZMin: 1, Limits: Limits{MaxWindow: 1 << 20}},
			kind:    fault.DebLimit,
			member:  "control.tar.xz",
			errText: "xz dictionary size 8388608 exceeds limit 1048576",
		}, // checked before the child starts
		{
			name: "zstd window over MaxWindow",
			deb:  simple(with(mini(debtest.File{Name: "f", Body: payload}), func(d *debtest.Deb) { d.Compression = "zstd" })),
			opts: Options{
				Limits: Limits{MaxWindow: 4 << 10},
			},
			kind:    fault.DebLimit,
			member:  "data.tar.zst",
			errText: "window beyond the limit of 4096 bytes",
		},
		{
			name:   "corrupt xz",
			deb:    corrupt("xz"),
			kinds:  []fault.DebKind{fault.DebCompression, fault.DebTruncated, fault.DebFormat},
			member: "data.tar.xz",
		},
		{
			name:   "corrupt xz system",
			deb:    corrupt("xz"),
			opts:   Options{SystemXZ: true, systemXZMin: 1},
			kind:   fault.DebCompression,
			member: "data.tar.xz",
		},
		{
			name:   "corrupt zstd",
			deb:    corrupt("zstd"),
			kinds:  []fault.DebKind{fault.DebCompression, fault.DebTruncated, fault.DebFormat},
			member: "data.tar.zst",
		},
		{
			name:   "corrupt gzip",
			deb:    corrupt("gzip"),
			kinds:  []fault.DebKind{fault.DebCompression, fault.DebTruncated, fault.DebFormat},
			member: "data.tar.gz",
		},
		{
			name:   "truncated xz",
			deb:    truncated("xz"),
			kinds:  []fault.DebKind{fault.DebCompression, fault.DebTruncated},
			member: "data.tar.xz",
		},
		{
			name:   "truncated xz system",
			deb:    truncated("xz"),
			opts:   Options{SystemXZ: true, systemXZMin: 1},
			kind:   fault.DebCompression,
			member: "data.tar.xz",
		},
		{
			name:   "truncated zstd",
			deb:    truncated("zstd"),
			kinds:  []fault.DebKind{fault.DebCompression, fault.DebTruncated},
			member: "data.tar.zst",
		},
		{
			name:   "truncated gzip",
			deb:    truncated("gzip"),
			kinds:  []fault.DebKind{fault.DebCompression, fault.DebTruncated},
			member: "data.tar.gz",
		},
		{name: "tar header lies about size", deb: simple(with(ok, func(d *debtest.Deb) {
			d.Files = []debtest.File{{Name: "liar", Body: []byte("short"), Size: 100000}}
		})), kind: fault.DebTruncated, member: "data.tar.xz", entry: "./liar"},
		{name: "truncated tar none", deb: simple(with(ok, func(d *debtest.Deb) {
			d.Compression = "none"
			d.DataTar = paxTar("", "./f", payload)[:2000]
		})), kind: fault.DebTruncated, member: "data.tar"},
		{
			name:    "wrong debian-binary",
			deb:     simple(with(ok, func(d *debtest.Deb) { d.DebianBinary = "3.0\n" })),
			kind:    fault.DebFormat,
			member:  "debian-binary",
			errText: "3.0",
		},
		{name: "debian-binary 2.1 accepted", deb: simple(with(ok, func(d *debtest.Deb) { d.DebianBinary = "2.1\n" }))},
		{
			name:   "debian-binary no newline",
			deb:    simple(with(ok, func(d *debtest.Deb) { d.DebianBinary = "2.0" })),
			kind:   fault.DebFormat,
			member: "debian-binary",
		},
		{
			name:    "missing debian-binary",
			deb:     simple(with(ok, func(d *debtest.Deb) { d.MemberOrder = []string{"control", "data"} })),
			kind:    fault.DebFormat,
			member:  "control.tar.xz",
			errText: "want debian-binary",
		},
		{
			name:   "control before debian-binary",
			deb:    simple(with(ok, func(d *debtest.Deb) { d.MemberOrder = []string{"control", "debian-binary", "data"} })),
			kind:   fault.DebFormat,
			member: "control.tar.xz",
		},
		{
			name:    "data before control",
			deb:     simple(with(ok, func(d *debtest.Deb) { d.MemberOrder = []string{"debian-binary", "data", "control"} })),
			kind:    fault.DebFormat,
			member:  "data.tar.xz",
			errText: "before control.tar",
		},
		{
			name:    "missing control",
			deb:     simple(with(ok, func(d *debtest.Deb) { d.MemberOrder = []string{"debian-binary"} })),
			kind:    fault.DebFormat,
			errText: "missing control.tar",
		},
		{
			name:    "missing data",
			deb:     simple(with(ok, func(d *debtest.Deb) { d.MemberOrder = []string{"debian-binary", "control"} })),
			kind:    fault.DebFormat,
			errText: "missing data.tar",
		},
		{name: "unexpected member", deb: simple(with(ok, func(d *debtest.Deb) {
			d.ExtraMembers = []debtest.Member{{Name: "evil", Body: []byte("x")}}
			d.MemberOrder = []string{"debian-binary", "control", "evil", "data"}
		})), kind: fault.DebFormat, member: "evil"},
		{name: "control without control file", deb: simple(with(ok, func(d *debtest.Deb) {
			d.ControlMember = compressP("xz", paxTar("", "./md5sums", nil))
		})), kind: fault.DebFormat, member: "control.tar.xz", errText: "no control file"},
		{
			name:   "control without Package",
			deb:    simple(with(ok, func(d *debtest.Deb) { d.Control = "Version: 1\n" })),
			kind:   fault.DebFormat,
			member: "control.tar.xz",
			entry:  "control",
		},
		{
			name:    "unknown suffix",
			deb:     simple(with(ok, func(d *debtest.Deb) { d.DataName = "data.tar.lz4" })),
			kind:    fault.DebCompression,
			member:  "data.tar.lz4",
			errText: "unknown compression",
		},
		{
			name:    "suffix magic mismatch",
			deb:     simple(with(ok, func(d *debtest.Deb) { d.DataName = "data.tar.gz" })),
			kind:    fault.DebCompression,
			member:  "data.tar.gz",
			errText: "magic",
		},
		{
			name:   "bzip2 magic mismatch",
			deb:    simple(with(ok, func(d *debtest.Deb) { d.DataName = "data.tar.bz2" })),
			kind:   fault.DebCompression,
			member: "data.tar.bz2",
		},
		{
			name:    "non-numeric ar size",
			deb:     func(t testing.TB) []byte { return setArSize(t, mustBuild(t, ok), "control.tar.xz", "12x4") },
			kind:    fault.DebFormat,
			errText: "non-numeric size",
		},
		{
			name: "negative ar size",
			deb:  func(t testing.TB) []byte { return setArSize(t, mustBuild(t, ok), "control.tar.xz", "-1") },
			kind: fault.DebFormat,
		},
		{
			name:    "ar size past EOF (seekable)",
			deb:     func(t testing.TB) []byte { return setArSize(t, mustBuild(t, ok), "data.tar.xz", "999999") },
			kind:    fault.DebTruncated,
			member:  "data.tar.xz",
			errText: "past end of input",
		},
		{
			name:   "ar size past EOF (stream)",
			deb:    func(t testing.TB) []byte { return setArSize(t, mustBuild(t, ok), "data.tar.xz", "999999") },
			reader: func(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b)) },
			kind:   fault.DebTruncated,
			member: "data.tar.xz",
		},
		{
			name:   "truncated in data (stream)",
			deb:    simple(ok),
			reader: func(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b[:len(b)-20])) },
			kind:   fault.DebTruncated,
			member: "data.tar.xz",
		},
		{
			name:   "truncated in header",
			deb:    simple(ok),
			reader: func(b []byte) io.Reader { return bytes.NewReader(b[:100]) },
			kind:   fault.DebTruncated,
		},
		{
			name:    "bad ar magic",
			deb:     func(testing.TB) []byte { return []byte("!<arch>Xdebian-binary") },
			kind:    fault.DebFormat,
			errText: "not an ar archive",
		},
		{name: "empty input", deb: func(testing.TB) []byte { return nil }, kind: fault.DebTruncated},
		{
			name:    "bad header terminator",
			deb:     func(t testing.TB) []byte { b := mustBuild(t, ok); b[8+58] = 'X'; return b },
			kind:    fault.DebFormat,
			errText: "terminator",
		},
		{name: "short ar mode field (library would panic)", deb: func(t testing.TB) []byte {
			b := mustBuild(t, ok)
			copy(b[8+40:8+48], "0       ")
			return b
		}},
		{name: "GNU ar names with slash", deb: simple(with(ok, func(d *debtest.Deb) { d.ArSlash = true }))},
		{name: "underscore member between", deb: simple(with(ok, func(d *debtest.Deb) {
			d.ExtraMembers = []debtest.Member{{Name: "_gpgorigin", Body: []byte("sig")}}
			d.MemberOrder = []string{"debian-binary", "_gpgorigin", "control", "_gpgorigin", "data"}
		}))},
		{name: "odd member with padding", deb: simple(with(ok, func(d *debtest.Deb) {
			d.ExtraMembers = []debtest.Member{{Name: "_odd", Body: []byte("odd")}}
			d.MemberOrder = []string{"debian-binary", "control", "_odd", "data"}
		}))},
		{name: "odd member without padding", deb: simple(with(ok, func(d *debtest.Deb) {
			d.ExtraMembers = []debtest.Member{{Name: "_odd", Body: []byte("odd")}}
			d.MemberOrder = []string{"debian-binary", "control", "_odd", "data"}
			d.NoPadding = true
		})), kind: fault.DebFormat, errText: "missing pad byte"},
		{
			name: "odd data last without padding",
			deb: simple(with(mini(debtest.File{Name: "f", Body: []byte("x")}), func(d *debtest.Deb) {
				d.Compression = "none"
				d.DataTar = append(paxTar("", "./f", []byte("x")), 'Z')
				d.NoPadding = true
			})),
		},
		{
			name:    "garbage after data",
			deb:     simple(with(ok, func(d *debtest.Deb) { d.Trailer = []byte("garbage that is not an ar header") })),
			kind:    fault.DebFormat,
			member:  "data.tar.xz",
			errText: "not an ar member",
		},
		{
			name:    "long garbage after data",
			deb:     simple(with(ok, func(d *debtest.Deb) { d.Trailer = bytes.Repeat([]byte("garbage "), 20) })),
			kind:    fault.DebFormat,
			member:  "data.tar.xz",
			errText: "not an ar member",
		},
		{name: "unknown member after data", deb: simple(with(ok, func(d *debtest.Deb) {
			d.ExtraMembers = []debtest.Member{{Name: "whatever", Body: []byte("x")}}
		})), kind: fault.DebFormat, member: "whatever", errText: "only _-prefixed"},
		{name: "underscore members after data", deb: simple(with(ok, func(d *debtest.Deb) {
			d.ExtraMembers = []debtest.Member{{Name: "_gpgbuilder", Body: []byte("x")}, {Name: "_extra", Body: []byte("yy")}}
		}))},
		{name: "second data member", deb: simple(with(ok, func(d *debtest.Deb) {
			d.ExtraMembers = []debtest.Member{{Name: "data.tar.gz", Body: compressP("gzip", paxTar("", "./usr/a", []byte("b")))}}
		})), kind: fault.DebFormat, member: "data.tar.gz", errText: "second data member"},
		{name: "second identical data member", deb: simple(with(ok, func(d *debtest.Deb) {
			dt, _ := ok.BuildDataTar()
			d.ExtraMembers = []debtest.Member{{Name: "data.tar", Body: dt}}
		})), kind: fault.DebFormat, member: "data.tar", errText: "second data member"},
		{name: "control member after data", deb: simple(with(ok, func(d *debtest.Deb) {
			d.ExtraMembers = []debtest.Member{{Name: "control.tar", Body: mustControlTar(miniControl)}}
		})), kind: fault.DebFormat, member: "control.tar", errText: "control member after"},
		{name: "second control member", deb: simple(with(ok, func(d *debtest.Deb) {
			d.ExtraMembers = []debtest.Member{{Name: "control.tar", Body: mustControlTar(miniControl)}}
			d.MemberOrder = []string{"debian-binary", "control", "control.tar", "data"}
		})), kind: fault.DebFormat, member: "control.tar", errText: "second control.tar"},
		{
			name: "duplicate path different content",
			deb: simple(
				mini(debtest.File{Name: "usr/a", Body: []byte("a")}, debtest.File{Name: "usr/a", Body: []byte("b")}),
			),
			kind:    fault.DebFormat,
			member:  "data.tar.xz",
			entry:   "./usr/a",
			errText: "ambiguous duplicate path usr/a: different contents",
		},
		{
			name: "duplicate path same size different content",
			deb: simple(
				mini(
					debtest.File{Name: "usr/a", Body: bytes.Repeat([]byte("a"), 100000)},
					debtest.File{Name: "usr/a", Body: bytes.Repeat([]byte("b"), 100000)},
				),
			),
			kind:    fault.DebFormat,
			entry:   "./usr/a",
			errText: "different contents",
		},
		{
			name: "duplicate path different mode",
			deb: simple(
				mini(debtest.File{Name: "usr/a", Body: []byte("a")}, debtest.File{Name: "usr/a", Body: []byte("a"), Mode: 0o755}),
			),
			kind:    fault.DebFormat,
			entry:   "./usr/a",
			errText: "mode",
		},
		{
			name: "duplicate path file then symlink",
			deb: simple(
				mini(
					debtest.File{Name: "usr/a", Body: []byte("a")},
					debtest.File{Name: "usr/a", Type: tar.TypeSymlink, Linkname: "b"},
				),
			),
			kind:    fault.DebFormat,
			entry:   "./usr/a",
			errText: "a file, then a symlink",
		},
		{
			name: "duplicate symlink retargeted",
			deb: simple(
				mini(
					debtest.File{Name: "usr/a", Type: tar.TypeSymlink, Linkname: "b"},
					debtest.File{Name: "usr/a", Type: tar.TypeSymlink, Linkname: "c"},
				),
			),
			kind:    fault.DebFormat,
			entry:   "./usr/a",
			errText: "target",
		},
		{
			name: "identical duplicates merge",
			deb: simple(mini(
				debtest.File{Name: "usr/a", Body: []byte("a")},
				debtest.File{Name: "usr/a", Body: []byte("a")},
				debtest.File{
					Name:     "usr/s",
					Type:     tar.TypeSymlink,
					Linkname: "a",
				},
				debtest.File{Name: "usr/s", Type: tar.TypeSymlink, Linkname: "a"},
				debtest.File{Name: "usr", Type: tar.TypeDir},
				debtest.File{Name: "usr", Type: tar.TypeDir},
			)),
		},
		{name: "device in control.tar ignored", deb: simple(with(ok, func(d *debtest.Deb) {
			d.ControlMember = compressP(
				"xz",
				append(debtest.RawTarHeader("./dev", tar.TypeChar, 0, time.Unix(0, 0)), mustControlTar(miniControl)...),
			)
		}))},
	}
}

func compressP(comp string, b []byte) []byte {
	c, err := debtest.Compress(comp, b)
	if err != nil {
		panic(err)
	}
	return c
}

func mustControlTar(ctl string) []byte {
	d := debtest.Deb{Control: ctl}
	b, err := d.ControlTar(timeZero)
	if err != nil {
		panic(err)
	}
	return b
}

// drain reads the whole deb, returning the first error.
func drain(ctx context.Context, r io.Reader, opts Options) error {
	rd, err := NewReader(ctx, r, opts)
	if err != nil {
		return err
	}
	defer func() { _ = rd.Close() }()
	for {
		_, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, rd); err != nil {
			return err
		}
	}
}

func TestHostile(t *testing.T) {
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts.SystemXZ {
				testutil.RequireTool(t, "xz")
			}
			b := tc.deb(t)
			var r io.Reader = bytes.NewReader(b)
			if tc.reader != nil {
				r = tc.reader(b)
			}
			opts := tc.opts
			opts.Name = "hostile_1.0_arm64.deb"
			err := drain(context.Background(), r, opts)
			kinds := tc.kinds
			if tc.kind != 0 {
				kinds = append(kinds, tc.kind)
			}
			if len(kinds) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want kind %v", kinds)
			}
			var e *fault.DebError
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not *fault.DebError", err, err)
			}
			found := false
			for _, k := range kinds {
				if e.Kind == k && errors.Is(err, k.Sentinel()) {
					found = true
				}
			}
			if !found {
				t.Errorf("kind = %v, want one of %v; err = %v", e.Kind, kinds, err)
			}
			msg := err.Error()
			if e.Deb != "hostile_1.0_arm64.deb" || !strings.Contains(msg, "deb hostile_1.0_arm64.deb") {
				t.Errorf("error does not name the deb: %v", msg)
			}
			if tc.member != "" && (e.Member != tc.member || !strings.Contains(msg, "member "+tc.member)) {
				t.Errorf("member = %q, want %q; err = %v", e.Member, tc.member, msg)
			}
			if tc.entry != "" &&
				(!strings.Contains(e.Entry, tc.entry) || !strings.Contains(msg, "entry "+fault.QuoteName(e.Entry))) {
				t.Errorf("entry = %q, want %q; err = %v", e.Entry, tc.entry, msg)
			}
			if tc.errText != "" && !strings.Contains(msg, tc.errText) {
				t.Errorf("error %q does not contain %q", msg, tc.errText)
			}
		})
	}
}

func TestCleanName(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		kind     fault.DebKind
	}{
		{"./usr/bin/x", "usr/bin/x", 0},
		{"usr/bin/", "usr/bin", 0},
		{"./", "", 0},
		{".", "", 0},
		{".//usr//./x", "usr/x", 0},
		{"usr/../x", "x", 0},
		{"../x", "", fault.DebUnsafePath},
		{"./..", "", fault.DebUnsafePath},
		{"a/../../x", "", fault.DebUnsafePath},
		{"/abs", "", fault.DebUnsafePath},
		{"a\x00b", "", fault.DebUnsafePath},
		{strings.Repeat("x", 13), "", fault.DebLimit},
	} {
		got, kind, err := cleanName(tc.in, 12)
		if got != tc.want || kind != tc.kind || (err != nil) != (tc.kind != 0) {
			t.Errorf("cleanName(%q) = %q, %v, %v; want %q, %v", tc.in, got, kind, err, tc.want, tc.kind)
		}
	}
}

func TestEntryModes(t *testing.T) {
	d := mini(
		debtest.File{Name: "suid", Mode: 0o4755},
		debtest.File{Name: "sgid", Mode: 0o2755},
		debtest.File{Name: "plain", Mode: 0o640},
		debtest.File{Name: "tmp", Type: tar.TypeDir, Mode: 0o1777},
	)
	rd, err := NewReader(context.Background(), bytes.NewReader(mustBuild(t, d)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rd.Close() }()
	want := []struct {
		mode  string
		setid bool
	}{{"urwxr-xr-x", true}, {"grwxr-xr-x", true}, {"-rw-r-----", false}, {"trwxrwxrwx", false}}
	for i, w := range want {
		e, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e.Mode.String() != w.mode || e.SetID() != w.setid {
			t.Errorf("entry %d %s: mode %s setid %v, want %s %v", i, e.Path, e.Mode, e.SetID(), w.mode, w.setid)
		}
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Errorf("after last entry: %v, want io.EOF", err)
	}
}

func TestContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rd, err := NewReader(
		ctx,
		bytes.NewReader(mustBuild(t, mini(debtest.File{Name: "a"}, debtest.File{Name: "b"}))),
		Options{},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rd.Close() }()
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := rd.Next(); !errors.Is(err, context.Canceled) {
		t.Errorf("Next after cancel: %v, want context.Canceled", err)
	}
}

func TestParseControl(t *testing.T) {
	for _, tc := range []struct {
		name, in      string
		src, srcVer   string
		desc, wantErr string
	}{
		{name: "plain", in: "Package: a\nVersion: 1.0\n", src: "a", srcVer: "1.0"},
		{name: "source with version", in: "Package: a\nVersion: 1.0+b1\nSource: s (1.0)\n", src: "s", srcVer: "1.0"},
		{name: "source without version", in: "Package: a\nVersion: 2\nSource: s\n", src: "s", srcVer: "2"},
		{
			name:   "multiline",
			in:     "Package: a\nVersion: 1\nDescription: short\n long\n .\n end\n",
			src:    "a",
			srcVer: "1",
			desc:   "short\nlong\n\nend",
		},
		{name: "crlf", in: "Package: a\r\nVersion: 1\r\n", src: "a", srcVer: "1"},
		{name: "no colon", in: "Package: a\nVersion 1\n", wantErr: "line without a colon"},
		{name: "duplicate", in: "Package: a\nVersion: 1\npackage: b\n", wantErr: "duplicate"},
		{name: "two stanzas", in: "Package: a\nVersion: 1\n\nPackage: b\n", wantErr: "more than one stanza"},
		{name: "leading continuation", in: " x\nPackage: a\n", wantErr: "continuation"},
		{name: "no version", in: "Package: a\n", wantErr: "no Version"},
		{name: "bad source", in: "Package: a\nVersion: 1\nSource: s (1.0\n", wantErr: "malformed Source"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseControl(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Source != tc.src || c.SourceVersion != tc.srcVer || c.Field("description") != tc.desc {
				t.Errorf("got %+v", c)
			}
		})
	}
}
