package redist_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/debredist/debredist/debredist/redist"
)

// A manifest in NVIDIA's format: a flat component (one archive per
// platform) and one with CUDA variants (one archive per "cuda<MAJOR>" key).
const manifest = `{
    "release_date": "2026-01-15",
    "release_label": "9.3.0",
    "release_product": "cudnn",
    "cudnn": {
        "name": "NVIDIA CUDA Deep Neural Network library",
        "license": "cudnn",
        "license_path": "cudnn/LICENSE.txt",
        "version": "9.3.0.75",
        "cuda_variant": ["12"],
        "linux-aarch64": {
            "cuda12": {
                "relative_path": "cudnn/linux-aarch64/cudnn-linux-aarch64-9.3.0.75_cuda12-archive.tar.xz",
                "sha256": "1f3b0e9fdb1f4e5fd2bbc1f5c26bd0df9bd7b1ab6bc4c5a1b4bd2f2cd0d35b1a",
                "md5": "8d0b2a3f6a0b1e9b2c6f1e0a4c2b7d11",
                "size": "12345"
            }
        }
    },
    "cudnn_samples": {
        "name": "NVIDIA cuDNN samples",
        "license": "cudnn",
        "version": "9.3.0.75",
        "source": {
            "relative_path": "cudnn_samples/source/cudnn_samples-source-9.3.0.75-archive.tar.xz",
            "sha256": "6c1b0a2f9e3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8c9b",
            "size": "678"
        }
    }
}`

// ReadManifest parses a redistrib_<label>.json; Component.Artifacts lists
// a component's archives whether they sit under a platform directly or
// under its CUDA variants.
func ExampleReadManifest() {
	m, err := redist.ReadManifest(strings.NewReader(manifest))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.ReleaseProduct, m.ReleaseLabel, m.ReleaseDate)
	for _, name := range []string{"cudnn", "cudnn_samples"} {
		c := m.Components[name]
		for _, a := range c.Artifacts() {
			key := a.Platform // "linux-aarch64", or "source" for samples
			if a.CUDAVariant != "" {
				key += "/" + redist.VariantKey(a.CUDAVariant) // "cuda12": the archive for CUDA 12
			}
			fmt.Println(name, c.Version, key, a.Artifact.RelativePath, a.Artifact.Size)
		}
	}
	// Output:
	// cudnn 9.3.0 2026-01-15
	// cudnn 9.3.0.75 linux-aarch64/cuda12 cudnn/linux-aarch64/cudnn-linux-aarch64-9.3.0.75_cuda12-archive.tar.xz 12345
	// cudnn_samples 9.3.0.75 source cudnn_samples/source/cudnn_samples-source-9.3.0.75-archive.tar.xz 678
}

// WriteManifest writes a manifest the way NVIDIA formats theirs: release
// fields first, components by name, NVIDIA's key order inside each, 4-space
// indentation (fields it does not know, read into Component.Extra, are
// written back).
func ExampleWriteManifest() {
	m := &redist.Manifest{
		ReleaseDate:    "2026-01-15",
		ReleaseLabel:   "12.6.68",
		ReleaseProduct: "cuda",
		Components: map[string]*redist.Component{
			"cuda_cudart": {
				Name:        "CUDA Runtime (cudart)",
				License:     "CUDA Toolkit",
				LicensePath: "cuda_cudart/LICENSE.txt",
				Version:     "12.6.68",
				Platforms: map[string]*redist.Platform{
					"linux-aarch64": {Artifact: &redist.Artifact{
						RelativePath: "cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz",
						SHA256:       "54456ed3372670d6a6d7e19d5971ec234800fe620dfb822aa751bc7d80f2a516",
						MD5:          "0c0d6c1b5d2bd5a3a0c0a6c1f0a5e6d1",
						Size:         "188530",
					}},
				},
			},
		},
	}
	if err := redist.WriteManifest(os.Stdout, m); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {
	//     "release_date": "2026-01-15",
	//     "release_label": "12.6.68",
	//     "release_product": "cuda",
	//     "cuda_cudart": {
	//         "name": "CUDA Runtime (cudart)",
	//         "license": "CUDA Toolkit",
	//         "license_path": "cuda_cudart/LICENSE.txt",
	//         "version": "12.6.68",
	//         "linux-aarch64": {
	//             "relative_path": "cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz",
	//             "sha256": "54456ed3372670d6a6d7e19d5971ec234800fe620dfb822aa751bc7d80f2a516",
	//             "md5": "0c0d6c1b5d2bd5a3a0c0a6c1f0a5e6d1",
	//             "size": "188530"
	//         }
	//     }
	// }
}

// ArchiveName names an archive as NVIDIA does; the CUDA variant, when the
// component has one, becomes a _cuda<N> suffix. The extension includes its
// dot.
func ExampleArchiveName() {
	fmt.Println(redist.ArchiveName("cuda_cudart", "linux-aarch64", "12.6.68", "", ".tar.xz"))
	fmt.Println(redist.ArchiveName("cudnn", "linux-aarch64", "9.3.0.75", "12", ".tar.xz"))
	fmt.Println(redist.ArchiveName("cuda_compat", "linux-sbsa", "13.2.38", "13.2", ".tar.xz"))
	// Output:
	// cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz
	// cudnn-linux-aarch64-9.3.0.75_cuda12-archive.tar.xz
	// cuda_compat-linux-sbsa-13.2.38_cuda13.2-archive.tar.xz
}

// ManifestName and SidecarName name the files of a release label;
// SidecarFor finds the provenance sidecar of a manifest path (and the
// legacy name older versions wrote). Only manifests match redistrib_*.
func ExampleManifestName() {
	m := filepath.Join("OUT", "cuda", "redist", redist.ManifestName("12.6.68"))
	current, legacy := redist.SidecarFor(m)
	fmt.Println(filepath.ToSlash(m))
	fmt.Println(filepath.ToSlash(current))
	fmt.Println(filepath.ToSlash(legacy))
	for _, name := range []string{filepath.Base(m), filepath.Base(current), filepath.Base(legacy)} {
		fmt.Println(name, "manifest:", redist.IsManifestName(name), "sidecar:", redist.IsSidecarName(name))
	}
	// Output:
	// OUT/cuda/redist/redistrib_12.6.68.json
	// OUT/cuda/redist/debredist-provenance_12.6.68.json
	// OUT/cuda/redist/redistrib_12.6.68.provenance.json
	// redistrib_12.6.68.json manifest: true sidecar: false
	// debredist-provenance_12.6.68.json manifest: false sidecar: true
	// redistrib_12.6.68.provenance.json manifest: false sidecar: true
}

// CleanRelativePath is how a reader of manifests should resolve a
// relative_path: it must stay below the manifest's directory.
func ExampleCleanRelativePath() {
	for _, p := range []string{
		"cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz",
		"../../etc/passwd",
		"/etc/passwd",
	} {
		local, ok := redist.CleanRelativePath(p)
		fmt.Printf("%q %v\n", filepath.ToSlash(local), ok)
	}
	// Output:
	// "cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz" true
	// "" false
	// "" false
}

// ReadProvenance reads the sidecar written beside each manifest
// (debredist-provenance_<label>.json): per archive, the debs it was made
// from, its NAR hash for fetchzip-style pinning, and the stubs synthesized.
func ExampleReadProvenance() {
	const sidecar = `{
  "tool": "debredist 0.1.0",
  "encoder": {"format": ".tar.xz", "block_size": 25165824, "preset": 4},
  "profile": {"name": "jetpack6", "l4t": "r36.5", "repos": ["common", "t234"], "cuda": "12.6",
              "platform": "linux-aarch64", "target": "aarch64-linux", "triple": "aarch64-linux-gnu"},
  "indexes": [{"repo": "common", ` +
		`"url": "https://repo.download.nvidia.com/jetson/common/dists/r36.5/main/binary-arm64/Packages.gz",
               "sha256": "5f2a0c1d3e4b5a6978f0e1d2c3b4a5968778695a4b3c2d1e0f1a2b3c4d5e6f70", "signed": false}],
  "archives": [{
    "product": "cuda", "pname": "libcublas", "platform": "linux-aarch64", "version": "12.6.1.4",
    "relative_path": "libcublas/linux-aarch64/libcublas-linux-aarch64-12.6.1.4-archive.tar.xz",
    "size": 1000, "sha256": "abababababababababababababababababababababababababababababababab", ` +
		`"md5": "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd", "nar_hash": "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", ` +
		`"input_key": "ef",
    "debs": [{"repo": "common", "package": "libcublas-12-6", "version": "12.6.1.4-1",
              "filename": "pool/main/libc/libcublas/libcublas-12-6_12.6.1.4-1_arm64.deb", ` +
		`"sha256": "0101010101010101010101010101010101010101010101010101010101010101"}],
    "stubs": [{"path": "lib/stubs/libcublas.so", "from": "lib/libcublas.so.12.6.1.4",
               "from_deb": "libcublas-12-6_12.6.1.4-1_arm64.deb", "soname": "libcublas.so.12", "symbols": 1234, ` +
		`"sha256": "2323232323232323232323232323232323232323232323232323232323232323"}]
  }]
}`
	p, err := redist.ReadProvenance(strings.NewReader(sidecar))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Tool, p.Encoder.Format, "preset", p.Encoder.Preset, p.Profile.Name, p.Profile.L4T)
	for _, a := range p.Archives {
		fmt.Println(a.PName, a.Version, a.NAR)
		for _, d := range a.Debs {
			fmt.Println("  from", d.Repo, d.Package, d.Version)
		}
		for _, s := range a.Stubs {
			fmt.Println("  stub", s.Path, "of", s.From, s.SOName, s.Symbols, "symbols")
		}
	}
	// Output:
	// debredist 0.1.0 .tar.xz preset 4 jetpack6 r36.5
	// libcublas 12.6.1.4 sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=
	//   from common libcublas-12-6 12.6.1.4-1
	//   stub lib/stubs/libcublas.so of lib/libcublas.so.12.6.1.4 libcublas.so.12 1234 symbols
}
