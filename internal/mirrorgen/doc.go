// Package mirrorgen builds realistic FAKE NVIDIA Jetson (L4T) apt mirrors for
// tests, the bundled sample mirror and benchmark corpora: real package names,
// versions, Source fields, Filenames and in-deb paths of an L4T suite, with
// small synthetic (or caller-supplied) payloads, written as real .debs plus
// real Packages indexes. What a consumer's build reads or patches is as
// NVIDIA ships it: every executable and shared library is a tiny real
// aarch64 ELF object with NVIDIA's SONAME and NEEDED entries (data/elf,
// built by cmd/mkelf from data/needed.json, which says where each NEEDED
// list was read), and bin/nvcc.profile and the crt headers carry each CUDA
// version's own text (nvcc.go; NixpkgsEdits lists what nixpkgs edits in
// them). It is test infrastructure, not a packaging tool: it never reads
// or validates real debs and never touches the network.
//
// The committed ELF fixtures (data/elf, see cmd/mkelf; needs
// aarch64-linux-gnu-gcc) and then the sample mirror are regenerated with:
//
//go:generate go run ./cmd/mkelf -out data/elf
//go:generate go run ./cmd/mkmirror -clean -out ../../testdata/sample-mirror -suites r35.6,r36.4,r36.5,r39.2
package mirrorgen
