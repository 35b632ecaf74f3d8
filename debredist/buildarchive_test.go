package debredist

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/redist"
)

// TestBuildArchive: an archive built again from its recorded debs, with no
// plan and no download, is the byte-identical file convert wrote; a
// missing or foreign deb, an unknown archive and a provenance that does not
// say how the archive was made are refused, and a build whose bytes would
// differ from the manifest writes nothing.
func TestBuildArchive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	out, cache := t.TempDir(), t.TempDir()
	convert(t, Options{Source: Source{Mirror: sampleMirror, CacheDir: cache}, Release: Release{JetPack: "6"}, Build: Build{Out: out, Only: []string{"cuda_cudart", "cudnn"}}})
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
	os.WriteFile(stranger, []byte("not one of them"), 0o644)
	usage("a foreign deb", BuildArchive(ctx, prov, rec.RelativePath, append(debs, stranger), fresh(), DebLimits{}), "is none of the")
	usage("an unknown archive", BuildArchive(ctx, prov, "nope/x.tar.xz", debs, fresh(), DebLimits{}), "records no archive nope/x.tar.xz")

	old := *prov
	old.Archives = append([]redist.Archive(nil), prov.Archives...)
	old.Archives[0].MTime = nil
	if err := BuildArchive(ctx, &old, rec.RelativePath, debs, fresh(), DebLimits{}); err == nil || !strings.Contains(err.Error(), "convert again") {
		t.Errorf("no recorded mtime: %v", err)
	}
	later := *rec.MTime + 86400 // recorded wrong: other bytes
	old.Archives[0].MTime = &later
	dst = fresh()
	err = BuildArchive(ctx, &old, rec.RelativePath, debs, dst, DebLimits{})
	if err == nil || !strings.Contains(err.Error(), rec.SHA256) || !strings.Contains(err.Error(), "the manifest says") {
		t.Errorf("other bytes: %v, want both hashes named", err)
	}
	if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a build that differs from the manifest wrote %s", dst)
	}
}
