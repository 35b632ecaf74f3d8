package mirrorgen

import (
	"embed"
	"fmt"
	"sort"
	"strings"
)

// The shared libraries that redists ship stubs of (lib/stubs/) are real
// small aarch64 ELF objects in the generated debs, so that the stub step
// has something true to read: built once by cmd/mkelf with Debian's
// aarch64-linux-gnu-gcc (versioned symbols, functions, objects, TLS) and
// committed, one file per SONAME, under data/elf. Generating a mirror
// needs no toolchain (go generate in doc.go rebuilds them first).
//
//go:embed data/elf
var elfFS embed.FS

// elfLibs are the library base names whose fixtures are real ELF objects:
// those NVIDIA's archives ship lib/stubs/ for and the debs do not.
var elfLibs = map[string]bool{
	"libcublas": true, "libcublasLt": true, "libcufft": true, "libcufftw": true, "libcurand": true,
	"libcusolver": true, "libcusolverMg": true, "libcusparse": true, "libnvjpeg": true, "libnvrtc": true,
	"libnvJitLink": true, "libcudla": true,
	"libnppc": true, "libnppial": true, "libnppicc": true, "libnppidei": true, "libnppif": true, "libnppig": true,
	"libnppim": true, "libnppist": true, "libnppisu": true, "libnppitc": true, "libnpps": true,
	"libnvinfer": true, "libnvinfer_plugin": true, "libnvonnxparser": true, "libnvparsers": true,
	"libnvinfer_lean": true, "libnvinfer_dispatch": true, "libnvinfer_vc_plugin": true,
}

// ELFFixture is one real ELF library fixture: its base name ("libcublas")
// and SONAME ("libcublas.so.12").
type ELFFixture struct {
	Base   string
	SOName string
}

// ELFFixtures lists, sorted by SONAME, the ELF fixtures that the packages
// of every suite need (what cmd/mkelf builds).
func ELFFixtures() ([]ELFFixture, error) {
	seen := map[string]ELFFixture{}
	for _, name := range Suites() {
		s, err := loadSuite(name)
		if err != nil {
			return nil, err
		}
		for repo, pkgs := range s.repos {
			for pkg := range pkgs {
				pi, err := s.info(repo, pkg)
				if err != nil {
					return nil, err
				}
				for _, n := range pi.build().nodes {
					if n.soname != "" {
						seen[n.soname] = ELFFixture{Base: n.elfBase, SOName: n.soname}
					}
				}
			}
		}
	}
	out := make([]ELFFixture, 0, len(seen))
	for _, f := range seen {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SOName < out[j].SOName })
	return out, nil
}

// ELFLibrary returns a copy of the committed ELF fixture library with this
// SONAME ("libcublas.so.12"), for other test corpora.
func ELFLibrary(soname string) ([]byte, error) {
	b, err := elfFS.ReadFile("data/elf/" + soname)
	if err != nil {
		return nil, fmt.Errorf("mirrorgen: no ELF fixture %s: %w", soname, err)
	}
	return b, nil
}

// elfFixture returns the committed ELF library with this SONAME.
func elfFixture(soname string) []byte {
	b, err := elfFS.ReadFile("data/elf/" + soname)
	if err != nil {
		// A template names a library no fixture was built for.
		panic(fmt.Sprintf("mirrorgen: no ELF fixture data/elf/%s (run go generate ./internal/mirrorgen with aarch64-linux-gnu-gcc installed): %v", soname, err))
	}
	return b
}

// FixtureSymbolPrefix is the prefix of a fixture library's symbols:
// the base name without "lib" ("cublasLt" for libcublasLt).
func FixtureSymbolPrefix(base string) string { return strings.TrimPrefix(base, "lib") }
