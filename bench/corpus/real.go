package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/debredist/debredist/internal/deb/debtest"
)

// realFile is one file of the real tree (from bench/realdebs.sh).
type realFile struct {
	path string
	size int64
}

// realSource assigns real NVIDIA files to the JetPack 6 paths: the library
// paths (shared and static) get real shared and static libraries, the
// headers real CUDA headers, and everything else mirrorgen's default
// payload. The assignment is a pure function of the tree and the scale.
type realSource struct {
	assign map[string]realFile // pkg + "\x00" + path -> source
	sizes  map[string]int64
	total  int64
}

const smallLib = 64 << 10 // size of the library files past the budget

func newRealSource(tree string, scale int64) (*realSource, error) {
	var libs, headers []realFile
	err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tree, p)
		rel = filepath.ToSlash(rel)
		switch {
		case strings.Contains(rel, "/stubs/") || strings.HasPrefix(rel, "usr/share/"):
		case libRE.MatchString(path.Base(rel)) && fi.Size() >= smallLib:
			libs = append(libs, realFile{p, fi.Size()})
		case strings.HasSuffix(rel, ".h") || strings.HasSuffix(rel, ".hpp") || strings.HasSuffix(rel, ".cuh"):
			headers = append(headers, realFile{p, fi.Size()})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(libs) == 0 || len(headers) == 0 {
		return nil, fmt.Errorf("%s: no real libraries or headers (run bench/realdebs.sh)", tree)
	}
	// Largest libraries first, each capped at scale/8 (a slice of its middle),
	// so that the default scale mixes eight big shared and static libraries.
	sort.Slice(libs, func(i, j int) bool {
		if libs[i].size != libs[j].size {
			return libs[i].size > libs[j].size
		}
		return libs[i].path < libs[j].path
	})
	sort.Slice(headers, func(i, j int) bool { return headers[i].path < headers[j].path })

	type target struct{ key, path string }
	var libT, hdrT []target
	err = forEachFile(func(k string, f debtest.File) {
		if f.Type != '0' {
			return
		}
		t := target{k, f.Name}
		switch {
		case libRE.MatchString(path.Base(f.Name)):
			libT = append(libT, t)
		case strings.HasSuffix(f.Name, ".h") || strings.HasSuffix(f.Name, ".hpp"):
			hdrT = append(hdrT, t)
		}
	})
	if err != nil {
		return nil, err
	}
	// The big three JetPack libraries first, then the others by name.
	rank := func(t target) int {
		if big[path.Base(t.path)] > 0 {
			return 0
		}
		return 1
	}
	sort.Slice(libT, func(i, j int) bool {
		if a, b := rank(libT[i]), rank(libT[j]); a != b {
			return a < b
		}
		return libT[i].key < libT[j].key
	})
	sort.Slice(hdrT, func(i, j int) bool { return hdrT[i].key < hdrT[j].key })

	s := &realSource{assign: map[string]realFile{}, sizes: map[string]int64{}}
	left := scale
	for i, t := range libT {
		f := libs[i%len(libs)]
		n := min(f.size, scale/8, left)
		if n < smallLib {
			f = libs[len(libs)-1-i%len(libs)] // small libraries, whole
			n = min(f.size, smallLib)
		}
		left -= n
		s.assign[t.key], s.sizes[t.key] = f, n
		s.total += n
	}
	for i, t := range hdrT {
		f := headers[i%len(headers)]
		s.assign[t.key], s.sizes[t.key] = f, f.size
		s.total += f.size
	}
	return s, nil
}

func (s *realSource) sizeOf(pkg, p string) (int64, bool) {
	n, ok := s.sizes[pkg+"\x00"+p]
	return n, ok
}

// payload reads size bytes from the middle of the assigned real file (the
// whole file when it fits): the start of a big library is mostly symbol
// tables, the bulk is machine code and fatbins.
func (s *realSource) payload(pkg, p string, size int64) ([]byte, bool) {
	f, ok := s.assign[pkg+"\x00"+p]
	if !ok {
		return nil, false
	}
	fh, err := os.Open(f.path)
	if err != nil {
		panic(err) // the tree changed under us: a benchmark helper may stop
	}
	defer fh.Close()
	b := make([]byte, size)
	off := (f.size - size) / 2 &^ 4095
	if _, err := fh.ReadAt(b, off); err != nil { // size <= the file's size
		panic(err)
	}
	return b, true
}
