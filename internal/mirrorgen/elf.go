package mirrorgen

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Every executable and shared library in a generated deb is a real small
// aarch64 ELF object, as a consumer meets NVIDIA's: an executable has an
// interpreter (/lib/ld-linux-aarch64.so.1) and a dynamic section, a
// library its SONAME and versioned symbols (functions, objects, TLS), and
// both carry the DT_NEEDED entries NVIDIA's file has (data/needed.json
// says what each list was read from), so that patchelf can edit them and
// nixpkgs' auto-patchelf has real dependencies to resolve. They are built
// once by cmd/mkelf with Debian's aarch64-linux-gnu-gcc and committed
// under data/elf/cuda<major>/ (NEEDED lists differ between CUDA
// generations), so generating a mirror needs no toolchain (go generate in
// doc.go rebuilds them first). Other binary files (bitcode, archives,
// spreadsheets) never start with the ELF magic.
//
//go:embed data/elf
var elfFS embed.FS

//go:embed data/needed.json
var neededJSON []byte

// elfRef names the ELF fixture of one file: its path under data/elf
// ("cuda12/libcublas.so.12") and, for a shared library, its SONAME.
type elfRef struct {
	fixture string
	soname  string
}

// ELFFixture is one committed ELF object (what cmd/mkelf builds).
type ELFFixture struct {
	// Path under data/elf: cuda<major>/ then the SONAME of a library
	// ("cuda12/libcublas.so.12"), stubs/<SONAME> for a link-time stub,
	// or the file name of an executable ("cuda12/nvcc").
	Path string
	// SOName is the library's SONAME; "" for an executable.
	SOName string
	// Needed are the DT_NEEDED entries, in NVIDIA's order.
	Needed []string
	// From says where Needed was read (data/needed.json).
	From string
}

// Executable reports whether the fixture is an executable (PT_INTERP,
// ET_EXEC) rather than a shared library.
func (f ELFFixture) Executable() bool { return f.SOName == "" }

// SymbolPrefix is the prefix of a library fixture's exported symbols: its
// SONAME without "lib" and ".so…", as a C identifier ("cublasLt" for
// libcublasLt.so.12, "nvrtc_builtins" for libnvrtc-builtins.so.12.6).
func (f ELFFixture) SymbolPrefix() string {
	base, _, _ := strings.Cut(f.SOName, ".so")
	base = strings.TrimPrefix(base, "lib")
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, base)
}

// neededEntry is one fixture's record in data/needed.json.
type neededEntry struct {
	Needed []string `json:"needed"`
	From   string   `json:"from"`
}

// neededData parses data/needed.json: CUDA generation ("cuda12") ->
// fixture name ("libcublas.so.12") -> entry.
func neededData() (map[string]map[string]neededEntry, error) {
	var doc struct {
		About    string                            `json:"about"`
		Fixtures map[string]map[string]neededEntry `json:"fixtures"`
	}
	dec := json.NewDecoder(bytes.NewReader(neededJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("mirrorgen: data/needed.json: %w", err)
	}
	return doc.Fixtures, nil
}

// elfDir is the fixture directory of the suite's CUDA generation.
func (s *suite) elfDir() string { return "cuda" + strconv.Itoa(s.cudaMajor) }

// ELFFixtures lists, sorted by Path, the ELF fixtures that the packages of
// every suite need (what cmd/mkelf builds), with their NEEDED lists; it
// fails when data/needed.json lacks one or two files want one fixture as
// different kinds of ELF.
func ELFFixtures() ([]ELFFixture, error) {
	data, err := neededData()
	if err != nil {
		return nil, err
	}
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
				for p, n := range pi.build().nodes {
					if n.elf == nil {
						continue
					}
					gen, fname, _ := strings.Cut(n.elf.fixture, "/")
					e, ok := data[gen][fname]
					if !ok {
						return nil, fmt.Errorf(
							"mirrorgen: suite %s package %s: %s: data/needed.json has no %q under %q",
							name,
							pkg,
							p,
							fname,
							gen,
						)
					}
					f := ELFFixture{Path: n.elf.fixture, SOName: n.elf.soname, Needed: e.Needed, From: e.From}
					if old, ok := seen[f.Path]; ok && old.SOName != f.SOName {
						return nil, fmt.Errorf("mirrorgen: fixture %s is wanted with SONAME %q and %q", f.Path, old.SOName, f.SOName)
					}
					seen[f.Path] = f
				}
			}
		}
	}
	out := make([]ELFFixture, 0, len(seen))
	for _, f := range seen {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// ELFLibrary returns a copy of a committed ELF fixture library by its name
// in a CUDA generation's directory: its SONAME ("libcublas.so.12") or, for
// a link-time stub, "stubs/<SONAME>"; the oldest generation's when several
// have one. For other test corpora.
func ELFLibrary(soname string) ([]byte, error) {
	gens, err := fs.ReadDir(elfFS, "data/elf")
	if err != nil {
		return nil, err
	}
	for _, g := range gens {
		if b, err := elfFS.ReadFile("data/elf/" + g.Name() + "/" + soname); err == nil && g.IsDir() {
			return b, nil
		}
	}
	return nil, fmt.Errorf("mirrorgen: no ELF fixture library %s", soname)
}

// elfFixture returns the committed ELF object at this fixture path.
func elfFixture(fixture string) []byte {
	b, err := elfFS.ReadFile("data/elf/" + fixture)
	if err != nil {
		// A template names a file no fixture was built for.
		panic(
			fmt.Sprintf(
				"mirrorgen: no ELF fixture data/elf/%s (run go generate ./internal/mirrorgen with aarch64-linux-gnu-gcc "+
					"installed): %v",
				fixture,
				err,
			),
		)
	}
	return b
}
