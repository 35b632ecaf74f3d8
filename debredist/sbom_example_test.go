package debredist_test

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/debredist/debredist/debredist"
)

// Find the bills of materials that Convert writes beside each manifest
// with Build.SBOM.
func ExampleSBOMFileNames() {
	out, _ := os.MkdirTemp("", "debredist-example")
	defer func() { _ = os.RemoveAll(out) }()
	cache, _ := os.MkdirTemp("", "debredist-cache")
	defer func() { _ = os.RemoveAll(cache) }()
	res, err := debredist.Convert(context.Background(), debredist.Options{
		Source:  debredist.Source{Mirror: "../testdata/sample-mirror", CacheDir: cache},
		Release: debredist.Release{JetPack: "6"},
		Build:   debredist.Build{Out: out, Only: []string{"cuda_cudart"}, SBOM: true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Products {
		spdx, cyclonedx := debredist.SBOMFileNames(p.Label)
		for _, name := range []string{spdx, cyclonedx} {
			_, err := os.Stat(filepath.Join(out, filepath.FromSlash(path.Dir(p.Manifest)), name))
			fmt.Println(path.Join(path.Dir(p.Manifest), name), err == nil)
		}
	}
	// Output:
	// cuda/redist/debredist-sbom_12.6.68.spdx.json true
	// cuda/redist/debredist-sbom_12.6.68.cdx.json true
}
