package lzma

// optimum plans the symbols from pos with price-based near-optimal parsing
// (after the LZMA SDK's GetOptimum and liblzma's
// lzma_encoder_optimum_normal.c, with their two-step paths: a literal then
// rep0, and a match or rep, a literal, then rep0) and leaves them in e.ops.
func (e *Encoder) optimum(pos int) {
	src := e.src
	mf := &e.mf
	m := &e.m
	nice := e.p.Nice
	ops := e.ops[:0]
	var n int
	if e.ahead.pos == pos {
		n = e.ahead.n // found by the previous call (mf.lens/dists hold it)
	} else {
		n = mf.find(src, pos)
	}
	e.ahead = noAhead
	avail := len(src) - pos
	if avail < 2 {
		e.ops = append(ops, op{kind: opLit, len: 1})
		return
	}
	maxLen := min(avail, maxMatchLen)
	var repLens [4]int
	repMax := 0
	for i := 0; i < 4; i++ {
		d := int(m.reps[i]) + 1
		if d > pos || src[pos] != src[pos-d] || src[pos+1] != src[pos+1-d] {
			continue
		}
		repLens[i] = matchLen(src, pos-d, pos, maxLen)
		if repLens[i] > repLens[repMax] {
			repMax = i
		}
	}
	if l := repLens[repMax]; l >= nice {
		mf.skipTo(src, pos+l)
		e.ops = append(ops, op{kind: opRep, idx: uint8(repMax), len: uint16(l), dist: m.reps[repMax]})
		return
	}
	mainLen := 0
	if n > 0 {
		mainLen = int(mf.lens[n-1])
	}
	if mainLen >= nice {
		mf.skipTo(src, pos+mainLen)
		e.ops = append(ops, op{kind: opMatch, len: uint16(mainLen), dist: mf.dists[n-1]})
		return
	}
	state := m.state
	ps := uint32(pos) & posMask
	curByte := src[pos]
	rep0ok := int(m.reps[0]) < pos
	matchByte := ^curByte
	if rep0ok {
		matchByte = src[pos-int(m.reps[0])-1]
	}
	if mainLen < 2 && repLens[repMax] < 2 && matchByte != curByte {
		e.ops = append(ops, op{kind: opLit, len: 1})
		return
	}
	opts := e.opts
	opts[0].state = state
	opts[0].reps = m.reps
	prev := byte(0)
	if pos > 0 {
		prev = src[pos-1]
	}
	o1 := &opts[1]
	o1.set(price0(m.isMatch[state][ps])+m.litPrice(state, prev, curByte, matchByte), 0, -1)
	matchPrice := price1(m.isMatch[state][ps])
	repMatchPrice := matchPrice + price1(m.isRep[state])
	if matchByte == curByte {
		if p := repMatchPrice + m.shortRepPrice(state, ps); p < o1.price {
			o1.price, o1.back = p, 0
		}
	}
	lenEnd := max(mainLen, repLens[repMax])
	if lenEnd < 2 {
		if o1.back == 0 {
			e.ops = append(ops, op{kind: opShortRep, len: 1, dist: m.reps[0]})
		} else {
			e.ops = append(ops, op{kind: opLit, len: 1})
		}
		return
	}
	growTo(opts, 1, lenEnd)
	for i := 0; i < 4; i++ {
		if rl := repLens[i]; rl >= 2 {
			offerRep(opts, 0, rl, int32(i), repMatchPrice+m.pureRepPrice(i, state, ps), &m.repLenC.prices[ps])
		}
	}
	normal := matchPrice + price0(m.isRep[state])
	if l := max(repLens[0]+1, 2); l <= mainLen {
		lp := &m.lenC.prices[ps]
		i := 0
		for ; l <= mainLen; l++ {
			for int(mf.lens[i]) < l {
				i++
			}
			d := mf.dists[i]
			if p := normal + lp[l-minMatchLen] + m.distPrice(d, l); p < opts[l].price {
				opts[l] = optimal{price: p, posPrev: 0, back: int32(d) + 4}
			}
		}
	}

	cur := 0
	for {
		cur++
		if cur == lenEnd {
			e.backtrack(cur)
			return
		}
		o := &opts[cur]
		// The state and reps at cur, from the path that reaches it (after
		// liblzma's lzma_encoder_optimum_normal.c: a two-step path is a
		// literal and a rep0, after a match or rep when prev2).
		posPrev := int(o.posPrev)
		var st uint32
		if o.prev1Lit {
			posPrev--
			if o.prev2 {
				st = opts[o.posPrev2].state
				if o.backPrev2 < 4 {
					st = repNext(st)
				} else {
					st = matchNext(st)
				}
			} else {
				st = opts[posPrev].state
			}
			st = litNext(st)
		} else {
			st = opts[posPrev].state
		}
		var reps [4]uint32
		if posPrev == cur-1 {
			if o.back == 0 {
				st = shortRepNext(st)
			} else {
				st = litNext(st)
			}
			reps = opts[posPrev].reps
		} else {
			var b int32
			if o.prev1Lit && o.prev2 {
				posPrev = int(o.posPrev2)
				b = o.backPrev2
				st = repNext(st)
			} else {
				b = o.back
				if b < 4 {
					st = repNext(st)
				} else {
					st = matchNext(st)
				}
			}
			base := &opts[posPrev].reps
			if b < 4 {
				reps[0] = base[b]
				for i := int32(1); i <= b; i++ {
					reps[i] = base[i-1]
				}
				for i := b + 1; i < 4; i++ {
					reps[i] = base[i]
				}
			} else {
				reps = [4]uint32{uint32(b - 4), base[0], base[1], base[2]}
			}
		}
		o.state, o.reps = st, reps

		p := pos + cur
		n = mf.find(src, p)
		newLen := 0
		if n > 0 {
			newLen = int(mf.lens[n-1])
		}
		if newLen >= nice {
			// Plan up to here; the next call starts with this position's
			// matches (and prefers a rep as long, as liblzma does).
			e.backtrack(cur)
			e.ahead = lookahead{p, n}
			return
		}
		curPrice := o.price
		curByte = src[p]
		rep0ok = int(reps[0]) < p
		matchByte = ^curByte
		if rep0ok {
			matchByte = src[p-int(reps[0])-1]
		}
		ps = uint32(p) & posMask
		next := &opts[cur+1]
		nextIsLit := false
		lit1 := curPrice + price0(m.isMatch[st][ps]) + m.litPrice(st, src[p-1], curByte, matchByte)
		if lit1 < next.price {
			next.set(lit1, int32(cur), -1)
			nextIsLit = true
		}
		mPrice := curPrice + price1(m.isMatch[st][ps])
		repMPrice := mPrice + price1(m.isRep[st])
		if matchByte == curByte && (int(next.posPrev) >= cur || next.back != 0) {
			if sp := repMPrice + m.shortRepPrice(st, ps); sp <= next.price {
				next.set(sp, int32(cur), 0)
				nextIsLit = true
			}
		}
		availFull := min(len(src)-p, numOpts-1-cur)
		if availFull < 2 {
			continue
		}
		avail := min(availFull, nice)
		if !nextIsLit && matchByte != curByte && rep0ok {
			// A literal, then rep0.
			d := int(reps[0]) + 1
			if lt := matchLen(src, p+1-d, p+1, min(availFull, nice+1)-1); lt >= 2 {
				st2 := litNext(st)
				psn := uint32(p+1) & posMask
				offset := cur + 1 + lt
				lenEnd = growTo(opts, lenEnd, offset)
				pr := lit1 + price1(m.isMatch[st2][psn]) + price1(m.isRep[st2]) + m.repPrice(0, lt, st2, psn)
				if t := &opts[offset]; pr < t.price {
					t.set2(pr, int32(cur+1), false, 0, 0)
				}
			}
		}
		startLen := 2
		for ri := 0; ri < 4; ri++ {
			d := int(reps[ri]) + 1
			if d > p || src[p] != src[p-d] || src[p+1] != src[p+1-d] {
				continue
			}
			rl := matchLen(src, p-d, p, avail)
			lenEnd = growTo(opts, lenEnd, cur+rl)
			base := repMPrice + m.pureRepPrice(ri, st, ps)
			lp := &m.repLenC.prices[ps]
			offerRep(opts, cur, rl, int32(ri), base, lp)
			if ri == 0 {
				startLen = rl + 1
			}
			if lt2 := e.rep0After(p, rl, d, availFull); lt2 >= 2 {
				lenEnd = e.litRep0After(p, cur, rl, d, lt2, repNext(st), base+lp[rl-minMatchLen], int32(ri), lenEnd)
			}
		}
		if newLen > avail {
			newLen = avail
			k := 0
			for int(mf.lens[k]) < newLen {
				k++
			}
			mf.lens[k] = uint32(newLen)
			n = k + 1
		}
		if newLen >= startLen {
			nm := mPrice + price0(m.isRep[st])
			lenEnd = growTo(opts, lenEnd, cur+newLen)
			lp := &m.lenC.prices[ps]
			i := 0
			for int(mf.lens[i]) < startLen {
				i++
			}
			for l := startLen; ; l++ {
				dist := mf.dists[i]
				pr := nm + lp[l-minMatchLen] + m.distPrice(dist, l)
				if pr < opts[cur+l].price {
					opts[cur+l].set(pr, int32(cur), int32(dist)+4)
				}
				if l != int(mf.lens[i]) {
					continue
				}
				if lt2 := e.rep0After(p, l, int(dist)+1, availFull); lt2 >= 2 {
					lenEnd = e.litRep0After(p, cur, l, int(dist)+1, lt2, matchNext(st), pr, int32(dist)+4, lenEnd)
				}
				i++
				if i == n {
					break
				}
			}
		}
	}
}

// growTo extends the planned positions to end (from lenEnd, returned as
// end when it was smaller), the new ones not reached yet.
func growTo(opts []optimal, lenEnd, end int) int {
	for lenEnd < end {
		lenEnd++
		opts[lenEnd].price = infinityCost
	}
	return lenEnd
}

// offerRep reaches opts[cur+l], for l from rl down to 2, by a rep of index
// ri and length l from cur where that is cheaper: base is the price at cur
// plus the rep's symbol, lp the rep lengths' prices at cur's pos state.
func offerRep(opts []optimal, cur, rl int, ri int32, base uint32, lp *[numLenSymbols]uint32) {
	for l := rl; l >= 2; l-- {
		if pr := base + lp[l-minMatchLen]; pr < opts[cur+l].price {
			opts[cur+l].set(pr, int32(cur), ri)
		}
	}
}

// rep0After is the length of the rep0 that may follow a rep or match of
// length l and distance d (1-based) from position p and one literal: as
// long as the bytes after the literal agree with those d back, at most
// nice and availFull. Below 2 there is no such path, which its first two
// bytes tell (inlined: most candidates end there).
func (e *Encoder) rep0After(p, l, d, availFull int) int {
	q := p + l + 1
	if availFull < l+3 || e.src[q] != e.src[q-d] || e.src[q+1] != e.src[q+1-d] {
		return 0
	}
	return e.rep0Len(p, l, d, availFull)
}

// rep0Len is rep0After's length once its first two bytes agree.
func (e *Encoder) rep0Len(p, l, d, availFull int) int {
	lt2 := l + 1
	if limit := min(availFull, lt2+e.p.Nice); lt2 < limit {
		lt2 += matchLen(e.src, p-d+lt2, p+lt2, limit-lt2)
	}
	return lt2 - (l + 1)
}

// litRep0After offers liblzma's three-symbol path from cur (position p):
// a rep or match of length l and distance d (1-based), a literal, then a
// rep0 of length lt2 (rep0After's, >= 2). st2 is the state after the first
// symbol, price the price of reaching p+l by it and back2 its back (opts'
// encoding). Returns lenEnd, grown to the path's end.
func (e *Encoder) litRep0After(p, cur, l, d, lt2 int, st2, price uint32, back2 int32, lenEnd int) int {
	src := e.src
	m := &e.m
	psn := uint32(p+l) & posMask
	price += price0(m.isMatch[st2][psn]) + m.litPrice(st2, src[p+l-1], src[p+l], src[p+l-d])
	st2 = litNext(st2)
	psn = uint32(p+l+1) & posMask
	price += price1(m.isMatch[st2][psn]) + price1(m.isRep[st2]) + m.repPrice(0, lt2, st2, psn)
	offset := cur + l + 1 + lt2
	lenEnd = growTo(e.opts, lenEnd, offset)
	if t := &e.opts[offset]; price < t.price {
		t.set2(price, int32(cur+l+1), true, int32(cur), back2)
	}
	return lenEnd
}

// set makes o reached by one symbol from posPrev (back: -1 literal, 0..3
// rep, >= 4 match distance+4).
func (o *optimal) set(price uint32, posPrev, back int32) {
	o.price, o.posPrev, o.back, o.prev1Lit = price, posPrev, back, false
}

// set2 makes o reached by a literal at posPrev-1 and a rep0 from posPrev;
// with prev2, the literal follows the symbol back2 from posPrev2.
func (o *optimal) set2(price uint32, posPrev int32, prev2 bool, posPrev2, back2 int32) {
	o.price, o.posPrev, o.back, o.prev1Lit = price, posPrev, 0, true
	o.prev2, o.posPrev2, o.backPrev2 = prev2, posPrev2, back2
}

// backtrack turns the path ending at opts[cur] into e.ops, in order.
func (e *Encoder) backtrack(cur int) {
	opts := e.opts
	ops := e.ops[:0]
	for i := cur; i > 0; {
		o := &opts[i]
		pp := int(o.posPrev)
		if o.prev1Lit {
			// rep0 from pp, after a literal at pp-1, after the symbol
			// back2 from posPrev2 when prev2.
			lit := pp - 1
			var d uint32
			if o.prev2 {
				if b := o.backPrev2; b < 4 {
					d = opts[o.posPrev2].reps[b]
				} else {
					d = uint32(b - 4)
				}
			} else {
				d = opts[lit].reps[0]
			}
			ops = append(ops, op{kind: opRep, idx: 0, len: uint16(i - pp), dist: d}, op{kind: opLit, len: 1})
			if !o.prev2 {
				i = lit
				continue
			}
			s2 := int(o.posPrev2)
			if b := o.backPrev2; b < 4 {
				ops = append(ops, op{kind: opRep, idx: uint8(b), len: uint16(lit - s2), dist: opts[s2].reps[b]})
			} else {
				ops = append(ops, op{kind: opMatch, len: uint16(lit - s2), dist: uint32(b - 4)})
			}
			i = s2
			continue
		}
		l := i - pp
		switch b := o.back; {
		case b < 0:
			ops = append(ops, op{kind: opLit, len: 1})
		case b < 4:
			d := opts[pp].reps[b]
			if l == 1 && b == 0 {
				ops = append(ops, op{kind: opShortRep, len: 1, dist: d})
			} else {
				ops = append(ops, op{kind: opRep, idx: uint8(b), len: uint16(l), dist: d})
			}
		default:
			ops = append(ops, op{kind: opMatch, len: uint16(l), dist: uint32(b - 4)})
		}
		i = pp
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	e.ops = ops
}
