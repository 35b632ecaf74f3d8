package lzma

import (
	"encoding/binary"
	"math/bits"
)

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
	// prev1Lit: reached by a literal at posPrev-1 and a rep0 from posPrev
	// (back 0); prev2: the literal follows the symbol backPrev2 from
	// posPrev2 (a match or rep), else it is from posPrev-1 itself.
	prev1Lit, prev2     bool
	posPrev2, backPrev2 int32
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
	// (default: half the dictionary's positions, 22 for 8 MiB, 16 MiB of
	// table). Smaller tables stay in cache but fill with candidates that
	// only share a hash.
	HashBits int
	// NoHash3 turns off the 2- and 3-byte hash tables: only matches of 4
	// bytes and more are found. Faster (two random loads fewer per
	// position), and with the greedy parser also smaller on machine code,
	// where a short match far back costs more bits than its literals (on
	// real NVIDIA libraries: 0.488 against 0.511 greedy at depth 1, nice 8,
	// the settings of the earlier level 1 and of bench/corpus).
	NoHash3 bool
	// DictSize is the dictionary size, a power of two (default 8 MiB):
	// matches reach at most this far back.
	DictSize int
	// ParseAll turns off the random-stretch detector: every byte goes
	// through the match finder and the parser, and a stretch of random
	// bytes (compressed GPU code in CUDA libraries) is stored only after it
	// failed to compress. For measuring the detector.
	ParseAll bool
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

	// ahead: the matches of position ahead.pos, found (and the position
	// inserted) by the parser's lookahead, for its next call; see
	// lookahead. The fast parser copies them to clens/cdists (mf.lens
	// still holds the matches of the position it is deciding on), the
	// optimal parser leaves them in mf.lens/dists.
	ahead         lookahead
	clens, cdists [maxMatchLen + 1]uint32

	// LZMA2 chunk state
	needDict, needProps, needState bool
	start                          int // where the open chunk starts

	// stretches to store, from randomSpans
	spans []span
	hist  [256]uint16
}

// lookahead is the parser's read-ahead: n matches found for position pos
// (-1: none). A parser reads ahead only to the position its last planned
// symbol ends at, the next one coded, and drops it when it plans from
// there, so a lookahead is never stale: storeRandom codes on from pos when
// ahead.pos == pos and otherwise has none pending.
type lookahead struct{ pos, n int }

var noAhead = lookahead{pos: -1}

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
		p.DictSize = DefaultDictSize
	}
	if p.DictSize&(p.DictSize-1) != 0 || p.DictSize < 1<<16 {
		panic("lzma: DictSize must be a power of two >= 64 KiB")
	}
	e := &Encoder{p: p}
	e.mf.mask = p.DictSize - 1
	e.mf.bt = p.BinaryTree
	e.mf.noHash3 = p.NoHash3
	if p.HashBits < 10 || p.HashBits > 24 {
		// Half as many entries as the dictionary has positions (liblzma's
		// hc4 size): on real NVIDIA libraries, 2^22 entries for the 8 MiB
		// dictionary were both smaller and faster than 2^20 (fewer chain
		// candidates that only share a hash: 0.4118 against 0.4122 of 24
		// MiB of CUDA 11.8 libcusparse_static.a at preset 4, 30 % less CPU).
		p.HashBits = min(max(bits.Len(uint(p.DictSize))-2, 16), 24)
	}
	e.mf.shift = uint32(32 - p.HashBits)
	e.mf.depth = p.Depth
	e.mf.nice = p.Nice
	if p.Optimal {
		e.opts = make([]optimal, numOpts+1)
		// The parser prices lengths up to nice.
		e.m.lenC.tableSize = p.Nice + 1 - minMatchLen
		e.m.repLenC.tableSize = p.Nice + 1 - minMatchLen
	}
	return e
}

// DictSize returns the dictionary size the encoder works with:
// Params.DictSize, or DefaultDictSize when that was not set. Matches reach
// no further back, so a stream header may declare it.
func (e *Encoder) DictSize() int { return e.p.DictSize }

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
//
// Stretches of random bytes (compressed GPU code in CUDA libraries) are
// stored without running the match finder over them; see randomSpans and
// storeRandom.
func (e *Encoder) Encode(dst, src []byte) []byte {
	e.mf.reset(len(src))
	e.m.init()
	e.m.updatePrices()
	e.rc.reset()
	e.needDict, e.needProps, e.needState = true, true, false
	e.ahead = noAhead
	e.spans = e.spans[:0]
	if !e.p.ParseAll {
		e.spans = e.randomSpans(e.spans, src)
	}
	e.start = 0
	pos := 0
	for _, sp := range e.spans {
		dst, pos = e.code(dst, src, pos, sp.start, sp.start)
		dst, pos = e.storeRandom(dst, src, pos, sp)
	}
	dst, pos = e.code(dst, src, pos, len(src), len(src))
	if pos > e.start {
		dst = e.endChunk(dst, src[e.start:pos])
	}
	e.src = nil
	return append(dst, 0x00)
}

// code parses and codes src from pos until pos >= until (the last symbol
// may reach past until, never past limit: the parser sees src[:limit]) and
// returns the new position. Chunks end as they fill up; the open chunk
// starts at e.start.
func (e *Encoder) code(dst, src []byte, pos, until, limit int) ([]byte, int) {
	e.src = src[:limit]
	for pos < until {
		if e.p.Optimal {
			e.optimum(pos)
		} else {
			e.ops = append(e.ops[:0], e.fast(pos))
		}
		for _, o := range e.ops {
			l := int(o.len)
			if pos-e.start+l > chunkMaxU || e.rc.pending()+chunkMargin > chunkMaxC {
				dst = e.endChunk(dst, src[e.start:pos])
				e.start = pos
			}
			e.emit(o, pos)
			pos += l
		}
	}
	return dst, pos
}

// span is a stretch [start, end) of a block.
type span struct{ start, end int }

// The random-stretch detector looks at windows of randWin bytes from the
// block's start. A window is random when the sum of its byte counts squared
// is below randLimit: uniformly random bytes give randWin + randWin*
// (randWin-1)/256 on average (5116 for 1 KiB, with a standard deviation of
// about 90); machine code, symbol tables and even the headers between
// compressed GPU code objects give far more. Runs of at least randMinRun
// random windows are candidates for storing (switching between coded and
// stored chunks costs about 11 bytes). On the compressed GPU code at the end
// of CUDA 12.4 libcufft and libcublasLt (96 MiB, 24 MiB blocks, preset 4),
// limits of 1.06, 1.10, 1.15, 1.20 and 1.30 times the mean gave 0.9409,
// 0.9407, 0.9407, 0.9408 and 0.9408 of the input, at 3.9, 10.2, 10.7, 13.3
// and 13.7 MB per CPU-second; without the detector 0.9442 at 0.87 (the
// random bytes cost more coded than stored, and reset the model).
const (
	randWinBits = 10
	randWin     = 1 << randWinBits
	randLimit   = 5116 * 115 / 100
	randMinRun  = 4
)

// randomSpans appends to spans the runs of random windows of src, in
// order. It is a pure function of src.
func (e *Encoder) randomSpans(spans []span, src []byte) []span {
	h := &e.hist
	run := 0
	for w := 0; w+randWin <= len(src); w += randWin {
		clear(h[:])
		for _, b := range src[w : w+randWin] {
			h[b]++
		}
		q := 0
		for _, c := range h {
			q += int(c) * int(c)
		}
		if q < randLimit {
			run++
			continue
		}
		if run >= randMinRun {
			spans = append(spans, span{w - run*randWin, w})
		}
		run = 0
	}
	if run >= randMinRun {
		// The tail (less than a window) goes with the run before it.
		w := len(src) &^ (randWin - 1)
		spans = append(spans, span{w - run*randWin, len(src)})
	}
	return spans
}

// storeRandom handles the random windows of sp from pos (sp.start <=
// pos): each window is stored unless the match finder knows a long match
// for its first bytes (the same random bytes earlier in the block: a
// duplicated object), in which case it is coded. Stored windows are
// indexed sparsely (every sparseStep-th position), enough for such probes
// and cheap. Returns the new position (<= sp.end).
func (e *Encoder) storeRandom(dst, src []byte, pos int, sp span) ([]byte, int) {
	stored := pos // start of the stored run being gathered
	for pos < sp.end {
		if pos&(randWin-1) != 0 {
			// A coded match ended inside a window: code to its end.
			dst, pos = e.code(dst, src, pos, min((pos+randWin)&^(randWin-1), sp.end), sp.end)
			stored = pos
			continue
		}
		if e.ahead.pos == pos {
			// The parser's lookahead already indexed pos: code on.
			dst, pos = e.code(dst, src, pos, pos+1, sp.end)
			stored = pos
			continue
		}
		if e.mf.probe(src, pos, min(pos+randWin, sp.end)) {
			if pos > stored {
				dst = e.storeChunks(dst, src[stored:pos])
				e.start = pos
			}
			dst, pos = e.code(dst, src, pos, min(pos+randWin, sp.end), sp.end)
			stored = pos
			continue
		}
		if pos == stored && pos > e.start {
			dst = e.endChunk(dst, src[e.start:pos])
		}
		pos = min(pos+randWin, sp.end)
		e.mf.insertSparse(src, pos)
		e.start = pos
	}
	if pos > stored {
		dst = e.storeChunks(dst, src[stored:pos])
	}
	return dst, pos
}

// storeChunks writes raw as stored chunks (the first resets the dictionary
// when the block has had no chunk yet). The model is not touched.
func (e *Encoder) storeChunks(dst, raw []byte) []byte {
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
	return dst
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
		dst = e.storeChunks(dst, raw)
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
	if e.ahead.pos == pos {
		n = e.ahead.n
		e.ahead = noAhead
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
	e.ahead = lookahead{pos + 1, n2}
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
	e.ahead = noAhead
	mf.skipTo(src, pos+mainLen)
	return op{kind: opMatch, len: uint16(mainLen), dist: mainDist}
}
