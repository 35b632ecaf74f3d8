package debredist

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/debredist/debredist/debredist/redist"
)

// TestZstdProvenanceRecordsLevel: a zstd conversion at the default preset
// records the preset really used (4, klauspost's best), as xz's records 4
// (lzma.DefaultLevel), and build-archive rebuilds the same bytes from it.
func TestZstdProvenanceRecordsLevel(t *testing.T) {
	t.Parallel()
	out, cache := t.TempDir(), t.TempDir()
	convert(t, Options{Source: Source{Mirror: sampleMirror, CacheDir: cache}, Release: Release{JetPack: "6"}, Build: Build{Out: out, Only: []string{"cuda_cudart"}, Compression: "zstd"}})
	raw, err := os.ReadFile(filepath.Join(out, "cuda", "redist", "debredist-provenance_12.6.68.json"))
	if err != nil {
		t.Fatal(err)
	}
	prov, err := redist.ReadProvenance(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	rec := prov.Archives[0]
	if prov.Encoder.Format != ".tar.zst" || prov.Encoder.Preset != 4 || rec.Preset != 4 {
		t.Fatalf("encoder %+v, archive preset %d: want .tar.zst at preset 4", prov.Encoder, rec.Preset)
	}
	var debs []string
	for _, d := range rec.Debs {
		debs = append(debs, filepath.Join(cache, "sha256", d.SHA256[:2], d.SHA256+".deb"))
	}
	dst := filepath.Join(t.TempDir(), "a.tar.zst")
	if err := BuildArchive(context.Background(), prov, rec.RelativePath, debs, dst, DebLimits{}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dst)
	want, _ := os.ReadFile(filepath.Join(out, "cuda", "redist", filepath.FromSlash(rec.RelativePath)))
	if !bytes.Equal(got, want) {
		t.Fatalf("build-archive wrote %d bytes, convert %d: not the same bytes", len(got), len(want))
	}
}
