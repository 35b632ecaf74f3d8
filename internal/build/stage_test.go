package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/deb/debtest"
)

// TestStageAllOrder: a package's debs are staged side by side, but the
// inputs and the debs as read come in the debs' order, and a failure is
// the first failing deb's in that order, whichever finishes first.
func TestStageAllOrder(t *testing.T) {
	dir := t.TempDir()
	var debs []apt.Package
	paths := map[string]string{}
	add := func(name string, b []byte) {
		sum := sha256.Sum256(b)
		p := filepath.Join(dir, name+".deb")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		d := apt.Package{
			Name:     name,
			Version:  "1",
			Filename: "pool/" + name + "_1_arm64.deb",
			SHA256:   hex.EncodeToString(sum[:]),
			Size:     int64(len(b)),
		}
		debs = append(debs, d)
		paths[d.SHA256] = p
	}
	for _, name := range []string{"a", "b", "c", "d"} {
		b, err := debtest.Build(debtest.Deb{
			Control: "Package: " + name +
				"\nVersion: 1\nArchitecture: arm64\nMaintainer: x <x@example.com>\nDescription: stage test\n",
			Compression: "xz",
			Files:       []debtest.File{{Name: "usr/lib/" + name + ".so", Body: []byte(strings.Repeat(name, 1<<16))}},
		})
		if err != nil {
			t.Fatal(err)
		}
		add(name, b)
	}
	ctx := context.Background()
	decoders := make(chan struct{}, 2)
	for i := range 5 {
		blobs := filepath.Join(dir, "ok", string(rune('0'+i)))
		if err := os.MkdirAll(blobs, 0o755); err != nil {
			t.Fatal(err)
		}
		ins, read, err := stageAll(ctx, decoders, entry.Limits{}, debs, paths, blobs)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, in := range ins {
			if strings.HasSuffix(in.Path, ".so") {
				got = append(got, in.Path)
			}
		}
		if len(read) != 4 || read[0].Package != "a" || read[3].Package != "d" ||
			strings.Join(got, " ") != "usr/lib/a.so usr/lib/b.so usr/lib/c.so usr/lib/d.so" {
			t.Fatalf("run %d: read %v, inputs %v: want a..d in order", i, read, got)
		}
	}
	// b and d are damaged in the cache: the error is b's every time.
	for _, name := range []string{"b", "d"} {
		for _, d := range debs {
			if d.Name == name {
				if err := os.WriteFile(paths[d.SHA256], []byte("not a deb at all"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for i := range 10 {
		blobs := filepath.Join(dir, "bad", string(rune('0'+i)))
		if err := os.MkdirAll(blobs, 0o755); err != nil {
			t.Fatal(err)
		}
		_, _, err := stageAll(ctx, decoders, entry.Limits{}, debs, paths, blobs)
		if err == nil || !strings.Contains(err.Error(), "/b.deb") || strings.Contains(err.Error(), "/d.deb") {
			t.Fatalf("run %d: %v: want the error of b.deb, the first that fails", i, err)
		}
	}
}
