package layout

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
)

// fuzzInputs decodes the fuzzer's text into Inputs. Each line is
// "<type><deb><path>|<link>": type f (file), d (dir), s (symlink),
// h (hardlink), any other byte a file; deb a digit choosing one of two
// debs. Paths are cleaned the way the deb reader hands them over (relative,
// no "." or ".." segment); lines the reader would reject are skipped.
func fuzzInputs(data string) []Input {
	var ins []Input
	regular := map[string]bool{}
	for i, line := range strings.Split(data, "\n") {
		if len(line) < 3 || i >= 200 {
			continue
		}
		typ, debNo, rest := line[0], line[1], line[2:]
		p, link, _ := strings.Cut(rest, "|")
		p, ok := readerClean(p)
		if !ok {
			continue
		}
		in := Input{Header: entry.Header{Path: p, Mode: 0o644}, Deb: "deb" + string('0'+debNo%2)}
		switch typ {
		case 'd':
			in.Type, in.Mode = entry.Dir, 0o755
		case 's':
			if link == "" || strings.ContainsRune(link, 0) {
				continue
			}
			in.Type, in.Link, in.Mode = entry.Symlink, link, 0o777
		case 'h':
			l, ok := readerClean(link)
			if !ok || !regular[in.Deb+"\x00"+l] {
				continue
			}
			in.Type, in.Link = entry.Hardlink, l
		default:
			in.Type = entry.Regular
			in.Digest = fmt.Sprintf("%x", len(link)) // two contents: equal or not
			in.Ref = "ref:" + p
			in.Size = int64(len(link))
			if typ == 'x' {
				in.Mode = fs.ModeSetuid | 0o755
			}
			regular[in.Deb+"\x00"+p] = true
		}
		ins = append(ins, in)
	}
	return ins
}

// readerClean mirrors what internal/deb guarantees about entry names.
func readerClean(raw string) (string, bool) {
	if raw == "" || strings.ContainsRune(raw, 0) || strings.HasPrefix(raw, "/") {
		return "", false
	}
	p := path.Clean(raw)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// checkTree asserts the safety properties of a tree Build returned.
func checkTree(t *testing.T, tr *Tree) {
	t.Helper()
	byPath := map[string]Node{}
	for _, n := range tr.Nodes {
		p := n.Path
		if p == "" || p == "." || strings.HasPrefix(p, "/") || path.Clean(p) != p || p == ".." ||
			strings.HasPrefix(p, "../") ||
			strings.ContainsRune(p, 0) {
			t.Fatalf("unsafe tree path %q", p)
		}
		if _, dup := byPath[p]; dup {
			t.Fatalf("duplicate tree path %q", p)
		}
		byPath[p] = n
	}
	for _, n := range tr.Nodes {
		for d := path.Dir(n.Path); d != "."; d = path.Dir(d) {
			if parent, ok := byPath[d]; ok && parent.Type != entry.Dir {
				t.Fatalf("%q lies under %s %q", n.Path, parent.Type, d)
			}
		}
		switch n.Type {
		case entry.Symlink:
			if n.Link == "" || strings.HasPrefix(n.Link, "/") || strings.ContainsRune(n.Link, 0) {
				t.Fatalf("symlink %q -> %q: not a relative target", n.Path, n.Link)
			}
			r := path.Join(path.Dir(n.Path), n.Link)
			if r == ".." || strings.HasPrefix(r, "../") || r == "." {
				t.Fatalf("symlink %q -> %q resolves outside the tree (%q)", n.Path, n.Link, r)
			}
		case entry.Hardlink:
			target, ok := byPath[n.Link]
			if !ok || target.Type != entry.Regular {
				t.Fatalf("hardlink %q -> %q: target is not a file of the tree", n.Path, n.Link)
			}
		case entry.Regular:
			if n.Mode&^(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 {
				t.Fatalf("file %q has mode %v", n.Path, n.Mode)
			}
		}
	}
}

// FuzzLayout feeds random inputs to Build: it must never panic, and any
// tree it returns must have only safe relative paths, no "..", symlink
// targets that stay inside the tree and hardlinks to files of the tree.
func FuzzLayout(f *testing.F) {
	tg := "usr/local/cuda-12.6/targets/aarch64-linux/"
	seeds := []string{
		"f0" + tg + "lib/libcudart.so.12.6.68|A\ns0" + tg +
			"lib/libcudart.so.12|libcudart.so.12.6.68\nf0usr/share/doc/cuda-cudart-12-6/copyright|C",
		"s0usr/local/cuda-12.6/lib64|targets/aarch64-linux/lib\nf0usr/local/cuda-12.6/lib64/libx.so|x",
		"s0" + tg + "lib/out|../../../../../../../tmp\nf0" + tg + "lib/out/x|x",
		"s0" + tg + "lib/out|/tmp\nf0" + tg + "lib/out/x|x",
		"s0" + tg + "lib/a|/usr/local/cuda-12.6/targets/aarch64-linux/lib/b\nf0" + tg + "lib/b|b",
		"f0" + tg + "lib/a|x\nh0" + tg + "lib/b|" + tg + "lib/a",
		"d0" + tg + "lib/sub\nf1" + tg + "lib/sub|y",
		"f0" + tg + "lib/x|1\nf1" + tg + "lib/x|22",
		"s0usr/lib/aarch64-linux-gnu/tegra|nvidia\nf0usr/lib/aarch64-linux-gnu/nvidia/libnv.so|n",
		"s0a|b\ns0b|a\nf0a/x|x",
		"x0usr/bin/suid|s\nf0usr/include/cudnn.h|h",
		"s0usr/lib/aarch64-linux-gnu/libcudnn.so|/etc/alternatives/libcudnn_so",
	}
	for _, s := range seeds {
		f.Add(s, uint8(0))
	}
	f.Add("f0usr/include/NvInfer.h|x\nf0usr/src/tensorrt/bin/trtexec|t", uint8(3))
	read := func(ref string) ([]byte, error) { return []byte("license of " + ref), nil }
	layOut := fuzzLayOut(f)
	f.Fuzz(func(t *testing.T, data string, sel uint8) { layOut(t, fuzzInputs(data), sel, read) })
}

// fuzzLayOut returns what every layout fuzz target does with its inputs:
// lay them out as one of eight packages by JetPack 5's, 6's or 7's engine
// (sel chooses both), then check the tree, or that the error says
// something.
func fuzzLayOut(f *testing.F) func(t *testing.T, ins []Input, sel uint8, read func(string) ([]byte, error)) {
	pnames := []string{
		"cuda_cudart", "libcublas", "cudnn", "tensorrt", "cuda_cupti", "libcufile", "cuda_compat", "cuda_nvcc",
	}
	engines := []*Engine{engine(f, "5"), engine(f, "6"), engine(f, "7")}
	return func(t *testing.T, ins []Input, sel uint8, read func(string) ([]byte, error)) {
		t.Helper()
		tr, err := engines[int(sel)%len(engines)].Build(pnames[int(sel/3)%len(pnames)], ins, read)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		checkTree(t, tr)
	}
}
