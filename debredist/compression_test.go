package debredist

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestZstdProvenanceRecordsLevel: a zstd conversion at the default preset
// records the preset really used (4, klauspost's best), as xz's records 4
// (lzma.DefaultLevel), and build-archive rebuilds the same bytes from it.
func TestZstdProvenanceRecordsLevel(t *testing.T) {
	t.Parallel()
	out, cache := t.TempDir(), t.TempDir()
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: sampleMirror, CacheDir: cache},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: out, Only: []string{"cuda_cudart"}, Compression: "zstd"},
		},
	)
	prov, rec, debs := recordedArchive(t, out, cache)
	if prov.Encoder.Format != ".tar.zst" || prov.Encoder.Preset != 4 || rec.Preset != 4 {
		t.Fatalf("encoder %+v, archive preset %d: want .tar.zst at preset 4", prov.Encoder, rec.Preset)
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
