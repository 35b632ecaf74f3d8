package deb

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/testutil"
)

// bombDeb writes a deb whose data member expands to 12 GiB of zeros
// (twelve 1 GiB files) and returns its path.
func bombDeb(t *testing.T, comp string) (string, string) {
	t.Helper()
	member, err := debtest.BombDataMember(comp, "usr/lib", 12, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	suf, _ := debtest.Suffix(comp)
	name := "data.tar" + suf
	b, err := debtest.Build(debtest.Deb{Control: miniControl, Compression: comp, DataMember: member, DataName: name})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bomb-"+comp+".deb")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s bomb: %d-byte deb expanding to 12 GiB", comp, len(b))
	return p, name
}

func duBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if st, err := d.Info(); err == nil {
				n += st.Size()
			}
		}
		return nil
	})
	testutil.Must(t, err)
	return n
}

// TestBombRefusedByRatio: 12 GiB bombs are refused once past
// RatioMinBytes (64 MiB) by the running ratio; Extract, which can write at
// most what the reader hands out, fails naming deb and member and leaves
// nothing behind.
func TestBombRefusedByRatio(t *testing.T) {
	for _, comp := range []string{"zstd", "xz"} {
		for _, sysxz := range []bool{false, true} {
			if comp == "zstd" && sysxz {
				continue
			}
			t.Run(comp+map[bool]string{true: "-systemxz"}[sysxz], func(t *testing.T) {
				p, member := bombDeb(t, comp)
				f, err := os.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				rd, err := NewReader(context.Background(), f, Options{Name: "bomb.deb", SystemXZ: sysxz, systemXZMin: 1})
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = rd.Close() }()
				var out int64
				buf := make([]byte, 1<<20)
				for {
					_, err = rd.Next()
					if err != nil {
						break
					}
					for {
						n, rerr := rd.Read(buf)
						out += int64(n)
						if rerr != nil {
							break
						}
					}
				}
				var de *fault.DebError
				if !errors.As(err, &de) || de.Kind != fault.DebLimit || de.Member != member || de.Deb != "bomb.deb" ||
					!strings.Contains(err.Error(), "MaxRatio") {
					t.Fatalf("got %v, want a MaxRatio limit error naming bomb.deb and %s", err, member)
				}
				if out >= 100<<20 {
					t.Errorf("reader handed out %d bytes before refusing, want < 100 MB", out)
				}
				t.Logf("refused after %d bytes: %v", out, err)

				// Extract refuses it too and leaves nothing behind.
				parent := t.TempDir()
				dst := filepath.Join(parent, "x")
				err = Extract(context.Background(), p, dst, false, Options{SystemXZ: sysxz, systemXZMin: 1})
				if !errors.Is(err, fault.ErrDebLimit) || !strings.Contains(err.Error(), member) ||
					!strings.Contains(err.Error(), p) {
					t.Fatalf("Extract: got %v, want a limit error naming %s and %s", err, p, member)
				}
				if n := duBytes(t, parent); n != 0 {
					t.Errorf("Extract left %d bytes behind", n)
				}
			})
		}
	}
}

// TestDebRatioBudget: the whole deb's output is bounded by MaxDebRatio
// times its size even when each member's running ratio stays low.
func TestDebRatioBudget(t *testing.T) {
	p, member := bombDeb(t, "zstd")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A huge MaxRatio disables the per-member check; the budget remains.
	rd, err := NewReader(
		context.Background(),
		f,
		Options{Name: "b", Limits: Limits{MaxRatio: 1 << 40, RatioMinBytes: 1 << 20, MaxDebRatio: 10}},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rd.Close() }()
	for err == nil {
		_, err = rd.Next()
	}
	if !errors.Is(err, fault.ErrDebLimit) || !strings.Contains(err.Error(), "MaxDebRatio=10x") ||
		!strings.Contains(err.Error(), member) {
		t.Fatalf("got %v, want a MaxDebRatio limit error", err)
	}
}

// TestDuplicateUnreadContent: a duplicate is refused even when the consumer
// skips both contents.
func TestDuplicateUnreadContent(t *testing.T) {
	b := mustBuild(
		t,
		mini(debtest.File{Name: "usr/a", Body: []byte("first")}, debtest.File{Name: "usr/a", Body: []byte("other")}),
	)
	rd, err := NewReader(context.Background(), bytes.NewReader(b), Options{Name: "dup.deb"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rd.Close() }()
	for err == nil {
		_, err = rd.Next()
	}
	if !errors.Is(err, fault.ErrDebFormat) ||
		!strings.Contains(
			err.Error(),
			"deb dup.deb: member data.tar.xz: entry ./usr/a: malformed deb: ambiguous duplicate path usr/a: different contents",
		) {
		t.Fatalf("got %v", err)
	}
}

// sparseEntry is a tar entry (no end-of-archive blocks) named name: a PAX
// GNU sparse file of realsize bytes in 1.5 KB, whose holes archive/tar
// would read as zeros above every byte count.
func sparseEntry(name string, realsize int64) []byte {
	var b bytes.Buffer
	rec := debtest.PaxRecord("GNU.sparse.major", "1") + debtest.PaxRecord("GNU.sparse.minor", "0") +
		debtest.PaxRecord("GNU.sparse.name", name) + debtest.PaxRecord("GNU.sparse.realsize", fmt.Sprint(realsize))
	b.Write(debtest.RawTarHeader("./PaxHeaders/x", 'x', len(rec), timeZero))
	b.WriteString(rec)
	b.Write(make([]byte, (512-len(rec)%512)%512))
	b.Write(debtest.RawTarHeader("./usr/x", '0', 512, timeZero))
	b.Write(append([]byte("1\n0\n0\n"), make([]byte, 506)...))
	return b.Bytes()
}

// sparseTar is a data.tar whose only file is a PAX GNU sparse file of
// 100 GB logical size in 3 KB.
func sparseTar() []byte {
	return append(sparseEntry("./usr/sparse", 100_000_000_000), make([]byte, 1024)...)
}

func TestSparseRefused(t *testing.T) {
	d := mini()
	d.DataTar = sparseTar()
	rd, err := NewReader(context.Background(), bytes.NewReader(mustBuild(t, d)), Options{Name: "sparse.deb"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rd.Close() }()
	for err == nil {
		if _, err = rd.Next(); err == nil {
			// Bounded, so that a regression fails instead of reading 100 GB.
			if n, _ := io.CopyN(io.Discard, rd, 1<<20); n == 1<<20 {
				t.Fatal("a 3 KB sparse entry reads as more than 1 MiB")
			}
		}
	}
	if !errors.Is(err, fault.ErrDebFormat) || !errors.Is(err, entry.ErrSparse) ||
		!strings.Contains(err.Error(), "sparse file") {
		t.Fatalf("got %v, want a sparse-file format error", err)
	}
}

// TestSparseControlRefused: a sparse file in control.tar is refused too.
// readControl reads control files whole, and the holes are not counted
// against MaxControlBytes: 1.5 KB of control.tar would otherwise hold a
// 64 MiB postinst (or a 100 GB one, allocated in memory).
func TestSparseControlRefused(t *testing.T) {
	d := mini(debtest.File{Name: "usr/a", Body: []byte("a")})
	d.ControlMember = compressP("xz", append(sparseEntry("./postinst", 64<<20), mustControlTar(miniControl)...))
	rd, err := NewReader(context.Background(), bytes.NewReader(mustBuild(t, d)), Options{Name: "sparse.deb"})
	if err == nil {
		n := len(rd.ControlFiles()["postinst"])
		_ = rd.Close()
		t.Fatalf("accepted; postinst is %d bytes", n)
	}
	var e *fault.DebError
	if !errors.As(err, &e) || e.Kind != fault.DebFormat || e.Member != "control.tar.xz" ||
		!errors.Is(err, entry.ErrSparse) ||
		!strings.Contains(err.Error(), "sparse file") {
		t.Fatalf("got %v, want a sparse-file format error on control.tar.xz", err)
	}
}

// TestEntryBombRefused: 100,000 empty files compress to a few hundred KB,
// under every byte and ratio guard (51 MB of tar headers); the deb is
// refused once it holds more entries than its size allows
// (Limits.MinEntryBytes), naming the deb, the member and the limit.
func TestEntryBombRefused(t *testing.T) {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for i := range 100_000 {
		err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("./e/%06d", i), Mode: 0o644, Typeflag: tar.TypeReg})
		if err != nil {
			t.Fatal(err)
		}
	}
	testutil.Must(t, tw.Close())
	d := mini()
	d.Compression = "zstd"
	d.DataMember = mustCompress(t, "zstd", tb.Bytes())
	d.DataName = "data.tar.zst"
	deb := mustBuild(t, d)
	t.Logf("%d entries in a %d-byte deb", 100_000, len(deb))
	err := drain(context.Background(), bytes.NewReader(deb), Options{Name: "bomb.deb"})
	var e *fault.DebError
	if !errors.As(err, &e) || e.Kind != fault.DebLimit || e.Member != "data.tar.zst" ||
		!strings.Contains(err.Error(), "MinEntryBytes") {
		t.Fatalf("err = %v, want an entry-bomb limit error on data.tar.zst", err)
	}
	if !strings.Contains(err.Error(), "bomb.deb") {
		t.Errorf("%v does not name the deb", err)
	}
	// The same entries in a deb as large as real ones per entry are fine.
	err = drain(context.Background(), bytes.NewReader(deb), Options{Name: "big.deb", Limits: Limits{MinEntryBytes: 1}})
	if err != nil {
		t.Errorf("with MinEntryBytes=1: %v", err)
	}
}
