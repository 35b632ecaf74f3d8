package lzma

import "math/bits"

// The encoder always uses lc=3, lp=0, pb=2 (the xz defaults).
const (
	lc            = 3
	posBits       = 2
	posStates     = 1 << posBits
	posMask       = posStates - 1
	numStates     = 12
	minMatchLen   = 2
	maxMatchLen   = 273
	numLenSymbols = maxMatchLen - minMatchLen + 1
	lenStates     = 4
	endPosModel   = 14
	fullDists     = 128
	alignBits     = 4
	propsByte     = (posBits*5+0)*9 + lc // 0x5D
)

func litNext(s uint32) uint32 {
	switch {
	case s < 4:
		return 0
	case s < 10:
		return s - 3
	}
	return s - 6
}

func matchNext(s uint32) uint32 {
	if s < 7 {
		return 7
	}
	return 10
}

func repNext(s uint32) uint32 {
	if s < 7 {
		return 8
	}
	return 11
}

func shortRepNext(s uint32) uint32 {
	if s < 7 {
		return 9
	}
	return 11
}

func lenToState(l int) int {
	if l < minMatchLen+lenStates-1 {
		return l - minMatchLen
	}
	return lenStates - 1
}

// distSlot returns the position slot of a 0-based distance.
func distSlot(d uint32) uint32 {
	if d < 4 {
		return d
	}
	n := uint32(bits.Len32(d)) - 1
	return n<<1 | (d>>(n-1))&1
}

type lenCoder struct {
	choice, choice2 prob
	low             [posStates][8]prob
	mid             [posStates][8]prob
	high            [256]prob
	prices          [posStates][numLenSymbols]uint32
	// tableSize is the number of lengths priced (0: no prices, the fast
	// parser); a pos state's prices are refreshed after tableSize uses
	// (as liblzma does).
	tableSize int
	counters  [posStates]int
}

func (lc *lenCoder) init() {
	lc.choice, lc.choice2 = probInit, probInit
	for ps := range lc.low {
		for i := range lc.low[ps] {
			lc.low[ps][i] = probInit
			lc.mid[ps][i] = probInit
		}
	}
	for i := range lc.high {
		lc.high[i] = probInit
	}
	for ps := range lc.counters {
		lc.updatePrices(uint32(ps))
	}
}

// encode codes l-minMatchLen.
func (lc *lenCoder) encode(rc *rangeEncoder, l uint32, ps uint32) {
	if l < 8 {
		rc.encodeBit(&lc.choice, 0)
		rc.encodeTree(lc.low[ps][:], 3, l)
	} else if l < 16 {
		rc.encodeBit(&lc.choice, 1)
		rc.encodeBit(&lc.choice2, 0)
		rc.encodeTree(lc.mid[ps][:], 3, l-8)
	} else {
		rc.encodeBit(&lc.choice, 1)
		rc.encodeBit(&lc.choice2, 1)
		rc.encodeTree(lc.high[:], 8, l-16)
	}
	if lc.tableSize > 0 {
		if lc.counters[ps]--; lc.counters[ps] == 0 {
			lc.updatePrices(ps)
		}
	}
}

// updatePrices refreshes the prices of the first tableSize lengths of pos
// state ps.
func (lc *lenCoder) updatePrices(ps uint32) {
	n := lc.tableSize
	if n == 0 {
		return
	}
	lc.counters[ps] = n
	a0 := price0(lc.choice)
	a1 := price1(lc.choice)
	b0 := a1 + price0(lc.choice2)
	b1 := a1 + price1(lc.choice2)
	t := &lc.prices[ps]
	i := 0
	for ; i < n && i < 8; i++ {
		t[i] = a0 + treePrice(lc.low[ps][:], 3, uint32(i))
	}
	for ; i < n && i < 16; i++ {
		t[i] = b0 + treePrice(lc.mid[ps][:], 3, uint32(i-8))
	}
	for ; i < n; i++ {
		t[i] = b1 + treePrice(lc.high[:], 8, uint32(i-16))
	}
}

// model is the adaptive LZMA state shared by encoder and price estimates.
type model struct {
	state      uint32
	reps       [4]uint32
	isMatch    [numStates][posStates]prob
	isRep      [numStates]prob
	isRepG0    [numStates]prob
	isRepG1    [numStates]prob
	isRepG2    [numStates]prob
	isRep0Long [numStates][posStates]prob
	literal    [1 << lc][0x300]prob
	posSlot    [lenStates][64]prob
	posSpecial [fullDists - endPosModel + 1]prob // index 0 unused
	align      [1 << alignBits]prob
	lenC       lenCoder
	repLenC    lenCoder

	slotPrices  [lenStates][64]uint32
	distPrices  [lenStates][fullDists]uint32
	alignPrices [1 << alignBits]uint32
	matchCount  int
	alignCount  int
}

func fill(p []prob) {
	for i := range p {
		p[i] = probInit
	}
}

func (m *model) init() {
	m.state = 0
	m.reps = [4]uint32{}
	for s := 0; s < numStates; s++ {
		fill(m.isMatch[s][:])
		fill(m.isRep0Long[s][:])
	}
	fill(m.isRep[:])
	fill(m.isRepG0[:])
	fill(m.isRepG1[:])
	fill(m.isRepG2[:])
	for i := range m.literal {
		fill(m.literal[i][:])
	}
	for i := range m.posSlot {
		fill(m.posSlot[i][:])
	}
	fill(m.posSpecial[:])
	fill(m.align[:])
	m.lenC.init()
	m.repLenC.init()
}

func (m *model) updatePrices() {
	m.updateDistPrices()
	m.updateAlignPrices()
}

func (m *model) updateAlignPrices() {
	for i := range m.alignPrices {
		m.alignPrices[i] = reversePrice(m.align[:], alignBits, uint32(i))
	}
	m.alignCount = 0
}

func (m *model) updateDistPrices() {
	var special [fullDists]uint32
	for d := uint32(4); d < fullDists; d++ {
		slot := distSlot(d)
		footer := int(slot>>1) - 1
		base := (2 | slot&1) << uint(footer)
		off := int(base) - int(slot)
		special[d] = reversePrice(m.posSpecial[off:], footer, d-base)
	}
	for ls := 0; ls < lenStates; ls++ {
		sp := &m.slotPrices[ls]
		for s := uint32(0); s < 64; s++ {
			p := treePrice(m.posSlot[ls][:], 6, s)
			if s >= endPosModel {
				p += ((s >> 1) - 1 - alignBits) << priceShift
			}
			sp[s] = p
		}
		dp := &m.distPrices[ls]
		for d := uint32(0); d < fullDists; d++ {
			dp[d] = sp[distSlot(d)] + special[d]
		}
	}
	m.matchCount = 0
}

func (m *model) distPrice(d uint32, l int) uint32 {
	ls := lenToState(l)
	if d < fullDists {
		return m.distPrices[ls][d]
	}
	return m.slotPrices[ls][distSlot(d)] + m.alignPrices[d&(1<<alignBits-1)]
}

func (m *model) litPrice(state uint32, prev, cur, match byte) uint32 {
	probs := &m.literal[prev>>(8-lc)]
	sym := uint32(cur) | 0x100
	price := uint32(0)
	if state < 7 {
		for sym < 0x10000 {
			price += priceBit(probs[sym>>8], (sym>>7)&1)
			sym <<= 1
		}
		return price
	}
	offs := uint32(0x100)
	mb := uint32(match)
	for sym < 0x10000 {
		mb <<= 1
		price += priceBit(probs[offs+(mb&offs)+(sym>>8)], (sym>>7)&1)
		sym <<= 1
		offs &= ^(mb ^ sym)
	}
	return price
}

func (m *model) shortRepPrice(state, ps uint32) uint32 {
	return price0(m.isRepG0[state]) + price0(m.isRep0Long[state][ps])
}

func (m *model) pureRepPrice(i int, state, ps uint32) uint32 {
	if i == 0 {
		return price0(m.isRepG0[state]) + price1(m.isRep0Long[state][ps])
	}
	p := price1(m.isRepG0[state])
	if i == 1 {
		return p + price0(m.isRepG1[state])
	}
	return p + price1(m.isRepG1[state]) + priceBit(m.isRepG2[state], uint32(i-2))
}

// repPrice is the price of rep match i of length l (after isMatch and
// isRep, both 1).
func (m *model) repPrice(i, l int, state, ps uint32) uint32 {
	return m.pureRepPrice(i, state, ps) + m.repLenC.prices[ps][l-minMatchLen]
}

// Symbol coding. pos is the position of the symbol in the block.

func (m *model) encodeLiteral(rc *rangeEncoder, src []byte, pos int) {
	ps := uint32(pos) & posMask
	rc.encodeBit(&m.isMatch[m.state][ps], 0)
	prev := byte(0)
	if pos > 0 {
		prev = src[pos-1]
	}
	probs := &m.literal[prev>>(8-lc)]
	sym := uint32(src[pos]) | 0x100
	if m.state < 7 {
		for sym < 0x10000 {
			rc.encodeBit(&probs[sym>>8], (sym>>7)&1)
			sym <<= 1
		}
	} else {
		offs := uint32(0x100)
		mb := uint32(src[pos-int(m.reps[0])-1])
		for sym < 0x10000 {
			mb <<= 1
			rc.encodeBit(&probs[offs+(mb&offs)+(sym>>8)], (sym>>7)&1)
			sym <<= 1
			offs &= ^(mb ^ sym)
		}
	}
	m.state = litNext(m.state)
}

func (m *model) encodeMatch(rc *rangeEncoder, pos int, dist uint32, l int) {
	ps := uint32(pos) & posMask
	rc.encodeBit(&m.isMatch[m.state][ps], 1)
	rc.encodeBit(&m.isRep[m.state], 0)
	m.lenC.encode(rc, uint32(l-minMatchLen), ps)
	slot := distSlot(dist)
	rc.encodeTree(m.posSlot[lenToState(l)][:], 6, slot)
	if slot >= 4 {
		footer := int(slot>>1) - 1
		base := (2 | slot&1) << uint(footer)
		red := dist - base
		if slot < endPosModel {
			rc.encodeReverse(m.posSpecial[int(base)-int(slot):], footer, red)
		} else {
			rc.encodeDirect(red>>alignBits, footer-alignBits)
			rc.encodeReverse(m.align[:], alignBits, red&(1<<alignBits-1))
			m.alignCount++
		}
	}
	m.reps[3], m.reps[2], m.reps[1], m.reps[0] = m.reps[2], m.reps[1], m.reps[0], dist
	m.state = matchNext(m.state)
	m.matchCount++
}

func (m *model) encodeShortRep(rc *rangeEncoder, pos int) {
	ps := uint32(pos) & posMask
	rc.encodeBit(&m.isMatch[m.state][ps], 1)
	rc.encodeBit(&m.isRep[m.state], 1)
	rc.encodeBit(&m.isRepG0[m.state], 0)
	rc.encodeBit(&m.isRep0Long[m.state][ps], 0)
	m.state = shortRepNext(m.state)
}

func (m *model) encodeRep(rc *rangeEncoder, pos int, i int, l int) {
	ps := uint32(pos) & posMask
	s := m.state
	rc.encodeBit(&m.isMatch[s][ps], 1)
	rc.encodeBit(&m.isRep[s], 1)
	if i == 0 {
		rc.encodeBit(&m.isRepG0[s], 0)
		rc.encodeBit(&m.isRep0Long[s][ps], 1)
	} else {
		rc.encodeBit(&m.isRepG0[s], 1)
		d := m.reps[i]
		if i == 1 {
			rc.encodeBit(&m.isRepG1[s], 0)
		} else {
			rc.encodeBit(&m.isRepG1[s], 1)
			rc.encodeBit(&m.isRepG2[s], uint32(i-2))
			if i == 3 {
				m.reps[3] = m.reps[2]
			}
			m.reps[2] = m.reps[1]
		}
		m.reps[1] = m.reps[0]
		m.reps[0] = d
	}
	m.repLenC.encode(rc, uint32(l-minMatchLen), ps)
	m.state = repNext(s)
}
