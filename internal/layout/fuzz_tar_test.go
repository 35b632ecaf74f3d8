package layout

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/deb"
	"github.com/debredist/debredist/internal/deb/debtest"
)

// tarInputs reads a raw tar stream as the data.tar of a deb, through the
// real deb reader, into layout Inputs (nil when the reader refuses it).
func tarInputs(stream []byte, content map[string][]byte) []Input {
	b := append(
		append([]byte(nil), fuzzDebHead...),
		fmt.Sprintf("%-16s%-12d%-6d%-6d%-8s%-10d`\n", "data.tar", 0, 0, 0, "100644", len(stream))...)
	b = append(b, stream...)
	r, err := deb.NewReader(
		context.Background(),
		bytes.NewReader(b),
		deb.Options{Name: "fuzz.deb", Limits: deb.Limits{MaxBytes: 1 << 20, MaxEntries: 500}},
	)
	if err != nil {
		return nil
	}
	defer func() { _ = r.Close() }()
	var ins []Input
	for {
		e, err := r.Next()
		if err != nil {
			if err == io.EOF {
				return ins
			}
			return nil
		}
		in := FromDeb("deb0", e)
		if in.Type == entry.Regular {
			body, err := io.ReadAll(r)
			if err != nil {
				return nil
			}
			in.Digest, in.Ref = fmt.Sprintf("%x", sha256.Sum256(body)), "ref:"+e.Path
			content[in.Ref] = body
		}
		ins = append(ins, in)
	}
}

// fuzzDebHead is the ar magic, debian-binary and an uncompressed control
// member: what precedes the fuzzed data.tar (written by hand, so that the
// fuzz binary does not instrument the compressors).
var fuzzDebHead = func() []byte {
	d := debtest.Deb{Control: "Package: p\nVersion: 1\nArchitecture: arm64\n"}
	ct, err := d.ControlTar(time.Unix(0, 0))
	if err != nil {
		panic(err)
	}
	var b bytes.Buffer
	b.WriteString("!<arch>\n")
	for _, m := range []struct {
		name string
		body []byte
	}{{"debian-binary", []byte("2.0\n")}, {"control.tar", ct}} {
		fmt.Fprintf(&b, "%-16s%-12d%-6d%-6d%-8s%-10d`\n", m.name, 0, 0, 0, "100644", len(m.body))
		b.Write(m.body)
		if len(m.body)%2 == 1 {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}()

// FuzzLayoutTar feeds tar streams (seeded with generated ones: the real-deb
// variants, duplicates, escapes) through the deb reader and the layout
// engine: no panic, and any tree returned is safe (checkTree).
func FuzzLayoutTar(f *testing.F) {
	tg := "usr/local/cuda-12.6/targets/aarch64-linux/"
	seeds := [][]debtest.File{
		{
			{Name: tg + "lib/libcupti.so.12", Body: []byte("ELF")},
			{
				Name:     "usr/local/cuda-12.6/extras/CUPTI/lib64/libcupti.so.12",
				Type:     tar.TypeSymlink,
				Linkname: "../../../targets/aarch64-linux/lib/libcupti.so.12",
			},
		},
		{
			{Name: "usr/include/aarch64-linux-gnu/cudnn_v9.h", Body: []byte("h")},
			{Name: "usr/include/aarch64-linux-gnu/cudnn.h", Type: tar.TypeSymlink, Linkname: "/etc/alternatives/libcudnn"},
		},
		{
			{Name: "usr/local/cuda-12.6/LICENSE", Body: []byte("l")},
			{Name: "usr/local/cuda-12.6/EULA.txt", Body: []byte("l")},
			{Name: "usr/share/doc/p/copyright", Body: []byte("c")},
		},
		{{Name: "etc/cufile.json", Body: []byte("{}")}, {Name: tg + "lib/libcufile.so.0", Body: []byte("ELF")}},
		{
			{Name: tg + "lib/x", Body: []byte("1")},
			{Name: tg + "lib/x", Body: []byte("1")},
			{Name: tg + "lib/h", Type: tar.TypeLink, Linkname: tg + "lib/x"},
		},
		{{Name: tg + "lib/out", Type: tar.TypeSymlink, Linkname: "/tmp"}, {Name: tg + "lib/out/x", Body: []byte("x")}},
		{{Name: "usr/bin/su", Mode: 0o4755, Body: []byte("s")}, {Name: tg + "lib/sub", Type: tar.TypeDir, Mode: 0o3777}},
	}
	for i, files := range seeds {
		d := debtest.Deb{Files: files, AddParents: i%2 == 0}
		b, err := d.BuildDataTar()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(i*3+1))
	}
	layOut := fuzzLayOut(f)
	f.Fuzz(func(t *testing.T, stream []byte, sel uint8) {
		content := map[string][]byte{}
		ins := tarInputs(stream, content)
		if ins == nil {
			return
		}
		layOut(t, ins, sel, func(ref string) ([]byte, error) { return content[ref], nil })
	})
}
