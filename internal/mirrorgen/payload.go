package mirrorgen

import (
	"hash/fnv"
	"path"
	"strings"
)

// seed returns a stable 64-bit seed for a (package, path) pair.
func seed(pkg, p string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(pkg))
	h.Write([]byte{0})
	h.Write([]byte(p))
	return h.Sum64()
}

// splitmix64 is a tiny deterministic PRNG.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// DefaultSizeOf is the size used when Options.SizeOf is nil: a stable value
// between 32 and 255 bytes derived from the package and path.
func DefaultSizeOf(pkg, p string) int64 {
	return 32 + int64(seed(pkg, p)%224)
}

var textExt = map[string]bool{
	".h": true, ".hpp": true, ".cuh": true, ".c": true, ".cc": true, ".cpp": true, ".cu": true,
	".py": true, ".md": true, ".txt": true, ".cmake": true, ".json": true, ".config": true,
}

// isText reports whether the default payload of p is source-like text rather
// than binary.
func isText(p string) bool {
	base := path.Base(p)
	if textExt[path.Ext(base)] {
		return true
	}
	switch base {
	case "Makefile", "README", "DOCS", "atomic", "target":
		return true
	}
	return false
}

// DefaultPayload is the content used when Options.Payload is nil:
// deterministic bytes of exactly size bytes, a function of (pkg, path, size)
// only. Headers and sources get comment-led text, static archives start with
// the ar magic and other binary data with a "DATA" tag, followed by
// pseudo-random filler that compresses roughly like real code (2-4x). It
// never starts with the ELF magic: the executables and libraries of a
// generated deb are real ELF fixtures (elf.go), and a file that looks like
// ELF but is not would be a fake a consumer's tools (patchelf,
// auto-patchelf) trip over.
func DefaultPayload(pkg, p string, size int64) []byte {
	if size < 0 {
		size = 0
	}
	out := make([]byte, 0, size)
	rng := splitmix64(seed(pkg, p))
	switch {
	case isText(p):
		out = append(out, "/* "+path.Base(p)+": synthetic (debredist mirrorgen) */\n"...)
		const words = "cuda kernel stream device host memory launch tensor layer graph engine buffer "
		ws := strings.Fields(words)
		col := 0
		for int64(len(out)) < size {
			w := ws[rng.next()%uint64(len(ws))]
			if col+len(w) > 72 {
				out = append(out, '\n')
				col = 0
			}
			out = append(out, w...)
			out = append(out, ' ')
			col += len(w) + 1
		}
	default:
		if strings.HasSuffix(p, ".a") {
			out = append(out, "!<arch>\n"...)
		} else {
			out = append(out, "DATA"...)
		}
		// Words drawn mostly from a small per-file vocabulary: compresses
		// about 2-4x like real machine code, not like noise.
		var vocab [64]uint64
		for i := range vocab {
			vocab[i] = rng.next()
		}
		for int64(len(out)) < size {
			r := rng.next()
			v := vocab[r%64]
			if r>>61 == 0 {
				v = rng.next()
			}
			for i := 0; i < 8; i++ {
				out = append(out, byte(v>>(8*i)))
			}
		}
	}
	if int64(len(out)) > size {
		out = out[:size]
	}
	return out
}
