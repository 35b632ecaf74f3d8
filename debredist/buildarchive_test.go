package debredist

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/build"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/testutil"
)

// TestBuildArchive: an archive built again from its recorded debs, with no
// plan and no download, is the byte-identical file convert wrote; a
// missing or foreign deb, an unknown archive and a provenance that does not
// say how the archive was made (no mtime, an encoder format or block size
// this debredist does not write) are refused, and a build whose bytes
// would differ from the manifest writes nothing, naming both hashes.
// recordedArchive reads the cuda provenance a conversion into out wrote,
// and returns it, its first archive record and that archive's debs in the
// cache.
func recordedArchive(t *testing.T, out, cache string) (*redist.Provenance, redist.Archive, []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(out, "cuda", "redist", "debredist-provenance_12.6.68.json"))
	if err != nil {
		t.Fatal(err)
	}
	prov, err := redist.ReadProvenance(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	rec := prov.Archives[0]
	var debs []string
	for _, d := range rec.Debs {
		debs = append(debs, filepath.Join(cache, "sha256", d.SHA256[:2], d.SHA256+".deb"))
	}
	return prov, rec, debs
}

func TestBuildArchive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	out, cache := t.TempDir(), t.TempDir()
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: sampleMirror, CacheDir: cache},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: out, Only: []string{"cuda_cudart", "cudnn"}},
		},
	)
	prov, rec, debs := recordedArchive(t, out, cache)
	dst := filepath.Join(t.TempDir(), "a.tar.xz")
	if err := BuildArchive(ctx, prov, rec.RelativePath, debs, dst, DebLimits{}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dst)
	wantBytes, _ := os.ReadFile(filepath.Join(out, "cuda", "redist", filepath.FromSlash(rec.RelativePath)))
	if !bytes.Equal(got, wantBytes) {
		t.Fatalf("build-archive wrote %d bytes, convert %d: not the same bytes", len(got), len(wantBytes))
	}

	usage := func(what string, err error, want string) {
		t.Helper()
		var ue *fault.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a usage error saying %q", what, err, want)
		}
	}
	fresh := func() string { return filepath.Join(t.TempDir(), "x.tar.xz") }
	usage("a deb missing", BuildArchive(ctx, prov, rec.RelativePath, debs[1:], fresh(), DebLimits{}), "not given")
	stranger := filepath.Join(t.TempDir(), "other.deb")
	testutil.Must(t, os.WriteFile(stranger, []byte("not one of them"), 0o644))
	usage(
		"a foreign deb",
		BuildArchive(ctx, prov, rec.RelativePath, append(debs, stranger), fresh(), DebLimits{}),
		"is none of the",
	)
	usage(
		"an unknown archive",
		BuildArchive(ctx, prov, "nope/x.tar.xz", debs, fresh(), DebLimits{}),
		"records no archive nope/x.tar.xz (it records: "+rec.RelativePath,
	)
	// Every deb not given is named, not only the first.
	if len(rec.Debs) < 3 {
		t.Fatalf("%s has %d debs: want 3 to leave out two", rec.RelativePath, len(rec.Debs))
	}
	err := BuildArchive(ctx, prov, rec.RelativePath, debs[:1], fresh(), DebLimits{})
	usage("two debs missing", err, fmt.Sprintf("2 of its %d debs not given", len(rec.Debs)))
	for _, d := range rec.Debs[1:] {
		if err == nil || !strings.Contains(err.Error(), d.Package+" "+d.Version) || !strings.Contains(err.Error(), d.SHA256) {
			t.Errorf("two debs missing: %v does not name %s %s (sha256 %s)", err, d.Package, d.Version, d.SHA256)
		}
	}

	// Without deb files: RecordedDebs takes them from the cache by
	// sha256, else from the mirror the provenance records (here the
	// sample mirror, read into a new cache), and the build is the same.
	for _, c := range []string{cache, t.TempDir()} {
		paths, err := RecordedDebs(ctx, Options{Source: Source{CacheDir: c}}, prov, rec.RelativePath)
		if err != nil {
			t.Fatalf("RecordedDebs with cache %s: %v", c, err)
		}
		dst := fresh()
		if err := BuildArchive(ctx, prov, rec.RelativePath, paths, dst, DebLimits{}); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(dst); !bytes.Equal(got, wantBytes) {
			t.Errorf("from RecordedDebs (cache %s): not convert's bytes", c)
		}
	}
	_, err = RecordedDebs(ctx, Options{Source: Source{CacheDir: t.TempDir(), Offline: true}}, prov, rec.RelativePath)
	var me *fault.MissingError
	if !errors.As(err, &me) || len(me.Packages) != len(rec.Debs) {
		t.Errorf("RecordedDebs offline from an empty cache: %v, want every deb missing", err)
	}
	_, err = RecordedDebs(ctx, Options{Source: Source{CacheDir: cache}}, prov, "nope/x.tar.xz")
	usage("RecordedDebs of an unknown archive", err, "(it records: "+rec.RelativePath)

	old := *prov
	old.Archives = append([]redist.Archive(nil), prov.Archives...)
	old.Archives[0].MTime = nil
	if err := BuildArchive(ctx, &old, rec.RelativePath, debs, fresh(), DebLimits{}); err == nil ||
		!strings.Contains(err.Error(), "convert again") {
		t.Errorf("no recorded mtime: %v", err)
	}
	old.Archives[0].MTime = rec.MTime

	// The encoder as recorded: the format is the archive's extension
	// (".tar.xz", ".tar.zst"), never a bare "xz", and the block size the
	// one this debredist writes.
	enc := old
	enc.Encoder.Format = "xz"
	if err := BuildArchive(ctx, &enc, rec.RelativePath, debs, fresh(), DebLimits{}); err == nil ||
		!strings.Contains(err.Error(), `format "xz"`) {
		t.Errorf("encoder format \"xz\": %v, want it refused", err)
	}
	enc = old
	enc.Encoder.BlockSize = prov.Encoder.BlockSize / 2
	if err := BuildArchive(ctx, &enc, rec.RelativePath, debs, fresh(), DebLimits{}); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("block size %d", enc.Encoder.BlockSize)) {
		t.Errorf("block size %d: %v, want it refused", enc.Encoder.BlockSize, err)
	}

	later := *rec.MTime + 86400 // recorded wrong: other bytes
	old.Archives[0].MTime = &later
	dst = fresh()
	err = BuildArchive(ctx, &old, rec.RelativePath, debs, dst, DebLimits{})
	if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a build that differs from the manifest wrote %s", dst)
	}
	m := regexp.MustCompile(`built (\d+) bytes with sha256 ([0-9a-f]{64}), the manifest says (\d+) bytes with sha256 ` +
		`([0-9a-f]{64})`).
		FindStringSubmatch(fmt.Sprint(err))
	if m == nil || m[4] != rec.SHA256 || m[3] != strconv.FormatInt(rec.Size, 10) || m[2] == rec.SHA256 {
		t.Fatalf("other bytes: %v, want the built and the recorded size and sha256 named", err)
	}
	// The built hash it names is what that build makes: recorded as such,
	// the same build writes a file with that sha256.
	old.Archives[0].SHA256 = m[2]
	old.Archives[0].Size, _ = strconv.ParseInt(m[1], 10, 64)
	if err := BuildArchive(ctx, &old, rec.RelativePath, debs, dst, DebLimits{}); err != nil {
		t.Fatalf("the build the error described: %v", err)
	}
	if sum, err := files.SHA256(ctx, dst); err != nil || sum != m[2] {
		t.Errorf("the build the error described: sha256 %s (%v), the error named %s", sum, err, m[2])
	}
}

// TestBuildArchiveBounded: build-archive checks --out before any work,
// validates the recorded fields it uses, naming the field, reads each deb
// up to its recorded size and no further (a device, a FIFO, a longer or
// shorter file are refused, naming it, without waiting) and refuses a deb
// given twice.
func TestBuildArchiveBounded(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, cache := t.TempDir(), t.TempDir()
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: sampleMirror, CacheDir: cache},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: out, Only: []string{"cuda_cudart", "cudnn"}},
		},
	)
	raw, err := os.ReadFile(filepath.Join(out, "cudnn", "redist", "debredist-provenance_9.3.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	prov, err := redist.ReadProvenance(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range prov.Archives { // every record convert writes passes
		if err := build.CheckRecord(prov, &a, "debredist "+Version); err != nil {
			t.Errorf("%s: %v", a.RelativePath, err)
		}
	}
	rec := prov.Archives[0]
	var debs []string
	for _, d := range rec.Debs {
		debs = append(debs, filepath.Join(cache, "sha256", d.SHA256[:2], d.SHA256+".deb"))
	}
	fresh := func() string { return filepath.Join(t.TempDir(), "x.tar.xz") }
	refused := func(what string, err error, want ...string) {
		t.Helper()
		var ue *fault.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%s: %v, want a usage error", what, err)
			return
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to say %q", what, err, w)
			}
		}
	}

	exists := filepath.Join(t.TempDir(), "there.tar.xz")
	testutil.Must(t, os.WriteFile(exists, nil, 0o644))
	start := time.Now()
	refused(
		"an existing --out",
		BuildArchive(ctx, prov, rec.RelativePath, append(debs, "/dev/zero"), exists, DebLimits{}),
		"out "+exists+" exists",
	)
	refused(
		"--out in a missing directory",
		BuildArchive(ctx, prov, rec.RelativePath, debs, filepath.Join(t.TempDir(), "no", "x"), DebLimits{}),
		"is not there",
	)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("--out checked after %s of work", d)
	}

	refused(
		"/dev/zero",
		BuildArchive(ctx, prov, rec.RelativePath, append(debs, "/dev/zero"), fresh(), DebLimits{}),
		"/dev/zero is a character device, not a regular file",
	)
	fifo := filepath.Join(t.TempDir(), "fifo.deb")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	refused(
		"a FIFO",
		BuildArchive(ctx, prov, rec.RelativePath, append(debs, fifo), fresh(), DebLimits{}),
		fifo+" is a named pipe (FIFO)",
	)
	refused(
		"a deb twice",
		BuildArchive(ctx, prov, rec.RelativePath, append(debs, debs[0]), fresh(), DebLimits{}),
		"deb "+debs[0]+" is given twice",
	)
	b, _ := os.ReadFile(debs[0])
	longer := filepath.Join(t.TempDir(), "longer.deb")
	testutil.Must(t, os.WriteFile(longer, append(b, 0), 0o644))
	refused(
		"a longer deb",
		BuildArchive(ctx, prov, rec.RelativePath, append(debs[1:], longer), fresh(), DebLimits{}),
		"deb "+longer+" is "+strconv.Itoa(len(b)+1)+" bytes: it is none of the",
	)
	shorter := filepath.Join(t.TempDir(), "shorter.deb")
	testutil.Must(t, os.WriteFile(shorter, b[:len(b)-1], 0o644))
	refused(
		"a shorter deb",
		BuildArchive(ctx, prov, rec.RelativePath, append(debs[1:], shorter), fresh(), DebLimits{}),
		"deb "+shorter+" is "+strconv.Itoa(len(b)-1)+" bytes: it is none of the",
	)

	for _, tc := range []struct {
		field string
		edit  func(a *redist.Archive)
	}{
		{"pname", func(a *redist.Archive) { a.PName = "../x" }},
		{"product", func(a *redist.Archive) { a.Product = "cu da" }},
		{"platform", func(a *redist.Archive) { a.Platform = "linux/aarch64" }},
		{"version", func(a *redist.Archive) { a.Version = "9\n3" }},
		{"relative_path", func(a *redist.Archive) { a.RelativePath = "cudnn/elsewhere.tar.xz" }},
		{"debs[0].size", func(a *redist.Archive) { a.Debs[0].Size = 0 }},
		{"debs[0].sha256", func(a *redist.Archive) { a.Debs[0].SHA256 = strings.ToUpper(a.Debs[0].SHA256) }},
	} {
		p := *prov
		p.Archives = []redist.Archive{rec}
		p.Archives[0].Debs = append([]redist.Deb(nil), rec.Debs...)
		tc.edit(&p.Archives[0])
		refused(
			tc.field,
			BuildArchive(ctx, &p, p.Archives[0].RelativePath, debs, fresh(), DebLimits{}),
			"field "+tc.field+": ",
		)
	}
}
