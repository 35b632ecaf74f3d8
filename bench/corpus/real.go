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

// realFile is one file of a real tree (bench/realdebs.sh, or a directory of
// NVIDIA's CUDA wheels).
type realFile struct {
	path string
	size int64
}

// realSource assigns real NVIDIA files to the JetPack 6 paths: the library
// paths (shared and static) get real shared and static libraries, the
// headers real CUDA headers, and everything else mirrorgen's default
// payload. The assignment is a pure function of the trees (in order), the
// scale, the cap and the piece size.
type realSource struct {
	assign map[string]realFile // pkg + "\x00" + path -> source
	sizes  map[string]int64
	total  int64
	piece  int64
}

const smallLib = 64 << 10 // size of the library files past the budget

// realTree lists the libraries (largest first) and headers (by path) of one
// tree.
func realTree(tree string) (libs, headers []realFile, err error) {
	err = filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
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
	sort.Slice(libs, func(i, j int) bool {
		if libs[i].size != libs[j].size {
			return libs[i].size > libs[j].size
		}
		return libs[i].path < libs[j].path
	})
	sort.Slice(headers, func(i, j int) bool { return headers[i].path < headers[j].path })
	return libs, headers, err
}

// realLibs returns the libraries of the trees interleaved, the largest of
// each tree first (tree 1's largest, tree 2's largest, ..., tree 1's second),
// so that every tree (CUDA generation) gets its share of the big slices; and
// the headers of all trees.
func realLibs(trees []string) (libs, headers []realFile, err error) {
	var per [][]realFile
	for _, t := range trees {
		l, h, err := realTree(t)
		if err != nil {
			return nil, nil, err
		}
		if len(l) == 0 {
			return nil, nil, fmt.Errorf("%s: no real libraries (run bench/realdebs.sh)", t)
		}
		per = append(per, l)
		headers = append(headers, h...)
	}
	for i := 0; ; i++ {
		more := false
		for _, l := range per {
			if i < len(l) {
				libs = append(libs, l[i])
				more = true
			}
		}
		if !more {
			return libs, headers, nil
		}
	}
}

// defaultCap is the most bytes one library contributes: a share of the
// scale such that every tree gets the same number of big slices (8 of
// scale/8 for one tree, as before; 4+4 for two; 3+3+3 of scale/9 for three).
func defaultCap(scale int64, trees int) int64 {
	per := (8 + trees - 1) / trees
	return scale / int64(trees*per)
}

func newRealSource(trees []string, scale, capSize, piece int64) (*realSource, error) {
	libs, headers, err := realLibs(trees)
	if err != nil {
		return nil, err
	}
	if len(headers) == 0 {
		return nil, fmt.Errorf("%s: no real headers", strings.Join(trees, ", "))
	}
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

	s := &realSource{assign: map[string]realFile{}, sizes: map[string]int64{}, piece: piece}
	left := scale
	for i, t := range libT {
		f := libs[i%len(libs)]
		n := min(f.size, capSize, left)
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

// payload returns the bytes of the real file assigned to pkg/p.
func (s *realSource) payload(pkg, p string, size int64) ([]byte, bool) {
	f, ok := s.assign[pkg+"\x00"+p]
	if !ok {
		return nil, false
	}
	return readPieces(f, size, s.piece), true
}

// readPieces reads size bytes of f (the whole file when it fits) as pieces
// of at most piece bytes spread evenly over the file, the first at its
// start and the last at its end (one piece: from the middle). A library is
// not uniform: CUDA 12 libraries keep their compressed GPU code at the end
// (libcufft.so.11: the last 40 %), their host code and symbol tables at the
// start, so one slice from the middle would miss what makes them compress
// the way they do.
func readPieces(f realFile, size, piece int64) []byte {
	fh, err := os.Open(f.path)
	if err != nil {
		panic(err) // the tree changed under us: a benchmark helper may stop
	}
	defer fh.Close()
	b := make([]byte, size)
	k := max((size+piece-1)/piece, 1)
	for j := int64(0); j < k; j++ {
		lo, hi := j*size/k, (j+1)*size/k // this piece's bytes of b
		n := hi - lo
		var off int64
		if k == 1 {
			off = (f.size - n) / 2 &^ 4095
		} else {
			off = (f.size - n) * j / (k - 1) &^ 4095
		}
		if _, err := fh.ReadAt(b[lo:hi], off); err != nil { // n <= the file's size
			panic(fmt.Sprintf("%s: %v", f.path, err))
		}
	}
	return b
}

// writeSample writes the library pieces alone (no mirror) into dir, for
// bench/compress: the libraries of the trees interleaved as in the corpus,
// each at most capSize bytes in pieces of at most piece bytes, until scale
// bytes are written. Files are named NN-<library>.
func writeSample(dir string, trees []string, scale, capSize, piece int64) (int64, error) {
	libs, _, err := realLibs(trees)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	var total int64
	for i, f := range libs {
		n := min(f.size, capSize, scale-total)
		if n < smallLib {
			break
		}
		name := fmt.Sprintf("%02d-%s", i, filepath.Base(f.path))
		if err := os.WriteFile(filepath.Join(dir, name), readPieces(f, n, piece), 0o644); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}
