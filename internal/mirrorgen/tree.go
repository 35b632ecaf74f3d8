package mirrorgen

import (
	"archive/tar"
	"bytes"
	"path"
	"sort"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/debredist/debredist/internal/deb/debtest"
)

// node is one entry of a deb's data tree before payloads are filled in.
type node struct {
	typ  byte // tar.TypeReg, tar.TypeDir, tar.TypeSymlink
	mode int64
	link string
	body []byte // fixed content; nil with synth=true means "payload"
	// synth marks files whose content is synthetic payload (Options.Payload).
	synth bool
	// elf marks an executable or shared library: its content is the
	// committed ELF fixture elf names (elf.go).
	elf *elfRef
}

// tree collects the files of one binary package.
type tree struct {
	pkg string
	// elfDir is the fixture directory of the suite's CUDA generation
	// ("cuda12"): NEEDED lists differ between generations.
	elfDir string
	nodes  map[string]*node
}

func newTree(pkg, elfDir string) *tree {
	return &tree{pkg: pkg, elfDir: elfDir, nodes: map[string]*node{}}
}

// blob adds a payload file with mode 0644.
func (t *tree) blob(p string) { t.nodes[p] = &node{typ: tar.TypeReg, mode: 0o644, synth: true} }

// elfFile adds an ELF fixture file with mode 0755: a shared library when
// soname is set (fixture named name, by default its SONAME), else an
// executable named after its file.
func (t *tree) elfFile(p, name, soname string) {
	if name == "" {
		name = soname
	}
	if name == "" {
		name = path.Base(p)
	}
	t.nodes[p] = &node{typ: tar.TypeReg, mode: 0o755, elf: &elfRef{fixture: t.elfDir + "/" + name, soname: soname}}
}

// bin adds an executable (a real aarch64 ELF executable).
func (t *tree) bin(p string) { t.elfFile(p, "", "") }

// bins adds executables dir/name for each name.
func (t *tree) bins(dir string, names ...string) {
	for _, n := range names {
		t.bin(path.Join(dir, n))
	}
}

// so adds an unversioned shared library whose SONAME is its file name.
func (t *tree) so(p string) { t.elfFile(p, "", path.Base(p)) }

// sos adds unversioned shared libraries dir/name for each name.
func (t *tree) sos(dir string, names ...string) {
	for _, n := range names {
		t.so(path.Join(dir, n))
	}
}

// stub adds a link-time stub library (lib/stubs/libcuda.so) with its
// SONAME; its fixture is stubs/<soname>.
func (t *tree) stub(p, soname string) { t.elfFile(p, "stubs/"+soname, soname) }

// text adds a file with fixed content and mode 0644.
func (t *tree) text(p, body string) {
	t.nodes[p] = &node{typ: tar.TypeReg, mode: 0o644, body: []byte(body)}
}

// link adds a symlink.
func (t *tree) link(p, target string) {
	t.nodes[p] = &node{typ: tar.TypeSymlink, mode: 0o777, link: target}
}

// blobs adds payload files dir/name for each name.
func (t *tree) blobs(dir string, names ...string) {
	for _, n := range names {
		t.blob(path.Join(dir, n))
	}
}

// lib adds a versioned shared library dir/base.so.ver (SONAME
// base.so.soname, or base.so.ver when soname is empty) and, when soname
// differs, the soname link dir/base.so.soname -> base.so.ver.
func (t *tree) lib(dir, base, ver, soname string) {
	real := base + ".so." + ver
	so := soname
	if so == "" {
		so = ver
	}
	t.elfFile(path.Join(dir, real), "", base+".so."+so)
	if soname != "" && soname != ver {
		t.link(path.Join(dir, base+".so."+soname), real)
	}
}

// devlink adds the development link dir/base.so -> base.so.soname.
func (t *tree) devlink(dir, base, soname string) {
	t.link(path.Join(dir, base+".so"), base+".so."+soname)
}

// hasPrefix reports whether any entry lives under dir.
func (t *tree) hasPrefix(dir string) bool {
	for p := range t.nodes {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// files returns the deb entries in the order dpkg-deb --build writes them:
// every parent directory made explicit, directories and files sorted by path
// in byte order, then all symlinks sorted by path; payloads are filled in
// from payload/sizeOf. ELF files are the committed ELF fixture, followed
// by the payload when it is not the default one (an ELF file may carry
// trailing bytes), so that a caller's Payload or SizeOf still changes or
// grows exactly the files it means to.
func (t *tree) files(
	payload func(pkg, path string, size int64) []byte,
	sizeOf func(pkg, path string) int64,
) []debtest.File {
	all := map[string]*node{}
	for p, n := range t.nodes {
		all[p] = n
		for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
			if _, ok := all[d]; ok {
				if all[d].typ == tar.TypeDir {
					break
				}
				continue
			}
			all[d] = &node{typ: tar.TypeDir, mode: 0o755}
		}
	}
	names := make([]string, 0, len(all))
	for p := range all {
		names = append(names, p)
	}
	sort.SliceStable(names, func(i, j int) bool {
		li, lj := all[names[i]].typ == tar.TypeSymlink, all[names[j]].typ == tar.TypeSymlink
		if li != lj {
			return lj
		}
		return names[i] < names[j]
	})
	out := make([]debtest.File, 0, len(names))
	for _, p := range names {
		n := all[p]
		f := debtest.File{Name: p, Type: n.typ, Mode: n.mode, Linkname: n.link}
		if n.typ == tar.TypeReg {
			f.Body = n.body
			switch {
			case n.elf != nil:
				f.Body = elfFixture(n.elf.fixture)
				if extra := payload(t.pkg, p, sizeOf(t.pkg, p)); !bytes.Equal(
					extra,
					DefaultPayload(t.pkg, p, DefaultSizeOf(t.pkg, p)),
				) {
					f.Body = append(append([]byte(nil), f.Body...), extra...)
				}
			case n.synth:
				f.Body = payload(t.pkg, p, sizeOf(t.pkg, p))
			}
			if f.Body == nil {
				f.Body = []byte{}
			}
		}
		out = append(out, f)
	}
	return out
}

// gzipBytes compresses b deterministically (no name, zero mtime).
func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b) //nolint:errcheck // bytes.Buffer cannot fail
	w.Close()  //nolint:errcheck
	return buf.Bytes()
}
