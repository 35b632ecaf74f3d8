package plan_test

import (
	"errors"
	"fmt"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
)

// Build groups the debs of a release into redist packages. Its input is
// what the indexes list, newest version per package (apt.Newest), with
// Repo set; only the common repo's debs are grouped. The profile must have
// its CUDA version: the built-in ones do, a suite's derived profile gets it
// from Profile.Resolve.
func ExampleGroup() {
	p, err := profile.ForJetPack("6")
	if err != nil {
		fmt.Println(err)
		return
	}
	debs := []apt.Package{
		// One redist package per Debian source: cuda-cudart's debs become cuda_cudart.
		{Repo: "common", Name: "cuda-cudart-12-6", Source: "cuda-cudart", Version: "12.6.68-1"},
		{Repo: "common", Name: "cuda-cudart-dev-12-6", Source: "cuda-cudart", Version: "12.6.68-1"},
		// cuDNN is built per CUDA major: nested under "cuda12" in the manifest.
		{Repo: "common", Name: "libcudnn9-cuda-12", Source: "cudnn", Version: "9.3.0.75-1"},
		{Repo: "common", Name: "libcudnn9-dev-cuda-12", Source: "cudnn", Version: "9.3.0.75-1"},
		// Debs for another CUDA, and meta-packages, are skipped with a reason.
		{Repo: "common", Name: "cuda-cudart-11-4", Source: "cuda-cudart", Version: "11.4.298-1"},
		{Repo: "common", Name: "nvidia-jetpack", Version: "6.2.2+b24", Description: "NVIDIA Jetpack Meta Package"},
		// Debs of other repos (the L4T driver debs) are not grouped.
		{Repo: "t234", Name: "nvidia-l4t-core", Version: "36.5.0-20260115194252"},
	}
	pl, err := plan.Group(p, debs)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pkg := range pl.Packages {
		fmt.Printf("%s/%s %s %s variant=%q\n", pkg.Product, pkg.PName, pkg.Version, pkg.Platform, pkg.CUDAVariant)
		for _, d := range pkg.Debs {
			fmt.Println("   ", d.Name)
		}
	}
	for _, s := range pl.Skipped {
		fmt.Println("skipped", s.Package+":", s.Reason)
	}
	// Each product becomes one manifest, redistrib_<label>.json.
	for _, l := range pl.Products() {
		fmt.Println("manifest", l.Product, l.Label)
	}
	// Output:
	// cuda/cuda_cudart 12.6.68 linux-aarch64 variant=""
	//     cuda-cudart-12-6
	//     cuda-cudart-dev-12-6
	// cudnn/cudnn 9.3.0.75 linux-aarch64 variant="12"
	//     libcudnn9-cuda-12
	//     libcudnn9-dev-cuda-12
	// skipped cuda-cudart-11-4: built for CUDA 11.4, the set is CUDA 12.6
	// skipped nvidia-jetpack: meta-package
	// manifest cuda 12.6.68
	// manifest cudnn 9.3.0
}

// The debs of one redist package must agree on its version: otherwise
// Build fails with a *plan.VersionError naming each version's debs.
func ExampleVersionError() {
	p, _ := profile.ForJetPack("6")
	_, err := plan.Group(p, []apt.Package{
		{Repo: "common", Name: "libcublas-12-6", Source: "libcublas", Version: "12.6.1.4-1"},
		{Repo: "common", Name: "libcublas-dev-12-6", Source: "libcublas", Version: "12.6.1.5-1"},
	})
	var ve *plan.VersionError
	if errors.As(err, &ve) {
		fmt.Println(ve.PName, ve.Versions)
	}
	// Output:
	// libcublas map[12.6.1.4:[libcublas-12-6] 12.6.1.5:[libcublas-dev-12-6]]
}

// NormalizeVersion turns a Debian version into the redist version of
// manifests and archive names; Label cuts it to a release label.
func ExampleNormalizeVersion() {
	for _, v := range []string{"8.5.2-1+cuda11.4", "1:12.6.68-1", "9.3.0.75-1", "36.5.0-20260115194252"} {
		n := plan.NormalizeVersion(v)
		fmt.Println(v, "->", n, "label", plan.Label(n))
	}
	// Output:
	// 8.5.2-1+cuda11.4 -> 8.5.2 label 8.5.2
	// 1:12.6.68-1 -> 12.6.68 label 12.6.68
	// 9.3.0.75-1 -> 9.3.0.75 label 9.3.0
	// 36.5.0-20260115194252 -> 36.5.0 label 36.5.0
}
