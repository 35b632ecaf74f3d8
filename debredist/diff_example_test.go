package debredist_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/debredist/debredist/debredist"
)

// Compare L4T r36.4 with r36.5 on the bundled sample mirror: which
// products and components moved.
func ExampleDiff() {
	cache, _ := os.MkdirTemp("", "debredist-cache")
	defer func() { _ = os.RemoveAll(cache) }()
	r, err := debredist.Diff(context.Background(), debredist.DiffOptions{
		Source: debredist.Source{Mirror: "../testdata/sample-mirror", CacheDir: cache},
	}, "r36.4", "r36.5")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range r.Products {
		fmt.Println(p.Product, p.FromLabel, "->", p.ToLabel, "unchanged:", p.Unchanged)
		for _, c := range p.Components {
			fmt.Println(" ", c.Status, c.PName, c.FromVersion, "->", c.ToVersion)
		}
	}
	// Output:
	// cuda 12.6.68 -> 12.6.68 unchanged: 27
	// cudnn 9.3.0 -> 9.3.0 unchanged: 2
	// tensorrt 10.3.0 -> 10.3.0 unchanged: 1
	// l4t 36.4.4 -> 36.5.0 unchanged: 0
	//   changed nvidia_l4t_dla_compiler 36.4.4 -> 36.5.0
}

// Write the jetpack-nixos inventory (sourceinfo/<suite>-debs.json) of a
// release.
func ExampleInventory() {
	var b bytes.Buffer
	err := debredist.Inventory(
		context.Background(),
		debredist.Options{
			Source:  debredist.Source{Mirror: "../testdata/sample-mirror"},
			Release: debredist.Release{L4T: "r36.5"},
		},
		&b,
		debredist.InventoryJetPackNixos,
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	lines := strings.Split(b.String(), "\n")
	fmt.Println(strings.Join(lines[:4], "\n"))
	fmt.Println(strings.Join(lines[5:7], "\n"))
	// Output:
	// {
	//   "common": {
	//     "cuda-cccl-12-6": {
	//       "filename": "pool/main/c/cuda-cccl/cuda-cccl-12-6_12.6.37-1_arm64.deb",
	//       "source": "cuda-cccl",
	//       "version": "12.6.37-1"
}
