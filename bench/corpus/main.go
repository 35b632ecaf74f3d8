// Command corpus writes a JetPack-6-shaped benchmark mirror for bench/e2e.sh:
// the r36.5 package names, versions and in-deb paths of internal/mirrorgen's
// default selection, with large deterministic payloads. It is a benchmark
// helper, not a tool.
//
//	corpus [-scale MiB] [-jobs N] DIR
//
// The payload totals about -scale MiB uncompressed (default 1280): three
// files of 0.20, 0.18 and 0.16 x scale (libcudnn_engines_precompiled,
// libnvinfer_builder_resource, libnvinfer: >= 200 MiB each at the default),
// the other shared and static libraries share 0.40 x scale, executables get
// 64 KiB..2 MiB, headers and other small files 1..48 KiB. Libraries and
// executables are machine-code-like bytes from a seeded generator calibrated
// to an xz -6 ratio of ~0.25 (see elfLike); headers are text. The output is a
// pure function of -scale (same bytes on every machine).
//
// With -real TREE (repeatable: bench/realdebs.sh DIR GEN gives DIR/tree for
// CUDA 11.8 or 12 arm64 from Debian non-free; a site-packages/nvidia
// directory of NVIDIA's CUDA 13 wheels works too), the library paths get real
// NVIDIA shared and static libraries instead: the largest of each tree in
// turn, each at most -cap bytes (default: the scale shared so that every tree
// gets as many big slices, 8 of scale/8 for one tree, 3 of scale/9 each for
// three), the whole file or pieces of at most -piece MiB spread evenly over
// it, until the scale is used up, then 64 KiB real libraries; headers get real
// CUDA headers, other files mirrorgen's default payload.
//
// The mirror is mirrorgen.Generate's with the corpus payloads, the debs'
// members compressed fast (fastCompress, xz.go): xz by debredist's own LZMA2
// encoder at fast settings in parallel 8 MiB xz blocks, about a minute per
// GiB on 2 cores.
//
// With -sample DIR instead of a mirror, only the real library pieces are
// written into DIR (files NN-<library>, -scale MiB in all), as input for
// bench/compress and bench/device.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/mirrorgen"
)

const suite = "r36.5"

// big maps the basenames of the few very large libraries to their share of
// the scale.
var big = map[string]float64{
	"libcudnn_engines_precompiled.so.9.3.0": 0.20,
	"libnvinfer_builder_resource.so.10.3.0": 0.18,
	"libnvinfer.so.10.3.0":                  0.16,
}

const libShare = 0.40 // of the scale, for every other library

var libRE = regexp.MustCompile(`(\.so(\.[0-9]+)*|\.a)$`)

func main() {
	scale := flag.Int64("scale", 1280, "uncompressed payload in MiB (approximate)")
	jobs := flag.Int("jobs", 0, "debs built concurrently (0: all cores); the output does not depend on it")
	var reals trees
	flag.Var(
		&reals,
		"real",
		"tree of real NVIDIA files (bench/realdebs.sh DIR GEN gives DIR/tree); repeat for several CUDA generations: "+
			"libraries and headers come from them",
	)
	capMiB := flag.Int64(
		"cap",
		0,
		"MiB of one real library at most (0: the scale shared evenly between the trees, 8 slices in all)",
	)
	piece := flag.Int64("piece", 16, "MiB of one contiguous piece of a real library")
	sample := flag.Bool("sample", false, "write only the real library pieces into DIR (no mirror), for bench/compress")
	flag.Parse()
	if flag.NArg() != 1 || *scale <= 0 || *piece <= 0 || (*sample && len(reals) == 0) {
		fmt.Fprintln(os.Stderr, "usage: corpus [-scale MiB] [-jobs N] [-real TREE]... [-cap MiB] [-piece MiB] [-sample] DIR")
		os.Exit(2)
	}
	capSize := *capMiB << 20
	if capSize <= 0 {
		capSize = defaultCap(*scale<<20, max(len(reals), 1))
	}
	var total int64
	var err error
	if *sample {
		total, err = writeSample(flag.Arg(0), reals, *scale<<20, capSize, *piece<<20)
	} else {
		total, err = run(context.Background(), flag.Arg(0), *scale<<20, *jobs, reals, capSize, *piece<<20, fastCompress)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(1)
	}
	if *sample {
		fmt.Printf("corpus: %s: %d MiB of library pieces\n", flag.Arg(0), total>>20)
	} else {
		fmt.Printf("corpus: %s: suite %s, %d MiB of payload\n", flag.Arg(0), suite, total>>20)
	}
}

// trees collects repeated -real flags.
type trees []string

func (t *trees) String() string     { return strings.Join(*t, ",") }
func (t *trees) Set(v string) error { *t = append(*t, v); return nil }

// sizer decides every file's size up front, from the file lists of the
// default selection, so that the total matches the scale.
type sizer struct {
	scale int64
	libs  map[string]int64 // pkg + "\x00" + path -> size, for libraries
}

func newSizer(scale int64) (*sizer, error) {
	s := &sizer{scale: scale, libs: map[string]int64{}}
	var keys []string
	weights := map[string]float64{}
	var sum float64
	err := forEachFile(func(k string, f debtest.File) {
		if f.Type != '0' || !libRE.MatchString(f.Name) || big[path.Base(f.Name)] > 0 {
			return
		}
		// Weights 1..16, skewed toward small.
		w := float64(1 + (seedOf(k)%16)*(seedOf(k, "w")%16)/15)
		keys = append(keys, k)
		weights[k] = w
		sum += w
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(keys)
	for _, k := range keys {
		s.libs[k] = int64(libShare * float64(scale) * weights[k] / sum)
	}
	return s, nil
}

func (s *sizer) sizeOf(pkg, p string) int64 {
	if f := big[path.Base(p)]; f > 0 {
		return int64(f * float64(s.scale))
	}
	if n, ok := s.libs[pkg+"\x00"+p]; ok {
		return n
	}
	h := seedOf(pkg, p)
	if strings.Contains(p, "/bin/") {
		return 64<<10 + int64(h%(2<<20-64<<10))
	}
	return 1<<10 + int64(h%(47<<10))
}

func payload(pkg, p string, size int64) []byte {
	base := path.Base(p)
	if libRE.MatchString(base) || strings.Contains(p, "/bin/") {
		return elfLike(seedOf(pkg, p), size)
	}
	return mirrorgen.DefaultPayload(pkg, p, size)
}

// run writes the corpus mirror into dir, the debs' members compressed by
// comp (mirrorgen.Options.Compress), and returns the payload total.
func run(ctx context.Context, dir string, scale int64, jobs int, reals []string, capSize, piece int64,
	comp func(kind string, b []byte) (string, []byte, error)) (int64, error) {
	sz, err := newSizer(scale)
	if err != nil {
		return 0, err
	}
	var total int64
	sizeOf := sz.sizeOf
	pay := payload
	if len(reals) > 0 {
		rs, err := newRealSource(reals, scale, capSize, piece)
		if err != nil {
			return 0, err
		}
		sizeOf = func(pkg, p string) int64 {
			if n, ok := rs.sizeOf(pkg, p); ok {
				return n
			}
			return mirrorgen.DefaultSizeOf(pkg, p)
		}
		pay = func(pkg, p string, size int64) []byte {
			if b, ok := rs.payload(pkg, p, size); ok {
				return b
			}
			return mirrorgen.DefaultPayload(pkg, p, size)
		}
	}
	// Sum what will be generated (file lists are cheap with default payloads).
	for _, repo := range []string{"common", "t234"} {
		names, err := mirrorgen.DefaultSelection(suite, repo)
		if err != nil {
			return 0, err
		}
		for _, n := range names {
			files, err := mirrorgen.Files(suite, repo, n)
			if err != nil {
				return 0, err
			}
			for _, f := range files {
				if f.Type == '0' {
					total += sizeOf(n, f.Name)
				}
			}
		}
	}
	return total, mirrorgen.Generate(ctx, dir, mirrorgen.Options{
		Suites:   []string{suite},
		Payload:  pay,
		SizeOf:   sizeOf,
		Jobs:     jobs,
		Compress: comp,
	})
}

// forEachFile calls fn for every file of the corpus' debs (both repos of
// the suite, mirrorgen's default selection) with its key, the package name
// and the in-deb path joined by a NUL.
func forEachFile(fn func(key string, f debtest.File)) error {
	for _, repo := range []string{"common", "t234"} {
		names, err := mirrorgen.DefaultSelection(suite, repo)
		if err != nil {
			return err
		}
		for _, n := range names {
			files, err := mirrorgen.Files(suite, repo, n)
			if err != nil {
				return err
			}
			for _, f := range files {
				fn(n+"\x00"+f.Name, f)
			}
		}
	}
	return nil
}
