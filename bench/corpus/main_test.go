package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"

	"github.com/debredist/debredist/internal/mirrorgen"
)

// readTree returns every file under dir by slash path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fakeTree writes a small real-like tree: libraries of the given sizes
// (seeded bytes) and two headers.
func fakeTree(t *testing.T, name string, sizes ...int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	lib := filepath.Join(dir, "usr/lib/aarch64-linux-gnu")
	inc := filepath.Join(dir, "usr/include")
	for _, d := range []string{lib, inc} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i, n := range sizes {
		b := elfLike(seedOf(name, fmt.Sprint(i)), n)
		if err := os.WriteFile(filepath.Join(lib, fmt.Sprintf("lib%s%d.so.1", name, i)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range []string{"a.h", "b.h"} {
		if err := os.WriteFile(filepath.Join(inc, name+h), []byte("#define "+name+" 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestFastCorpus: the fast corpus from two trees is deterministic (jobs 1
// and 3 give the same bytes), its debs' xz members decode (ulikunitz/xz and
// xz -t) and are fastCompress's bytes, not mirrorgen.Compress's, and both
// trees' libraries are in it.
func TestFastCorpus(t *testing.T) {
	t.Parallel()
	a := fakeTree(t, "gena", 3<<20, 2<<20, 100<<10)
	b := fakeTree(t, "genb", 5<<20, 70<<10)
	reals := []string{a, b}
	const scale = 6 << 20
	var outs [2]map[string][]byte
	for i, jobs := range []int{1, 3} {
		dir := t.TempDir()
		total, err := run(context.Background(), dir, scale, jobs, reals, defaultCap(scale, 2), 1<<20, fastCompress)
		if err != nil {
			t.Fatal(err)
		}
		if total < scale {
			t.Fatalf("payload %d, want >= %d", total, scale)
		}
		outs[i] = readTree(t, dir)
	}
	if len(outs[0]) != len(outs[1]) {
		t.Fatal("jobs 1 and 3 wrote different file sets")
	}
	var debs []string
	for p, b := range outs[0] {
		if !bytes.Equal(outs[1][p], b) {
			t.Fatalf("%s: jobs 1 and 3 differ", p)
		}
		if strings.HasSuffix(p, ".deb") {
			debs = append(debs, p)
		}
	}
	xzTool, _ := exec.LookPath("xz")
	seen := map[string]bool{}
	for _, p := range debs {
		deb := outs[0][p]
		for off := 8; off+60 <= len(deb); {
			name := strings.TrimSpace(string(deb[off : off+16]))
			var size int
			if _, err := fmt.Sscan(string(deb[off+48:off+58]), &size); err != nil {
				t.Fatalf("%s: ar member %q: size: %v", p, name, err)
			}
			body := deb[off+60 : off+60+size]
			off += 60 + size + size%2
			if !strings.HasSuffix(name, ".xz") {
				continue
			}
			r, err := xz.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%s %s: %v", p, name, err)
			}
			tarb, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("%s %s: %v", p, name, err)
			}
			if _, fast, _ := fastCompress("xz", tarb); !bytes.Equal(fast, body) {
				t.Fatalf("%s %s: not fastCompress's bytes", p, name)
			}
			if _, def, _ := mirrorgen.Compress("xz", tarb); bytes.Equal(def, body) {
				t.Fatalf("%s %s: mirrorgen.Compress's bytes", p, name)
			}
			for g, n := range map[string]int64{"gena": 3 << 20, "genb": 5 << 20} {
				if bytes.Contains(tarb, elfLike(seedOf(g, "0"), n)[n/2:n/2+4096]) {
					seen[g] = true
				}
			}
			if xzTool != "" && len(body) > 1<<20 {
				cmd := exec.Command(xzTool, "-t")
				cmd.Stdin = bytes.NewReader(body)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s %s: xz -t: %v: %s", p, name, err, out)
				}
			}
		}
	}
	if !seen["gena"] || !seen["genb"] {
		t.Errorf("libraries of both trees in the corpus: %v", seen)
	}
}

// TestSample: -sample writes the interleaved library pieces, deterministic.
func TestSample(t *testing.T) {
	t.Parallel()
	a := fakeTree(t, "gena", 3<<20, 2<<20)
	b := fakeTree(t, "genb", 5<<20)
	dir := t.TempDir()
	total, err := writeSample(dir, []string{a, b}, 5<<20, 2<<20, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	got := readTree(t, dir)
	want := []string{"00-libgena0.so.1", "01-libgenb0.so.1", "02-libgena1.so.1"}
	if total != 5<<20 || strings.Join(slices.Sorted(maps.Keys(got)), " ") != strings.Join(want, " ") {
		t.Fatalf("sample: %d bytes, %v; want 5 MiB in %v", total, slices.Sorted(maps.Keys(got)), want)
	}
	// 2 MiB of a 3 MiB library in two 1 MiB pieces: its start and its end.
	src, _ := os.ReadFile(filepath.Join(a, "usr/lib/aarch64-linux-gnu/libgena0.so.1"))
	s := got["00-libgena0.so.1"]
	if !bytes.Equal(s[:1<<20], src[:1<<20]) || !bytes.Equal(s[1<<20:], src[2<<20:]) {
		t.Error("pieces are not the start and the end of the library")
	}
}
