package main

import (
	"encoding/binary"
	"hash/fnv"
)

// rng is splitmix64: tiny, fast and fully determined by its seed.
type rng uint64

func (s *rng) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func seedOf(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// Tuning of the machine-code-like generator (see elfLike). Calibrated so that
// `xz -6` compresses the output to about 0.25 of its size, like the aarch64
// shared libraries in JetPack debs.
const (
	vocabSize  = 2048 // distinct "instructions" per file
	immPercent = 12   // chance (%) that an instruction carries a random immediate
	repPercent = 7    // chance (%) of repeating a recent run of output ("inlined code")
	padPercent = 1    // chance (%) of a run of zero padding (section alignment)
)

// elfLike returns size deterministic bytes that look (to a compressor) like
// the text and data sections of a shared library: an ELF header, then a
// stream of instructions drawn with a skewed distribution from a per-file
// vocabulary of 4-byte words, some carrying random immediates, interleaved
// with repeats of recent output and occasional zero padding.
func elfLike(seed uint64, size int64) []byte {
	out := make([]byte, 0, size+256)
	r := rng(seed)
	out = append(out, 0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0xb7, 0)
	var vocab [vocabSize]uint32
	for i := range vocab {
		vocab[i] = uint32(r.next())
	}
	var w [8]byte
	for int64(len(out)) < size {
		x := r.next()
		switch p := x % 100; {
		case p < padPercent:
			n := 16 + int(x>>8)%240
			for i := 0; i < n; i++ {
				out = append(out, 0)
			}
		case p < padPercent+repPercent && len(out) > 4096:
			n := 8 + int(x>>8)%120
			d := n + int(x>>20)%min(len(out)-n, 1<<16)
			start := len(out) - d
			for i := 0; i < n; i++ {
				out = append(out, out[start+i])
			}
		default:
			// Skewed pick: the minimum of two uniform indexes favours the
			// low (frequent) instructions.
			a, b := int(x>>8)%vocabSize, int(x>>24)%vocabSize
			insn := vocab[min(a, b)]
			if int(x>>40)%100 < immPercent {
				insn ^= uint32(x>>48) & 0x00ffff00
			}
			binary.LittleEndian.PutUint32(w[:], insn)
			out = append(out, w[:4]...)
		}
	}
	return out[:size]
}
