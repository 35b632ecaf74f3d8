package debredist_test

import (
	"context"
	"fmt"
	"os"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/verify"
)

// Plan a JetPack 6 conversion from the bundled sample mirror: which redist
// packages would be built, from which debs.
func ExamplePlan() {
	p, err := debredist.Plan(context.Background(), debredist.Options{
		Source:  debredist.Source{Mirror: "../testdata/sample-mirror", CacheDir: os.TempDir()},
		Release: debredist.Release{JetPack: "6"},
		Build:   debredist.Build{Only: []string{"cuda_cudart", "cudnn", "tensorrt"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Profile.Name, p.Profile.L4T, "CUDA", p.Profile.CUDA)
	for _, pkg := range p.Packages {
		fmt.Println(pkg.Product, pkg.PName, pkg.Version, len(pkg.Debs), "debs")
	}
	// Output:
	// jetpack6 r36.5 CUDA 12.6
	// cuda cuda_cudart 12.6.68 3 debs
	// cudnn cudnn 9.3.0.75 3 debs
	// tensorrt tensorrt 10.3.0.30 20 debs
}

// Convert one package of JetPack 6 and verify the output directory.
func ExampleConvert() {
	out, _ := os.MkdirTemp("", "debredist-example")
	defer func() { _ = os.RemoveAll(out) }()
	cache, _ := os.MkdirTemp("", "debredist-cache")
	defer func() { _ = os.RemoveAll(cache) }()
	res, err := debredist.Convert(context.Background(), debredist.Options{
		Source:  debredist.Source{Mirror: "../testdata/sample-mirror", CacheDir: cache},
		Release: debredist.Release{JetPack: "6"},
		Build:   debredist.Build{Out: out, Only: []string{"cuda_cudart"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Packages {
		fmt.Println(p.Archive)
	}
	rep, err := verify.Dir(context.Background(), out)
	fmt.Println("verified:", err == nil && rep.OK())
	// Output:
	// cuda/redist/cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz
	// verified: true
}
