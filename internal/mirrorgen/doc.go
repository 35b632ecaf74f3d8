// Package mirrorgen builds realistic FAKE NVIDIA Jetson (L4T) apt mirrors for
// tests, the bundled sample mirror and benchmark corpora: real package names,
// versions, Source fields, Filenames and in-deb paths of an L4T suite, with
// small synthetic (or caller-supplied) payloads, written as real .debs plus
// real Packages indexes. The libraries redists ship stubs of are tiny real
// aarch64 ELF objects (data/elf, built by cmd/mkelf), so that stub
// synthesis reads true ELF. It is test infrastructure, not a packaging tool: it
// never reads or validates real debs and never touches the network.
//
// The committed ELF fixture libraries (data/elf, see cmd/mkelf; needs
// aarch64-linux-gnu-gcc) and then the sample mirror are regenerated with:
//
//go:generate go run ./cmd/mkelf -out data/elf
//go:generate go run ./cmd/mkmirror -clean -out ../../testdata/sample-mirror -suites r35.6,r36.4,r36.5,r39.2
package mirrorgen
