package mirrorgen_test

import (
	"archive/tar"
	"fmt"

	"github.com/debredist/debredist/internal/mirrorgen"
)

// Files shows what a generated deb contains, in dpkg-deb order.
func ExampleFiles() {
	files, err := mirrorgen.Files("r36.5", "common", "cuda-cudart-12-6")
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		switch f.Type {
		case tar.TypeSymlink:
			fmt.Printf("%s -> %s\n", f.Name, f.Linkname)
		case tar.TypeReg:
			fmt.Printf("%s (%o)\n", f.Name, f.Mode)
		}
	}
	// Output:
	// usr/local/cuda-12.6/targets/aarch64-linux/lib/libcudart.so.12.6.68 (755)
	// usr/share/doc/cuda-cudart-12-6/changelog.Debian.gz (644)
	// usr/share/doc/cuda-cudart-12-6/copyright (644)
	// usr/local/cuda-12.6/lib64 -> targets/aarch64-linux/lib
	// usr/local/cuda-12.6/targets/aarch64-linux/lib/libcudart.so.12 -> libcudart.so.12.6.68
}

// DefaultSelection lists what Generate writes for a repo.
func ExampleDefaultSelection() {
	soc, err := mirrorgen.DefaultSelection("r39.2", "som")
	if err != nil {
		panic(err)
	}
	fmt.Println(soc)
	// Output:
	// [nvidia-l4t-3d-core nvidia-l4t-core nvidia-l4t-cuda nvidia-l4t-cuda-nvgpu]
}
