package deb

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"testing"

	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/testutil"
	"github.com/ulikunitz/xz/lzma"
)

// TestReadOnlyCompressions covers the suffixes debtest cannot write.
func TestReadOnlyCompressions(t *testing.T) {
	d := mini(debtest.File{Name: "usr/f", Body: []byte("bz2 and lzma content")})
	dt, err := d.BuildDataTar()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		suffix string
		comp   func(t *testing.T) []byte
	}{
		{".bz2", func(t *testing.T) []byte {
			bz := testutil.RequireTool(t, "bzip2")
			cmd := exec.Command(bz, "-c")
			cmd.Stdin = bytes.NewReader(dt)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			return out
		}},
		{".lzma", func(t *testing.T) []byte {
			var buf bytes.Buffer
			w, err := lzma.NewWriter(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(dt); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		}},
	} {
		t.Run(tc.suffix, func(t *testing.T) {
			d := d
			d.DataMember = tc.comp(t)
			d.DataName = "data.tar" + tc.suffix
			rd, err := NewReader(context.Background(), bytes.NewReader(mustBuild(t, d)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = rd.Close() }()
			e, err := rd.Next()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rd)
			if err != nil || e.Path != "usr/f" || string(b) != "bz2 and lzma content" {
				t.Errorf("got %q %q %v", e.Path, b, err)
			}
			if _, err := rd.Next(); err != io.EOF {
				t.Errorf("want io.EOF, got %v", err)
			}
		})
	}
}
