package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
)

// content returns n deterministic, moderately compressible bytes.
func content(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 42))
	words := [][]byte{
		[]byte("cuda"),
		[]byte("\x00\x00\x00\x00"),
		[]byte("libcudart.so.12"),
		[]byte("\x48\x89\xe5\x41\x57"),
		[]byte("nvidia"),
		[]byte("\xff\xff"),
	}
	b := make([]byte, 0, n)
	for len(b) < n {
		if r.IntN(3) == 0 {
			b = append(b, byte(r.Uint32()))
		} else {
			b = append(b, words[r.IntN(len(words))]...)
		}
	}
	return b[:n]
}

func file(name string, mode fs.FileMode, data []byte) Entry {
	return Entry{
		Header: entry.Header{Path: name, Type: entry.Regular, Mode: mode, Size: int64(len(data))},
		Open:   func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
	}
}

func dir(name string) Entry {
	return Entry{Header: entry.Header{Path: name, Type: entry.Dir, Mode: 0o700}}
}
func symlink(name, target string) Entry {
	return Entry{Header: entry.Header{Path: name, Type: entry.Symlink, Link: target}}
}
func hardlink(name, target string) Entry {
	return Entry{Header: entry.Header{Path: name, Type: entry.Hardlink, Link: target}}
}

// sampleEntries is a small redist-like tree exercising sorting ("a-b" vs
// "a/b"), implicit parents, links, setuid and empty files.
func sampleEntries(big int) []Entry {
	es := []Entry{
		dir("lib"),
		file("lib/libfoo.so.1.2.3", 0o775, content(1, 3000)),
		symlink("lib/libfoo.so.1", "libfoo.so.1.2.3"),
		symlink("lib/libfoo.so", "libfoo.so.1"),
		file("lib/libfoo_static.a", 0o600, content(2, 5000)),
		file("bin/tool", 0o4755|fs.ModeSetuid, content(3, 700)),
		hardlink("bin/tool-alias", "bin/tool"),
		file("include/foo.h", 0o644, []byte("#pragma once\nint foo(void);\n")),
		file("a-b", 0o644, []byte("dash\n")),
		file("a/b", 0o644, []byte("slash\n")),
		file("a/empty", 0o644, nil),
		file("share/doc/foo/README", 0o444, []byte("read me\n")),
		symlink("lib64", "lib"),
		file("LICENSE", 0o644, []byte("license text\n")),
		file("pkg-config/foo.pc", 0o644, []byte("cudaroot=/x\n")),
	}
	if big > 0 {
		es = append(es, file("lib/libbig.so", 0o755, content(4, big)))
	}
	return es
}

func writeArchive(t testing.TB, entries []Entry, opts Options) ([]byte, Result) {
	t.Helper()
	if opts.blockSize == 0 {
		opts.blockSize = testBlock
	}
	var buf bytes.Buffer
	res, err := Write(context.Background(), &buf, entries, opts)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes(), res
}

// narOfDir is an independent NAR serialiser over a real directory (the
// reference the streaming narWriter is checked against).
func narOfDir(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	str := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		_, _ = io.WriteString(h, s) // a hash.Hash never fails
		h.Write(make([]byte, (8-len(s)%8)%8))
	}
	var node func(p string)
	node = func(p string) {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		str("(")
		str("type")
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				t.Fatal(err)
			}
			str("symlink")
			str("target")
			str(target)
		case fi.IsDir():
			str("directory")
			des, err := os.ReadDir(p)
			if err != nil {
				t.Fatal(err)
			}
			names := make([]string, 0, len(des))
			for _, de := range des {
				names = append(names, de.Name())
			}
			slices.Sort(names)
			for _, n := range names {
				str("entry")
				str("(")
				str("name")
				str(n)
				str("node")
				node(filepath.Join(p, n))
				str(")")
			}
		default:
			str("regular")
			if fi.Mode()&0o111 != 0 {
				str("executable")
				str("")
			}
			str("contents")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			str(string(data))
		}
		str(")")
	}
	str("nix-archive-1")
	node(root)
	return "sha256-" + base64.StdEncoding.EncodeToString(h.Sum(nil))
}
