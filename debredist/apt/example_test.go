package apt_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
)

func ExampleParsePackages() {
	index := `Package: libnvinfer10
Version: 10.3.0.30-1+cuda12.5
Source: tensorrt (10.3.0.30-1+cuda12.5)
Filename: pool/main/t/tensorrt/libnvinfer10_10.3.0.30-1+cuda12.5_arm64.deb
Size: 123
SHA256: fabaad3ac8a50cf25da83a25938844808be4a3a43c2e76ea0b70b9cd2c6234bc
Description: TensorRT runtime libraries

Package: evil
Version: 1.0
Filename: ../../etc/passwd
Size: 1
SHA256: fabaad3ac8a50cf25da83a25938844808be4a3a43c2e76ea0b70b9cd2c6234bc
`
	pkgs, problems, err := apt.ParsePackages(strings.NewReader(index), apt.ParseOptions{})
	if err != nil {
		panic(err)
	}
	for _, p := range pkgs {
		fmt.Println(p.Name, p.Version, p.Source, p.SourceVersion)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// libnvinfer10 10.3.0.30-1+cuda12.5 tensorrt 10.3.0.30-1+cuda12.5
	// line 9: package evil: unsafe Filename "../../etc/passwd": contains a .. segment
}

func ExampleRepo_PoolURL() {
	r := apt.NewRepo("", "common", "r36.5")
	fmt.Println(r.IndexURL("Packages.gz"))
	u, _ := r.PoolURL("pool/main/t/tensorrt/libnvinfer10_10.3.0.30-1+cuda12.5_arm64.deb")
	fmt.Println(u)
	// Output:
	// https://repo.download.nvidia.com/jetson/common/dists/r36.5/main/binary-arm64/Packages.gz
	// https://repo.download.nvidia.com/jetson/common/pool/main/t/tensorrt/libnvinfer10_10.3.0.30-1%2Bcuda12.5_arm64.deb
}

func ExampleNewest() {
	pkgs := []apt.Package{
		{Repo: "common", Name: "libcudnn9-cuda-12", Version: "9.3.0.75-1"},
		{Repo: "common", Name: "libcudnn9-cuda-12", Version: "9.3.0.75-1~rc1"},
		{Repo: "common", Name: "libcudnn9-cuda-12", Version: "1:9.0.0-1"},
	}
	for _, p := range apt.Newest(pkgs) {
		fmt.Println(p.Name, p.Version)
	}
	// Output:
	// libcudnn9-cuda-12 1:9.0.0-1
}

func ExampleWriteLock() {
	l := &apt.Lock{Suite: "r36.5", Packages: []apt.Package{{
		Repo: "common", Name: "cuda-cudart-12-6", Version: "12.6.68-1", Source: "cuda-cudart",
		Filename: "pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb",
		SHA256:   "54456ed3372670d6a6d7e19d5971ec234800fe620dfb822aa751bc7d80f2a516", Size: 188530,
	}}}
	if err := apt.WriteLock(os.Stdout, l); err != nil {
		panic(err)
	}
	// Output:
	// {
	//   "version": 1,
	//   "suite": "r36.5",
	//   "packages": [
	//     {
	//       "repo": "common",
	//       "package": "cuda-cudart-12-6",
	//       "version": "12.6.68-1",
	//       "filename": "pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb",
	//       "sha256": "54456ed3372670d6a6d7e19d5971ec234800fe620dfb822aa751bc7d80f2a516",
	//       "size": 188530,
	//       "source": "cuda-cudart"
	//     }
	//   ]
	// }
}
