package lzma

import (
	"encoding/binary"
	"math/bits"
)

const (
	hash2Bits = 10 // 4 KiB: stays in the L1 cache
	hash3Bits = 16
)

// hashChain is an HC4-style match finder over one block held in memory:
// a 3-byte hash table of the latest position (short matches), and a 4-byte
// hash table whose entries start chains of earlier positions with the same
// hash. Entries store position+1; 0 is empty. Positions are inserted in
// order, none twice (next is the first not yet inserted): every position
// of the coded stretches, and every sparseStep-th of the stored random
// ones (insertSparse).
type hashChain struct {
	head2 []uint32 // by a 10-bit hash of the first 2 bytes (kept with head3)
	head3 []uint32
	head4 []uint32
	chain []uint32 // hash chain: previous position; binary tree: 2 children per position
	bt    bool
	// noHash3: neither head2 nor head3 is kept (Params.NoHash3)
	noHash3 bool
	next    int
	mask    int    // len(chain)-1: chain is cyclic over the dictionary
	shift   uint32 // 32 - bits of the 4-byte hash
	depth   int
	nice    int
	// head4 entry of position prefetchPos, loaded early by
	// find(prefetchPos-1)
	prefetchPos int
	prefetchC   uint32
	// results of the latest find: lengths ascending, 0-based distances
	lens  [maxMatchLen + 1]uint32
	dists [maxMatchLen + 1]uint32
}

func (h *hashChain) reset(n int) {
	if h.head4 == nil {
		if !h.noHash3 {
			h.head2 = make([]uint32, 1<<hash2Bits)
			h.head3 = make([]uint32, 1<<hash3Bits)
		}
		h.head4 = make([]uint32, 1<<(32-h.shift))
	} else {
		clear(h.head2)
		clear(h.head3)
		clear(h.head4)
	}
	if h.chain == nil && h.chained() {
		k := h.mask + 1
		if h.bt {
			k *= 2
		}
		h.chain = make([]uint32, k)
	} else if h.bt {
		clear(h.chain)
	}
	h.next = 0
	h.prefetchPos = -1
}

// chained reports whether the finder keeps chain: a hash chain searched only
// one candidate deep never reads it (the candidate is the head4 entry), so
// depth 1 skips the chain's stores and its loads (a cache miss per position).
func (h *hashChain) chained() bool { return h.bt || h.depth > 1 }

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

func hash4(v, shift uint32) uint32 { return (v * 2654435761) >> shift }
func hash3(v uint32) uint32        { return ((v << 8) * 506832829) >> (32 - hash3Bits) }
func hash2(v uint32) uint32        { return ((v << 16) * 2654435761) >> (32 - hash2Bits) }

// skipTo inserts every position before end.
func (h *hashChain) skipTo(src []byte, end int) {
	p := h.next
	lim := min(end, len(src)-3)
	if h.bt {
		for ; p < lim; p++ {
			v := binary.LittleEndian.Uint32(src[p:])
			if h.head3 != nil {
				h.head2[hash2(v)] = uint32(p + 1)
				h.head3[hash3(v)] = uint32(p + 1)
			}
			k := hash4(v, h.shift)
			c := h.head4[k]
			h.head4[k] = uint32(p + 1)
			h.btInsert(src, p, c, false, 0, 0)
		}
		if end > h.next {
			h.next = end
		}
		return
	}
	if h.chain == nil {
		for ; p < lim; p++ {
			v := binary.LittleEndian.Uint32(src[p:])
			if h.head3 != nil {
				h.head2[hash2(v)] = uint32(p + 1)
				h.head3[hash3(v)] = uint32(p + 1)
			}
			h.head4[hash4(v, h.shift)] = uint32(p + 1)
		}
	}
	for ; p < lim; p++ {
		v := binary.LittleEndian.Uint32(src[p:])
		if h.head3 != nil {
			h.head2[hash2(v)] = uint32(p + 1)
			h.head3[hash3(v)] = uint32(p + 1)
		}
		k := hash4(v, h.shift)
		h.chain[p&h.mask] = h.head4[k]
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
	var c2, c3 uint32
	if h.head3 != nil {
		k2 := hash2(v)
		c2 = h.head2[k2]
		h.head2[k2] = uint32(pos + 1)
		k3 := hash3(v)
		c3 = h.head3[k3]
		h.head3[k3] = uint32(pos + 1)
	}
	k := hash4(v, h.shift)
	var c uint32
	if h.prefetchPos == pos {
		c = h.prefetchC
	} else {
		c = h.head4[k]
	}
	h.head4[k] = uint32(pos + 1)
	if h.chain != nil && !h.bt {
		h.chain[pos&h.mask] = c
	}
	// Load the head of the next position now: the load (usually a cache
	// miss) overlaps the search below. Read after the store above, it is
	// right even when both positions share the bucket; nothing else
	// writes head4 before find(pos+1) (skipTo and insertSparse move next
	// past pos+1).
	if avail >= 5 {
		h.prefetchPos, h.prefetchC = pos+1, h.head4[hash4(binary.LittleEndian.Uint32(src[pos+1:]), h.shift)]
	}

	n := 0
	best := 1
	// The latest position with the same 2 bytes (the closest 2-byte
	// match, as liblzma's hash2), then the latest with the same 3-byte
	// hash, each recorded when longer than what is already found; the
	// chain's head c is searched below. A candidate already tried (c3 ==
	// c2, or either == c) cannot give a longer match: it is skipped, as
	// liblzma skips delta3 == delta2.
	for i, cc := range [2]uint32{c2, c3} {
		if cc == 0 || cc == c || i == 1 && cc == c2 || pos-int(cc) >= h.mask {
			continue
		}
		p := int(cc) - 1
		if l := matchLen(src, p, pos, maxLen); l > best {
			h.lens[n] = uint32(l)
			h.dists[n] = uint32(pos - p - 1)
			n++
			best = l
			if !h.bt && (l >= h.nice || l == maxLen) {
				return n
			}
		}
	}
	if h.bt {
		return h.btInsert(src, pos, c, true, n, best)
	}
	chain, mask := h.chain, h.mask
	lim := pos - mask // oldest position in the dictionary
	for d := h.depth; c != 0 && d > 0; d-- {
		p := int(c) - 1
		if p < lim {
			break
		}
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
		if d == 1 {
			break
		}
		c = chain[p&mask]
	}
	return n
}

// btInsert inserts pos into the binary tree whose root c (position+1) came
// from the 4-byte hash head, re-rooting it at pos (after the LZMA SDK's
// bt4). With record it appends to lens/dists the matches longer than best
// (n already stored) and returns the new count.
func (h *hashChain) btInsert(src []byte, pos int, c uint32, record bool, n, best int) int {
	son := h.chain
	mask := h.mask
	avail := len(src) - pos
	limit := min(avail, h.nice)
	cyc := pos & mask
	ptr1 := cyc << 1 // where the next smaller node goes
	ptr0 := ptr1 + 1 // where the next larger node goes
	len0, len1 := 0, 0
	for d := h.depth; ; d-- {
		p := int(c) - 1
		if c == 0 || d == 0 || pos-p > mask {
			son[ptr0], son[ptr1] = 0, 0
			break
		}
		pair := (p & mask) << 1
		l := min(len0, len1)
		if src[p+l] == src[pos+l] {
			l += 1 + matchLen(src, p+l+1, pos+l+1, limit-l-1)
			if record && l > best {
				best = l
				h.lens[n] = uint32(l)
				h.dists[n] = uint32(pos - p - 1)
				n++
			}
			if l >= limit {
				son[ptr1] = son[pair]
				son[ptr0] = son[pair+1]
				break
			}
		}
		if src[p+l] < src[pos+l] {
			son[ptr1] = c
			ptr1 = pair + 1
			c = son[ptr1]
			len1 = l
		} else {
			son[ptr0] = c
			ptr0 = pair
			c = son[ptr0]
			len0 = l
		}
	}
	if record && n > 0 && best == limit && limit < avail {
		// The tree stops at nice: extend the longest match.
		d := int(h.dists[n-1]) + 1
		h.lens[n-1] = uint32(matchLen(src, pos-d, pos, min(avail, maxMatchLen)))
	}
	return n
}

// Sparse indexing of stored stretches (see Encoder.storeRandom).
const (
	sparseStep = 8  // every 8th position (from the block's start) is indexed
	probeLen   = 16 // a probe hit is a match of at least this length
	probeDepth = 4  // hash-chain links a probe follows
	// probed points of a window: a duplicate that starts inside a window is
	// found at the next point
	probePoints = 4
)

// insertSparse indexes the positions of [next, end) that are multiples of
// sparseStep, without searching, and moves next to end. A binary-tree
// node is inserted as a tree of its own (the bucket's older nodes are
// dropped): it is valid, if poorer.
func (h *hashChain) insertSparse(src []byte, end int) {
	lim := min(end, len(src)-3)
	for p := (h.next + sparseStep - 1) &^ (sparseStep - 1); p < lim; p += sparseStep {
		k := hash4(binary.LittleEndian.Uint32(src[p:]), h.shift)
		switch {
		case h.bt:
			i := (p & h.mask) << 1
			h.chain[i], h.chain[i+1] = 0, 0
		case h.chain != nil:
			h.chain[p&h.mask] = h.head4[k]
		}
		h.head4[k] = uint32(p + 1)
	}
	if end > h.next {
		h.next = end
	}
}

// probe reports whether one of sparseStep consecutive positions at each of
// probePoints points of [pos, end) starts a match of at least probeLen
// bytes with an indexed position: the head of its 4-byte hash, or up to
// probeDepth links down its chain. It changes nothing.
func (h *hashChain) probe(src []byte, pos, end int) bool {
	for i := 0; i < probePoints; i++ {
		x := pos + (end-pos)*i/probePoints
		if h.probeAt(src, x, min(x+sparseStep, end)) {
			return true
		}
	}
	return false
}

func (h *hashChain) probeAt(src []byte, pos, end int) bool {
	lim := pos - h.mask
	for x := pos; x < end && x+probeLen <= len(src); x++ {
		c := h.head4[hash4(binary.LittleEndian.Uint32(src[x:]), h.shift)]
		for d := 0; c != 0 && d < probeDepth; d++ {
			p := int(c) - 1
			if p < lim || p >= x {
				break
			}
			if matchLen(src, p, x, probeLen) == probeLen {
				return true
			}
			if h.chain == nil || h.bt {
				break
			}
			c = h.chain[p&h.mask]
		}
	}
	return false
}
