package lzma

import "encoding/binary"

// op kinds
const (
	opLit = iota
	opShortRep
	opRep
	opMatch
)

// op is one planned LZMA symbol. For opRep, idx is the planned rep index and
// dist the distance it stood for; for opMatch, dist is the 0-based distance.
type op struct {
	kind uint8
	idx  uint8
	len  uint16
	dist uint32
}

type optimal struct {
	price   uint32
	posPrev int32
	back    int32 // -1 literal, 0..3 rep index, >= 4: distance+4
	state   uint32
	reps    [4]uint32
}

const numOpts = 1 << 12

// Params configure an Encoder. The output is a pure function of the input
// and the Params.
type Params struct {
	// Optimal selects price-based near-optimal parsing; otherwise the
	// fast lazy parser is used.
	Optimal bool
	// Depth is the hash-chain search depth, Nice the length at which a
	// match is taken without looking further.
	Depth, Nice int
	// Greedy makes the fast parser take the longest match without looking
	// one position ahead.
	Greedy bool
	// BinaryTree selects the binary-tree match finder (bt4) instead of
	// the hash chain (hc4).
	BinaryTree bool
	// HashBits is the size (log2 entries) of the 4-byte hash table
	// (default 20). Smaller tables stay in cache: faster, fewer matches.
	HashBits int
	// NoHash3 turns off the 3-byte hash table: only matches of 4 bytes and
	// more are found. Faster (one random load less per position), and with
	// the greedy parser also smaller on machine code, where a short match
	// far back costs more bits than its literals (on real NVIDIA libraries:
	// 0.488 against 0.511 at preset 1's settings).
	NoHash3 bool
	// DictSize is the dictionary size, a power of two (default 8 MiB):
	// matches reach at most this far back.
	DictSize int
}

// Encoder encodes LZMA2 streams. It keeps its tables between calls; it is
// not safe for concurrent use.
type Encoder struct {
	p    Params
	m    model
	rc   rangeEncoder
	mf   hashChain
	opts []optimal
	ops  []op
	src  []byte

	// fast parser lookahead cache
	cached bool
	cn     int
	clens  [maxMatchLen + 1]uint32
	cdists [maxMatchLen + 1]uint32

	// LZMA2 chunk state
	needDict, needProps, needState bool
}

// NewEncoder returns an encoder with parameters p.
func NewEncoder(p Params) *Encoder {
	if p.Nice < 8 {
		p.Nice = 8
	}
	if p.Nice > maxMatchLen {
		p.Nice = maxMatchLen
	}
	if p.Depth < 1 {
		p.Depth = 1
	}
	if p.DictSize <= 0 {
		p.DictSize = 8 << 20
	}
	if p.DictSize&(p.DictSize-1) != 0 || p.DictSize < 1<<16 {
		panic("lzma: DictSize must be a power of two >= 64 KiB")
	}
	e := &Encoder{p: p}
	e.mf.mask = p.DictSize - 1
	e.mf.bt = p.BinaryTree
	e.mf.noHash3 = p.NoHash3
	if p.HashBits < 10 || p.HashBits > 24 {
		p.HashBits = 20
	}
	e.mf.shift = uint32(32 - p.HashBits)
	e.mf.depth = p.Depth
	e.mf.nice = p.Nice
	if p.Optimal {
		e.opts = make([]optimal, numOpts+1)
	}
	return e
}

const (
	chunkMaxU = 1 << 21 // uncompressed bytes in one LZMA chunk
	chunkMaxC = 1 << 16 // compressed bytes in one LZMA chunk
	// margin for the bytes one more symbol and the flush can add
	chunkMargin = 64
	copyMax     = 1 << 16 // bytes in one uncompressed chunk
)

// Encode appends the LZMA2 encoding of src (dictionary reset at its start,
// end marker at its end) to dst. Matches reach back at most DictSize bytes
// (DictSize-1 plus one: distances are below DictSize).
func (e *Encoder) Encode(dst, src []byte) []byte {
	e.src = src
	e.mf.reset(len(src))
	e.m.init()
	e.m.updatePrices()
	e.rc.reset()
	e.cached = false
	e.needDict, e.needProps, e.needState = true, true, false
	pos, start := 0, 0
	for pos < len(src) {
		if e.p.Optimal {
			e.optimum(pos)
		} else {
			e.ops = append(e.ops[:0], e.fast(pos))
		}
		for _, o := range e.ops {
			l := int(o.len)
			if pos-start+l > chunkMaxU || e.rc.pending()+chunkMargin > chunkMaxC {
				dst = e.endChunk(dst, src[start:pos])
				start = pos
			}
			e.emit(o, pos)
			pos += l
		}
	}
	if pos > start {
		dst = e.endChunk(dst, src[start:pos])
	}
	e.src = nil
	return append(dst, 0x00)
}

// emit codes o at pos. A planned rep whose distance is no longer in the
// rep set (after a state reset) is coded as a plain match or literal.
func (e *Encoder) emit(o op, pos int) {
	m := &e.m
	switch o.kind {
	case opLit:
		m.encodeLiteral(&e.rc, e.src, pos)
		return
	case opShortRep:
		if m.reps[0] == o.dist && int(o.dist) < pos {
			m.encodeShortRep(&e.rc, pos)
		} else {
			m.encodeLiteral(&e.rc, e.src, pos)
		}
		return
	case opRep:
		for i := 0; i < 4; i++ {
			if m.reps[i] == o.dist && int(o.dist) < pos {
				m.encodeRep(&e.rc, pos, i, int(o.len))
				e.refresh()
				return
			}
		}
	}
	m.encodeMatch(&e.rc, pos, o.dist, int(o.len))
	e.refresh()
}

// refresh updates stale price tables (optimal parser only).
func (e *Encoder) refresh() {
	if !e.p.Optimal {
		return
	}
	m := &e.m
	if m.matchCount >= 128 {
		m.updateDistPrices()
	}
	if m.alignCount >= 16 {
		m.updateAlignPrices()
	}
	if m.lenC.count >= 256 {
		m.lenC.updatePrices()
	}
	if m.repLenC.count >= 256 {
		m.repLenC.updatePrices()
	}
}

// endChunk writes the chunk for raw (the bytes coded since the last chunk),
// compressed if that is smaller, else stored.
func (e *Encoder) endChunk(dst, raw []byte) []byte {
	e.rc.flush()
	data := e.rc.out
	if len(data) < len(raw) && len(data) <= chunkMaxC {
		ctl := byte(0x80)
		switch {
		case e.needDict:
			ctl |= 3 << 5
		case e.needProps:
			ctl |= 2 << 5
		case e.needState:
			ctl |= 1 << 5
		}
		u, c := len(raw)-1, len(data)-1
		dst = append(dst, ctl|byte(u>>16))
		dst = binary.BigEndian.AppendUint16(dst, uint16(u))
		dst = binary.BigEndian.AppendUint16(dst, uint16(c))
		if e.needProps || e.needDict {
			dst = append(dst, propsByte)
		}
		dst = append(dst, data...)
		e.needDict, e.needProps, e.needState = false, false, false
	} else {
		for len(raw) > 0 {
			k := min(len(raw), copyMax)
			ctl := byte(2)
			if e.needDict {
				ctl = 1
			}
			dst = append(dst, ctl)
			dst = binary.BigEndian.AppendUint16(dst, uint16(k-1))
			dst = append(dst, raw[:k]...)
			raw = raw[k:]
			e.needDict = false
		}
		// The decoder did not see the symbols: restart the model.
		e.needState = true
		e.m.init()
		e.m.updatePrices()
	}
	e.rc.reset()
	return dst
}

func changePair(small, big uint32) bool { return big>>7 > small }

// fast is the lazy parser (after LZMA SDK's GetOptimumFast): one symbol at
// pos, with a one-position lookahead kept for the next call.
func (e *Encoder) fast(pos int) op {
	src := e.src
	mf := &e.mf
	var n int
	var lens, dists *[maxMatchLen + 1]uint32
	if e.cached {
		e.cached = false
		n = e.cn
		lens, dists = &e.clens, &e.cdists
	} else {
		n = mf.find(src, pos)
		lens, dists = &mf.lens, &mf.dists
	}
	avail := len(src) - pos
	lit := op{kind: opLit, len: 1}
	if avail < 2 {
		return lit
	}
	maxLen := min(avail, maxMatchLen)
	repLen, repIdx := 0, 0
	for i := 0; i < 4; i++ {
		d := int(e.m.reps[i]) + 1
		if d > pos || src[pos] != src[pos-d] || src[pos+1] != src[pos+1-d] {
			continue
		}
		l := matchLen(src, pos-d, pos, maxLen)
		if l >= e.p.Nice {
			mf.skipTo(src, pos+l)
			return op{kind: opRep, idx: uint8(i), len: uint16(l), dist: e.m.reps[i]}
		}
		if l > repLen {
			repLen, repIdx = l, i
		}
	}
	mainLen, mainDist := 0, uint32(0)
	if n > 0 {
		mainLen, mainDist = int(lens[n-1]), dists[n-1]
		if mainLen >= e.p.Nice {
			mf.skipTo(src, pos+mainLen)
			return op{kind: opMatch, len: uint16(mainLen), dist: mainDist}
		}
		for n > 1 && int(lens[n-2])+1 == mainLen && changePair(dists[n-2], mainDist) {
			n--
			mainLen, mainDist = int(lens[n-1]), dists[n-1]
		}
		if mainLen == 2 && mainDist >= 0x80 {
			mainLen = 1
		}
	}
	if repLen >= 2 && (repLen+1 >= mainLen || repLen+2 >= mainLen && mainDist >= 1<<9 ||
		repLen+3 >= mainLen && mainDist >= 1<<15) {
		mf.skipTo(src, pos+repLen)
		return op{kind: opRep, idx: uint8(repIdx), len: uint16(repLen), dist: e.m.reps[repIdx]}
	}
	if mainLen < 2 || avail <= 2 {
		return lit
	}
	if e.p.Greedy {
		mf.skipTo(src, pos+mainLen)
		return op{kind: opMatch, len: uint16(mainLen), dist: mainDist}
	}
	// Look one position ahead.
	n2 := mf.find(src, pos+1)
	e.cached, e.cn = true, n2
	copy(e.clens[:n2], mf.lens[:n2])
	copy(e.cdists[:n2], mf.dists[:n2])
	if n2 > 0 {
		nl, nd := int(e.clens[n2-1]), e.cdists[n2-1]
		if nl >= mainLen && nd < mainDist || nl == mainLen+1 && !changePair(mainDist, nd) ||
			nl > mainLen+1 || nl+1 >= mainLen && mainLen >= 3 && changePair(nd, mainDist) {
			return lit
		}
	}
	limit := max(mainLen-1, 2)
	for i := 0; i < 4; i++ {
		d := int(e.m.reps[i]) + 1
		if d > pos+1 {
			continue
		}
		if matchLen(src, pos+1-d, pos+1, min(limit, avail-1)) >= limit {
			return lit
		}
	}
	e.cached = false
	mf.skipTo(src, pos+mainLen)
	return op{kind: opMatch, len: uint16(mainLen), dist: mainDist}
}
