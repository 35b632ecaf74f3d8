package deb

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/deb/debtest"
)

func fuzzSeeds(f *testing.F) {
	base := debtest.Deb{
		Control:    miniControl,
		AddParents: true,
		Files: []debtest.File{
			{Name: "usr/bin/a", Body: []byte("hello")},
			{Name: "usr/lib/l", Type: tar.TypeSymlink, Linkname: "../bin/a"},
			{Name: "usr/bin/h", Type: tar.TypeLink, Linkname: "usr/bin/a"},
		},
	}
	for _, comp := range []string{"none", "gzip", "xz", "zstd"} {
		d := base
		d.Compression = comp
		b, err := debtest.Build(d)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	d := base
	d.ArSlash, d.Compression = true, "none"
	d.ExtraMembers = []debtest.Member{{Name: "_x", Body: []byte("odd")}}
	d.MemberOrder = []string{"debian-binary", "_x", "control", "data", "_x"}
	b, _ := debtest.Build(d)
	f.Add(b)
	f.Add([]byte("!<arch>\n"))
	f.Add([]byte("!<arch>\ndebian-binary   0           0     0     100644  4         `\n2.0\n"))
}

// FuzzArReader checks the ar wrapper never panics, never reads past a
// member, and reports sizes that fit the input.
func FuzzArReader(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, seekable := range []bool{true, false} {
			var r io.Reader = bytes.NewReader(b)
			if !seekable {
				r = io.MultiReader(r)
			}
			a, err := newArReader("fuzz", r)
			if err != nil {
				var e *fault.DebError
				if !errors.As(err, &e) {
					t.Fatalf("error is not *Error: %v", err)
				}
				continue
			}
			for i := 0; i < 100; i++ {
				h, err := a.next()
				if err != nil {
					var e *fault.DebError
					if err != io.EOF && !errors.As(err, &e) {
						t.Fatalf("error is not *Error: %v", err)
					}
					break
				}
				if h.Size < 0 || h.Offset+h.Size > int64(len(b)) && seekable {
					t.Fatalf("member %q size %d at %d exceeds input %d", h.Name, h.Size, h.Offset, len(b))
				}
				n, err := io.Copy(io.Discard, a)
				if n > h.Size {
					t.Fatalf("read %d bytes from member of size %d", n, h.Size)
				}
				if err == nil && n != h.Size {
					t.Fatalf("short member read without error: %d of %d", n, h.Size)
				}
				if err != nil {
					break
				}
			}
		}
	})
}

// FuzzDebReader reads whole debs: no panics, only *Error failures, every
// entry name clean and relative, bounded output.
func FuzzDebReader(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := Options{
			Name:   "fuzz.deb",
			Limits: Limits{MaxBytes: 8 << 20, MaxEntries: 1000, MaxControlBytes: 1 << 20, MaxWindow: 8 << 20},
		}
		rd, err := NewReader(context.Background(), bytes.NewReader(b), opts)
		if err != nil {
			var e *fault.DebError
			if !errors.As(err, &e) {
				t.Fatalf("error is not *Error: %T %v", err, err)
			}
			return
		}
		defer func() { _ = rd.Close() }()
		var total int64
		for {
			e, err := rd.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var de *fault.DebError
				if !errors.As(err, &de) {
					t.Fatalf("error is not *Error: %T %v", err, err)
				}
				return
			}
			if c, _, cerr := cleanName(e.Path, 4096); cerr != nil || c != e.Path || e.Path == "" {
				t.Fatalf("unclean entry name %q", e.Path)
			}
			n, err := io.Copy(io.Discard, rd)
			total += n
			if total > opts.Limits.MaxBytes {
				t.Fatalf("read %d bytes, over MaxBytes", total)
			}
			if err != nil {
				var de *fault.DebError
				if !errors.As(err, &de) {
					t.Fatalf("read error is not *Error: %T %v", err, err)
				}
				return
			}
		}
	})
}
