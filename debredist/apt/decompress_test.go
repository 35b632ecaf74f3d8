package apt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/decompress"
	"github.com/debredist/debredist/internal/testutil"
	xzformat "github.com/debredist/debredist/internal/xz"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// sampleIndex is a small valid index used by the compression tests.
var sampleIndex = stanza("cuda-cudart-12-6", "12.6.68-1", "Source: cuda-cudart") + "\n" +
	stanza("libnvinfer10", "10.3.0.30-1+cuda12.5", "Source: tensorrt (10.3.0.30-1+cuda12.5)")

func goCompress(t testing.TB, format string, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	var err error
	switch format {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "xz":
		w, err = xz.NewWriter(&buf)
	case "zstd":
		w, err = zstd.NewWriter(&buf)
	case "plain":
		return data
	default:
		t.Fatalf("unknown format %s", format)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// toolCompress compresses data with a real command-line tool.
func toolCompress(t *testing.T, tool string, args []string, data []byte) []byte {
	t.Helper()
	path := testutil.RequireTool(t, tool)
	cmd := exec.Command(path, args...)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return out
}

func TestDecompressFormats(t *testing.T) {
	data := []byte(sampleIndex)
	tests := []struct {
		name string
		make func(t *testing.T) []byte
	}{
		{"plain", func(t *testing.T) []byte { return data }},
		{"gzip-go", func(t *testing.T) []byte { return goCompress(t, "gzip", data) }},
		{"xz-go", func(t *testing.T) []byte { return goCompress(t, "xz", data) }},
		{"zstd-go", func(t *testing.T) []byte { return goCompress(t, "zstd", data) }},
		{"gzip-tool", func(t *testing.T) []byte { return toolCompress(t, "gzip", []string{"-9n"}, data) }},
		{"xz-tool", func(t *testing.T) []byte { return toolCompress(t, "xz", []string{"-c"}, data) }},
		{"xz-tool-multiblock", func(t *testing.T) []byte {
			return toolCompress(t, "xz", []string{"-c", "--block-size=100"}, data)
		}},
		{"zstd-tool", func(t *testing.T) []byte { return toolCompress(t, "zstd", []string{"-c", "-19"}, data) }},
		{"bzip2-tool", func(t *testing.T) []byte { return toolCompress(t, "bzip2", []string{"-c"}, data) }},
		{"gzip-multistream", func(t *testing.T) []byte {
			half := len(data) / 2
			return append(goCompress(t, "gzip", data[:half]), goCompress(t, "gzip", data[half:])...)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.make(t)
			rc, err := Decompress(bytes.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			if err := rc.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Errorf("decompressed %d bytes differ from the %d original", len(got), len(data))
			}
			// The Scanner takes the same path.
			pkgs, probs, err := ParsePackages(bytes.NewReader(in), ParseOptions{})
			if err != nil || len(pkgs) != 2 || len(probs) != 0 {
				t.Errorf("ParsePackages: %d packages, %v, %v", len(pkgs), probs, err)
			}
		})
	}
}

func TestDecompressErrors(t *testing.T) {
	data := []byte(strings.Repeat(sampleIndex+"\n", 50))
	xzData := goCompress(t, "xz", data)
	gzData := goCompress(t, "gzip", data)
	zstData := goCompress(t, "zstd", data)
	tests := []struct {
		name string
		in   []byte
	}{
		{"truncated xz", xzData[:len(xzData)/2]},
		{"truncated xz trailer", xzData[:len(xzData)-4]},
		{"truncated gzip", gzData[:len(gzData)/2]},
		{"truncated zstd", zstData[:len(zstData)/2]},
		{"corrupt xz", append(append([]byte{}, xzData[:40]...), bytes.Repeat([]byte{0x55}, 200)...)},
		{"gzip header only", gzData[:10]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParsePackages(bytes.NewReader(tt.in), ParseOptions{})
			if err == nil {
				t.Fatal("ParsePackages succeeded on damaged input")
			}
			var se *SyntaxError
			if errors.As(err, &se) {
				t.Errorf("got a syntax error %v, want a decompression error", err)
			}
		})
	}
}

func TestDecompressLZ4Unsupported(t *testing.T) {
	in := []byte{0x04, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7}
	_, err := Decompress(bytes.NewReader(in))
	var ue *UnsupportedCompressionError
	if !errors.As(err, &ue) || ue.Format != "lz4" {
		t.Errorf("err = %v, want UnsupportedCompressionError lz4", err)
	}
}

func TestDecompressTextStartingLikeMagic(t *testing.T) {
	// "BZh" text is not bzip2 without the block magic.
	in := "BZh9: not bzip2\n"
	rc, err := Decompress(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	if string(got) != in {
		t.Errorf("got %q", got)
	}
}

// TestDecompressXZDictLimit patches the dictionary size byte of a block's
// LZMA2 filter (and the block header CRC): Decompress must refuse it before
// the decoder allocates the dictionary, in the first block and in a block
// of a second concatenated stream alike.
func TestDecompressXZDictLimit(t *testing.T) {
	xzData := toolCompress(t, "xz", []string{"-c", "--lzma2=dict=1MiB"}, []byte(sampleIndex))
	// Stream header (12) + block header: size, flags, filter id 0x21,
	// props size 1, dict byte.
	bh := xzData[12:]
	if bh[2] != xzformat.FilterLZMA2 || bh[3] != 1 {
		t.Fatalf("unexpected block header % x", bh[:8])
	}
	hsize := (int(bh[0]) + 1) * 4
	withDict := func(code byte) []byte {
		b := append([]byte{}, xzData...)
		b[12+4] = code
		binary.LittleEndian.PutUint32(b[12+hsize-4:], crc32.ChecksumIEEE(b[12:12+hsize-4]))
		return b
	}
	read := func(data []byte) error {
		rc, err := Decompress(bytes.NewReader(data))
		if err != nil {
			return err
		}
		defer func() { _ = rc.Close() }()
		_, err = io.ReadAll(rc)
		return err
	}
	if err := read(xzData); err != nil {
		t.Fatalf("1 MiB dictionary refused: %v", err)
	}
	for _, c := range []struct {
		code byte
		want string
	}{
		{40, "exceeds the limit"}, // 4 GiB - 1
		{29, "exceeds the limit"}, // 96 MiB
	} {
		err := read(withDict(c.code))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, decompress.ErrLimit) {
			t.Errorf("dictionary code %d: err = %v, want %q (ErrLimit)", c.code, err, c.want)
		}
		// The same block in a second stream after a valid one.
		err = read(append(append([]byte{}, xzData...), withDict(c.code)...))
		if err == nil || !errors.Is(err, decompress.ErrLimit) {
			t.Errorf("dictionary code %d in a second stream: err = %v, want ErrLimit", c.code, err)
		}
	}
	// 64 MiB: at the limit, accepted (the LZMA2 data then decodes fine:
	// the dictionary size only bounds how far back matches may reach).
	if err := read(withDict(28)); err != nil {
		t.Errorf("64 MiB dictionary refused: %v", err)
	}
	if err := read(withDict(41)); !errors.Is(err, xzformat.ErrDictCode) {
		t.Errorf("dictionary code 41: err = %v, want ErrDictCode", err)
	}
}

// TestDecompressFiles decompresses files written by the real tools on disk,
// as a Packages.{gz,xz,zst} next to each other would be.
func TestDecompressFiles(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "Packages")
	if err := os.WriteFile(plain, []byte(sampleIndex), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, ext string }{{"gzip", ".gz"}, {"xz", ".xz"}, {"zstd", ".zst"}} {
		t.Run(c.tool, func(t *testing.T) {
			tool := testutil.RequireTool(t, c.tool)
			if out, err := exec.Command(tool, "-k", "-f", plain).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.tool, err, out)
			}
			f, err := os.Open(plain + c.ext)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			pkgs, _, err := ParsePackages(f, ParseOptions{})
			if err != nil || len(pkgs) != 2 {
				t.Errorf("%d packages, %v", len(pkgs), err)
			}
		})
	}
}

// MaxXZDictBytes is a literal, so that go doc shows the number rather
// than an internal constant; it is the bound the decoders apply.
func TestMaxXZDictBytes(t *testing.T) {
	if MaxXZDictBytes != decompress.MaxWindow {
		t.Errorf("MaxXZDictBytes = %d, internal/decompress.MaxWindow = %d", MaxXZDictBytes, decompress.MaxWindow)
	}
}
