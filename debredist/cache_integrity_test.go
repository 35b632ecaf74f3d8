package debredist

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/hostile"
	"github.com/debredist/debredist/internal/mirrorgen"
)

// cacheTestDeb is the hostile corpus' libcublas deb with data.tar in the
// given compression ("none": flipped bytes keep it a valid deb).
func cacheTestDeb(t *testing.T, comp string) []byte {
	t.Helper()
	lib, err := mirrorgen.ELFLibrary("libcublas.so.12") // real ELF: the stub step reads it
	if err != nil {
		t.Fatal(err)
	}
	lib = append(lib, "synthetic libcublas whose bytes the cache test flips\n"...)
	b, err := debtest.Build(debtest.Deb{
		Control: "Package: " + hostile.Package + "\nSource: " + hostile.Source + "\nVersion: " + hostile.Version +
			"\nArchitecture: arm64\nMaintainer: x <x@example.com>\nDescription: cache test\n",
		AddParents:  true,
		Compression: comp,
		Files: []debtest.File{
			{Name: hostile.Lib + "libcublas.so.12.6.1.4", Mode: 0o755, Body: lib},
			{Name: hostile.Lib + "libcublas.so.12", Type: tar.TypeSymlink, Linkname: "libcublas.so.12.6.1.4"},
			{Name: "usr/share/doc/" + hostile.Package + "/copyright", Body: []byte("Copyright NVIDIA (synthetic)\n")},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// flip inverts 16 bytes of the cache entry in place (same size); in an
// uncompressed deb they land inside the library's body.
func flip(t *testing.T, entry string, at []byte) {
	t.Helper()
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, at)
	if i < 0 {
		i = len(b) / 2
	}
	for k := 0; k < 16; k++ {
		b[i+k] ^= 0xff
	}
	if err := os.WriteFile(entry, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptCacheEntryIsReplaced: a cache entry changed after it was
// verified (same size, so the size check passes) is detected while the
// deb is read, removed and downloaded again; the output equals a clean
// run's, and provenance records the bytes read. Offline it is a named
// error and nothing is published.
func TestCorruptCacheEntryIsReplaced(t *testing.T) {
	t.Parallel()
	for _, comp := range []string{"none", "xz"} {
		t.Run(comp, func(t *testing.T) {
			debBytes := cacheTestDeb(t, comp)
			sum := sha256.Sum256(debBytes)
			sha := hex.EncodeToString(sum[:])
			e := newHostileEnv(t, debBytes, nil)
			clean, err := Convert(context.Background(), e.opts)
			if err != nil {
				t.Fatal(err)
			}
			archive := filepath.Join(e.out, filepath.FromSlash(clean.Packages[0].Archive))
			want, err := os.ReadFile(archive)
			if err != nil {
				t.Fatal(err)
			}
			entry := filepath.Join(e.cache, "sha256", sha[:2], sha+".deb")

			// A second OUT built from the damaged entry.
			flip(t, entry, []byte("synthetic libcublas"))
			o := e.opts
			o.Build.Out = filepath.Join(e.root, "out2")
			warnings := collectWarnings(&o)
			res, err := Convert(context.Background(), o)
			if err != nil {
				t.Fatalf("convert from a corrupt cache entry: %v", err)
			}
			got, err := os.ReadFile(filepath.Join(o.Build.Out, filepath.FromSlash(res.Packages[0].Archive)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("archive differs from the clean run's")
			}
			if !strings.Contains(strings.Join(warnings(), "\n"), "is corrupt") {
				t.Errorf("no warning about the corrupt entry: %q", warnings())
			}
			if b, err := os.ReadFile(entry); err != nil || sha256.Sum256(b) != sum {
				t.Errorf("cache entry not repaired: %v", err)
			}
			prov := readProvenance(t, o.Build.Out)
			if d := prov.Archives[0].Debs[0]; d.SHA256 != sha || d.Size != int64(len(debBytes)) {
				t.Errorf("provenance records %s %d, read %s %d", d.SHA256, d.Size, sha, len(debBytes))
			}

			// Offline: a named error, the entry removed, nothing published.
			flip(t, entry, []byte("synthetic libcublas"))
			o.Build.Out, o.OnEvent, o.Source.Offline = filepath.Join(e.root, "out3"), nil, true
			_, err = Convert(context.Background(), o)
			var ce *fault.CorruptCacheError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "Source.Offline") ||
				!strings.Contains(err.Error(), hostile.Package) {
				t.Fatalf("offline: got %v, want a *fault.CorruptCacheError naming the package and Source.Offline", err)
			}
			if _, err := os.Stat(entry); !os.IsNotExist(err) {
				t.Errorf("offline: corrupt entry kept: %v", err)
			}
			// A failed first conversion leaves no OUT behind.
			if _, err := os.Lstat(o.Build.Out); !os.IsNotExist(err) {
				t.Errorf("offline: the failed first conversion left %s: %v", o.Build.Out, err)
			}
		})
	}
}

func readProvenance(t *testing.T, out string) redist.Provenance {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(out, "*", "redist", redist.SidecarPrefix+"*.json"))
	if len(files) != 1 {
		t.Fatalf("provenance sidecars: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var p redist.Provenance
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p
}
