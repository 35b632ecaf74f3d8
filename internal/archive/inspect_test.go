package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/testutil"
	"github.com/debredist/debredist/internal/xz"
	"github.com/klauspost/compress/zstd"
)

// onlyReader hides io.ReaderAt and io.Seeker.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func TestInspectRoundTrip(t *testing.T) {
	withLinks := sampleEntries(bigSize)
	var noHardlinks []Entry
	for _, e := range sampleEntries(1000) {
		if e.Type != entry.Hardlink {
			noHardlinks = append(noHardlinks, e)
		}
	}
	items, err := plan(withLinks)
	if err != nil {
		t.Fatal(err)
	}
	for _, comp := range []Compression{XZ, Zstd} {
		t.Run(comp.String(), func(t *testing.T) {
			data, res := writeArchive(t, withLinks, Options{Top: "top-1", Compression: comp})
			rep, err := Inspect(context.Background(), bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Top != "top-1" || rep.Size != res.Size || rep.SHA256 != res.SHA256 || rep.MD5 != res.MD5 ||
				rep.NAR != res.NAR {
				t.Errorf(
					"Report %s %d %s %s %s\n  Result %d %s %s %s",
					rep.Top,
					rep.Size,
					rep.SHA256,
					rep.MD5,
					rep.NAR,
					res.Size,
					res.SHA256,
					res.MD5,
					res.NAR,
				)
			}
			if len(rep.Entries) != len(items) {
				t.Fatalf("%d entries, want %d", len(rep.Entries), len(items))
			}
			for i, it := range items {
				h := rep.Entries[i]
				if h.Path != it.Path || h.Type != it.Type || int64(h.Mode) != it.mode || h.Link != it.Link ||
					(it.Type == entry.Regular && h.Size != it.Size) {
					t.Errorf("entry %d = %+v, want %s %v %o %q", i, h, it.Path, it.Type, it.mode, it.Link)
				}
			}

			// Without ReaderAt, hardlinked content cannot be re-read: no NAR.
			rep, err = Inspect(context.Background(), onlyReader{bytes.NewReader(data)})
			if err != nil || rep.NAR != "" || rep.SHA256 != res.SHA256 {
				t.Errorf("plain reader with hardlinks: NAR %q sha %s err %v", rep.NAR, rep.SHA256, err)
			}
			data, res = writeArchive(t, noHardlinks, Options{Top: "top-1", Compression: comp})
			rep, err = Inspect(context.Background(), onlyReader{bytes.NewReader(data)})
			if err != nil || rep.NAR != res.NAR {
				t.Errorf("plain reader without hardlinks: NAR %q, want %q (err %v)", rep.NAR, res.NAR, err)
			}
		})
	}
}

// TestInspectExternal reads archives made by GNU tar + xz(1)/zstd(1) with
// every xz check type, with and without sizes in block headers.
func TestInspectExternal(t *testing.T) {
	tarBin := testutil.RequireTool(t, "tar")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	data, _ := writeArchive(t, sampleEntries(300000), Options{Top: "ext"})
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tarBin, "-xJf", "-", "-C", src)
	cmd.Stdin = bytes.NewReader(data)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	wantNAR := narOfDir(t, filepath.Join(src, "ext"))
	tests := []struct {
		tool string
		args []string
	}{
		{"xz", []string{"-T1", "--check=crc64"}},
		{"xz", []string{"-T1", "--check=crc32"}},
		{"xz", []string{"-T1", "--check=sha256"}},
		{"xz", []string{"-T1", "--check=none"}},
		{"xz", []string{"-T2", "--block-size=65536", "-1"}},
		{"zstd", []string{"-q", "-3"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool+strings.Join(tt.args, ""), func(t *testing.T) {
			bin := testutil.RequireTool(t, tt.tool)
			arch := filepath.Join(dir, "a")
			sh := tarBin + " --sort=name -cf - -C " + src + " ext | " + bin + " " + strings.Join(tt.args, " ") + " -c > " + arch
			if out, err := exec.Command("sh", "-c", sh).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v %s", sh, err, out)
			}
			f, err := os.Open(arch)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rep, err := Inspect(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := f.Stat()
			if rep.Top != "ext" || rep.NAR != wantNAR || rep.Size != fi.Size() {
				t.Errorf("top %q NAR %s size %d; want ext %s %d", rep.Top, rep.NAR, rep.Size, wantNAR, fi.Size())
			}
		})
	}
}

type member struct {
	h    tar.Header
	body string
}

func reg(name, body string) member {
	return member{tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))}, body}
}
func mdir(name string) member {
	return member{h: tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755}}
}
func mlink(typ byte, name, target string) member {
	return member{h: tar.Header{Name: name, Typeflag: typ, Mode: 0o777, Linkname: target}}
}

// rawArchive builds an arbitrary (possibly malicious) tar and compresses it.
func rawArchive(t testing.TB, comp Compression, ms ...member) []byte {
	t.Helper()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, m := range ms {
		h := m.h
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, m.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := NewXZWriter(&out, 1)
	if comp == Zstd {
		var err error
		if zw, err = zstd.NewWriter(&out); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := zw.Write(tb.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestInspectRejects(t *testing.T) {
	top := mdir("t/")
	tests := []struct {
		name string
		ms   []member
		want error
	}{
		{"two tops", []member{top, reg("t/a", "x"), reg("u/b", "y")}, ErrTopDir},
		{"top is file", []member{reg("t", "x")}, ErrTopDir},
		{"empty", nil, ErrTopDir},
		{"absolute", []member{reg("/t/a", "x")}, ErrUnsafeName},
		{"dotdot", []member{top, reg("t/../x", "x")}, ErrUnsafeName},
		{"duplicate", []member{top, reg("t/a", "x"), reg("t/a", "y")}, ErrDuplicate},
		{"duplicate top", []member{top, top}, ErrDuplicate},
		{"through file", []member{top, reg("t/a", "x"), reg("t/a/b", "y")}, ErrNotDir},
		{"through symlink", []member{top, mlink(tar.TypeSymlink, "t/l", "."), reg("t/l/b", "y")}, ErrNotDir},
		{"file over implicit dir", []member{top, reg("t/d/x", "x"), reg("t/d", "y")}, ErrDuplicate},
		{
			"char device",
			[]member{top, {h: tar.Header{Name: "t/null", Typeflag: tar.TypeChar, Mode: 0o666, Devmajor: 1, Devminor: 3}}},
			ErrType,
		},
		{"fifo", []member{top, {h: tar.Header{Name: "t/p", Typeflag: tar.TypeFifo, Mode: 0o666}}}, ErrType},
		{"symlink escape", []member{top, mlink(tar.TypeSymlink, "t/lib/l", "../../etc/passwd")}, ErrSymlink},
		{"symlink absolute", []member{top, mlink(tar.TypeSymlink, "t/l", "/etc/passwd")}, ErrSymlink},
		{
			"symlink escape via symlink",
			[]member{top, mlink(tar.TypeSymlink, "t/s", "."), mlink(tar.TypeSymlink, "t/x", "s/..")},
			ErrSymlink,
		},
		{"hardlink outside", []member{top, mlink(tar.TypeLink, "t/h", "/etc/passwd")}, ErrHardlink},
		{"hardlink other top", []member{top, mlink(tar.TypeLink, "t/h", "u/x")}, ErrHardlink},
		{"hardlink missing", []member{top, mlink(tar.TypeLink, "t/h", "t/x")}, ErrHardlink},
		{"hardlink to dir", []member{top, mdir("t/d/"), mlink(tar.TypeLink, "t/h", "t/d")}, ErrHardlink},
	}
	for _, tt := range tests {
		for _, comp := range []Compression{XZ, Zstd} {
			t.Run(tt.name+"/"+comp.String(), func(t *testing.T) {
				data := rawArchive(t, comp, tt.ms...)
				_, err := Inspect(context.Background(), bytes.NewReader(data))
				if !errors.Is(err, tt.want) {
					t.Fatalf("err = %v, want %v", err, tt.want)
				}
				var ee *EntryError
				if errors.As(err, &ee) && ee.Name == "" && tt.name != "empty" {
					t.Errorf("EntryError without a name: %v", err)
				}
			})
		}
	}
}

func TestInspectCorrupt(t *testing.T) {
	for _, comp := range []Compression{XZ, Zstd} {
		t.Run(comp.String(), func(t *testing.T) {
			data, _ := writeArchive(t, sampleEntries(200000), Options{Top: "t", Compression: comp})
			if _, err := Inspect(context.Background(), bytes.NewReader(data)); err != nil {
				t.Fatalf("intact archive: %v", err)
			}
			// Flip a bit at a few offsets: headers, data, check, index, footer.
			for _, off := range []int{1, 8, 14, len(data) / 3, len(data) / 2, len(data) - 40, len(data) - 20, len(data) - 3} {
				bad := bytes.Clone(data)
				bad[off] ^= 0x10
				if _, err := Inspect(context.Background(), bytes.NewReader(bad)); err == nil {
					t.Errorf("flipped bit at %d of %d: no error", off, len(data))
				}
			}
			for _, n := range []int{0, 3, 12, len(data) / 2, len(data) - 12, len(data) - 1} {
				if _, err := Inspect(context.Background(), bytes.NewReader(data[:n])); err == nil {
					t.Errorf("truncated to %d of %d: no error", n, len(data))
				}
			}
			if comp == XZ {
				if _, err := Inspect(context.Background(), bytes.NewReader(append(bytes.Clone(data), "junk"...))); err == nil {
					t.Error("trailing garbage: no error")
				}
				padded := append(bytes.Clone(data), 0, 0, 0, 0)
				if _, err := Inspect(context.Background(), bytes.NewReader(padded)); err != nil {
					t.Errorf("stream padding: %v", err)
				}
			}
		})
	}
	if _, err := Inspect(context.Background(), strings.NewReader("PK\x03\x04 not a tarball")); !errors.Is(err, ErrFormat) {
		t.Errorf("zip: err = %v, want ErrFormat", err)
	}
}

func TestInspectCancel(t *testing.T) {
	data, _ := writeArchive(t, sampleEntries(0), Options{Top: "t"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Inspect(ctx, bytes.NewReader(data)); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestInspectWindowLimit: an archive whose xz dictionary or zstd window is
// over MaxDictCap (128 MiB, patched into Write's first block or frame
// header) is refused as an ErrLimit, for both formats alike, before the
// decoder allocates it.
func TestInspectWindowLimit(t *testing.T) {
	for _, comp := range []Compression{XZ, Zstd} {
		t.Run(comp.String(), func(t *testing.T) {
			data, _ := writeArchive(t, sampleEntries(0), Options{Top: "t", Compression: comp})
			if _, err := Inspect(context.Background(), bytes.NewReader(data)); err != nil {
				t.Fatalf("unpatched: %v", err)
			}
			switch comp {
			case XZ:
				h := data[12 : 12+(int(data[12])+1)*4] // the first block header
				i := bytes.Index(h[2:len(h)-4], []byte{xz.FilterLZMA2, 1})
				if i < 0 {
					t.Fatalf("no LZMA2 filter in % x", h)
				}
				h[2+i+2] = 30 // 128 MiB
				binary.LittleEndian.PutUint32(h[len(h)-4:], crc32.ChecksumIEEE(h[:len(h)-4]))
			case Zstd:
				if data[4]&0x20 != 0 {
					t.Fatalf("single-segment frame: no window descriptor")
				}
				data[5] = 17 << 3 // window 1<<(10+17): 128 MiB
			}
			_, err := Inspect(context.Background(), bytes.NewReader(data))
			if !errors.Is(err, ErrLimit) {
				t.Fatalf("err = %v, want ErrLimit", err)
			}
			t.Log(err)
		})
	}
}
