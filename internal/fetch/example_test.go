package fetch_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/internal/fetch"
)

// Fetch a deb from a directory mirror into a fresh cache.
func ExampleFetcher_Fetch() {
	mirror, _ := os.MkdirTemp("", "mirror")
	cache, _ := os.MkdirTemp("", "cache")
	defer func() { _ = os.RemoveAll(mirror) }()
	defer func() { _ = os.RemoveAll(cache) }()

	deb := []byte("!<arch>\n…")
	sum := sha256.Sum256(deb)
	pkg := apt.Package{
		Repo: "common", Name: "cuda-cudart-12-6", Version: "12.6.68-1",
		Filename: "pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb",
		Size:     int64(len(deb)), SHA256: hex.EncodeToString(sum[:]),
	}
	path := filepath.Join(mirror, "common", filepath.FromSlash(pkg.Filename))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		panic(err)
	}
	if err := os.WriteFile(path, deb, 0o644); err != nil {
		panic(err)
	}

	f, err := fetch.New(fetch.Options{
		Base:     mirror,
		CacheDir: cache,
		OnEvent: func(e fetch.Event) {
			if e.Kind != fetch.Progress {
				fmt.Println(e.Kind, e.Package, e.Bytes)
			}
		},
	})
	if err != nil {
		panic(err)
	}
	paths, err := f.Fetch(context.Background(), []apt.Package{pkg})
	if err != nil {
		panic(err)
	}
	rel, _ := filepath.Rel(cache, paths[pkg.SHA256])
	fmt.Println(strings.ReplaceAll(filepath.ToSlash(rel), pkg.SHA256[2:], "…"))
	// Output:
	// started cuda-cudart-12-6 0
	// done cuda-cudart-12-6 11
	// sha256/7f/7f….deb
}
