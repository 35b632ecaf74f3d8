package deb

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/testutil"
)

// benchDataTar returns an uncompressed data.tar of about DEBREDIST_BENCH_MB
// MiB (default 64) of realistic content: ELF shared libraries from the
// host, else seeded pseudo-random text.
func benchDataTar(b *testing.B) []byte {
	b.Helper()
	limit := int64(64)
	if s := os.Getenv("DEBREDIST_BENCH_MB"); s != "" {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
			limit = v
		}
	}
	limit <<= 20
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(name string, body []byte) {
		if err := tw.WriteHeader(&tar.Header{
			Name:   name,
			Mode:   0o644,
			Size:   int64(len(body)),
			Format: tar.FormatGNU,
		}); err != nil {
			b.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			b.Fatal(err)
		}
	}
	var total int64
	libs, _ := filepath.Glob("/usr/lib/x86_64-linux-gnu/*.so*")
	sort.Strings(libs)
	for _, p := range libs {
		if total >= limit {
			break
		}
		st, err := os.Lstat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		body, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if int64(len(body)) > limit-total {
			body = body[:limit-total]
		}
		add("./usr/lib/aarch64-linux-gnu/"+filepath.Base(p), body)
		total += int64(len(body))
	}
	if total < limit { // fallback: seeded pseudo-random text
		rng := rand.New(rand.NewSource(1))
		words := []string{"cuda", "tensor", "kernel", "launch", "stream", "device", "memcpy", "0x7f", "\n", "sm_87", "ptx"}
		for i := 0; total < limit; i++ {
			var t bytes.Buffer
			for t.Len() < 1<<20 {
				t.WriteString(words[rng.Intn(len(words))])
				t.WriteByte(' ')
			}
			add(fmt.Sprintf("./usr/share/text/%d.txt", i), t.Bytes())
			total += int64(t.Len())
		}
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// benchDeb returns a deb with the benchmark data compressed as comp, cached
// on disk across runs in $TMPDIR/debredist-bench (bench.sh times dpkg-deb
// on the same files).
func benchDeb(b *testing.B, comp string) (deb []byte, tarSize int64) {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "debredist-bench")
	mb := os.Getenv("DEBREDIST_BENCH_MB")
	if mb == "" {
		mb = "64"
	}
	path := filepath.Join(dir, comp+"-"+mb+"MiB.deb")
	sizePath := path + ".tarsize"
	if d, err := os.ReadFile(path); err == nil {
		if s, err := os.ReadFile(sizePath); err == nil {
			if n, err := strconv.ParseInt(string(s), 10, 64); err == nil {
				return d, n
			}
		}
	}
	dt := benchDataTar(b)
	var member []byte
	switch comp {
	case "xz", "zstd":
		// The system tools compress much faster than pure Go; the
		// decompression speed does not depend on the compressor.
		args := map[string][]string{"xz": {"-6", "-T1", "-c"}, "zstd": {"-19", "-T2", "-c", "-q"}}[comp]
		if p, err := exec.LookPath(comp); err == nil {
			cmd := exec.Command(p, args...)
			cmd.Stdin = bytes.NewReader(dt)
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("%s: %v", comp, err)
			}
			member = out
			break
		}
		fallthrough
	default:
		var err error
		if member, err = debtest.Compress(comp, dt); err != nil {
			b.Fatal(err)
		}
	}
	d, err := debtest.Build(debtest.Deb{Control: miniControl, Compression: comp, DataMember: member})
	if err != nil {
		b.Fatal(err)
	}
	testutil.Must(b, os.MkdirAll(dir, 0o755))
	testutil.Must(b, os.WriteFile(path, d, 0o644))
	testutil.Must(b, os.WriteFile(sizePath, []byte(strconv.Itoa(len(dt))), 0o644))
	return d, int64(len(dt))
}

func BenchmarkDataStream(b *testing.B) {
	for _, bc := range []struct {
		name, comp string
		systemXZ   bool
	}{
		{"xz-go", "xz", false},
		{"xz-system", "xz", true},
		{"zstd", "zstd", false},
		{"gzip", "gzip", false},
		{"none", "none", false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.systemXZ {
				if _, err := exec.LookPath("xz"); err != nil {
					b.Skip("xz not on PATH")
				}
			}
			deb, size := benchDeb(b, bc.comp)
			buf := make([]byte, 256<<10)
			b.SetBytes(size)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rd, err := NewReader(context.Background(), bytes.NewReader(deb), Options{SystemXZ: bc.systemXZ, systemXZMin: 1})
				if err != nil {
					b.Fatal(err)
				}
				for {
					_, err := rd.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.CopyBuffer(io.Discard, rd, buf); err != nil {
						b.Fatal(err)
					}
				}
				_ = rd.Close()
			}
		})
	}
}
