package lzma

import (
	"encoding/binary"
	"math/bits"
)

const (
	hash3Bits = 16
	hash4Bits = 20
)

// hashChain is an HC4-style match finder over one block held in memory:
// a 3-byte hash table of the latest position (short matches), and a 4-byte
// hash table whose entries start chains of earlier positions with the same
// hash. Entries store position+1; 0 is empty. Every position of the block
// is inserted exactly once, in order (next is the first not yet inserted).
type hashChain struct {
	head3 []uint32
	head4 []uint32
	chain []uint32
	next  int
	depth int
	nice  int
	// results of the latest find: lengths ascending, 0-based distances
	lens  [maxMatchLen + 1]uint32
	dists [maxMatchLen + 1]uint32
}

func (h *hashChain) reset(n int) {
	if h.head3 == nil {
		h.head3 = make([]uint32, 1<<hash3Bits)
		h.head4 = make([]uint32, 1<<hash4Bits)
	} else {
		clear(h.head3)
		clear(h.head4)
	}
	if cap(h.chain) < n {
		h.chain = make([]uint32, n)
	}
	h.chain = h.chain[:n]
	h.next = 0
}

// matchLen returns how many bytes at a and b (a < b) agree, up to max.
func matchLen(src []byte, a, b, max int) int {
	l := 0
	if b+max <= len(src) {
		for l+8 <= max {
			x := binary.LittleEndian.Uint64(src[a+l:]) ^ binary.LittleEndian.Uint64(src[b+l:])
			if x != 0 {
				return l + bits.TrailingZeros64(x)>>3
			}
			l += 8
		}
	}
	for l < max && src[a+l] == src[b+l] {
		l++
	}
	return l
}

func hash4(v uint32) uint32 { return (v * 2654435761) >> (32 - hash4Bits) }
func hash3(v uint32) uint32 { return ((v << 8) * 506832829) >> (32 - hash3Bits) }

// skipTo inserts every position before end.
func (h *hashChain) skipTo(src []byte, end int) {
	p := h.next
	lim := min(end, len(src)-3)
	for ; p < lim; p++ {
		v := binary.LittleEndian.Uint32(src[p:])
		h.head3[hash3(v)] = uint32(p + 1)
		k := hash4(v)
		h.chain[p] = h.head4[k]
		h.head4[k] = uint32(p + 1)
	}
	if end > h.next {
		h.next = end
	}
}

// find inserts position pos (== h.next) and returns the number of matches
// stored in lens/dists, each strictly longer than the one before.
func (h *hashChain) find(src []byte, pos int) int {
	h.next = pos + 1
	avail := len(src) - pos
	if avail < 4 {
		return 0
	}
	maxLen := min(avail, maxMatchLen)
	v := binary.LittleEndian.Uint32(src[pos:])
	k3 := hash3(v)
	c3 := h.head3[k3]
	h.head3[k3] = uint32(pos + 1)
	k := hash4(v)
	c := h.head4[k]
	h.head4[k] = uint32(pos + 1)
	h.chain[pos] = c

	n := 0
	best := 1
	if c3 != 0 && c3 != c {
		p := int(c3) - 1
		if l := matchLen(src, p, pos, maxLen); l >= 2 {
			h.lens[0] = uint32(l)
			h.dists[0] = uint32(pos - p - 1)
			n = 1
			best = l
			if l >= h.nice || l == maxLen {
				return n
			}
		}
	}
	chain := h.chain
	for d := h.depth; c != 0 && d > 0; d-- {
		p := int(c) - 1
		if src[p+best] == src[pos+best] {
			if l := matchLen(src, p, pos, maxLen); l > best {
				h.lens[n] = uint32(l)
				h.dists[n] = uint32(pos - p - 1)
				n++
				best = l
				if l >= h.nice || l == maxLen {
					break
				}
			}
		}
		c = chain[p]
	}
	return n
}
