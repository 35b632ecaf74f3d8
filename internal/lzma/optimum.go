package lzma

// optimum plans the symbols from pos with price-based near-optimal parsing
// (after the LZMA SDK's GetOptimum, without the two-step literal/rep0
// extensions) and leaves them in e.ops.
func (e *Encoder) optimum(pos int) {
	src := e.src
	mf := &e.mf
	m := &e.m
	nice := e.p.Nice
	ops := e.ops[:0]
	n := mf.find(src, pos)
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
	o1.price = price0(m.isMatch[state][ps]) + m.litPrice(state, prev, curByte, matchByte)
	o1.posPrev, o1.back = 0, -1
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
	for i := 2; i <= lenEnd; i++ {
		opts[i].price = infinityCost
	}
	for i := 0; i < 4; i++ {
		rl := repLens[i]
		if rl < 2 {
			continue
		}
		base := repMatchPrice + m.pureRepPrice(i, state, ps)
		lp := &m.repLenC.prices[ps]
		for l := rl; l >= 2; l-- {
			if p := base + lp[l-minMatchLen]; p < opts[l].price {
				opts[l] = optimal{price: p, posPrev: 0, back: int32(i)}
			}
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
		pp := &opts[o.posPrev]
		st, reps := pp.state, pp.reps
		switch b := o.back; {
		case b < 0:
			st = litNext(st)
		case b < 4:
			if b == 0 && int(o.posPrev) == cur-1 {
				st = shortRepNext(st)
			} else {
				st = repNext(st)
				d := reps[b]
				copy(reps[1:b+1], reps[:b])
				reps[0] = d
			}
		default:
			st = matchNext(st)
			reps[3], reps[2], reps[1], reps[0] = reps[2], reps[1], reps[0], uint32(b-4)
		}
		o.state, o.reps = st, reps

		p := pos + cur
		n = mf.find(src, p)
		newLen := 0
		if n > 0 {
			newLen = int(mf.lens[n-1])
		}
		if newLen >= nice {
			e.backtrack(cur)
			e.ops = append(e.ops, op{kind: opMatch, len: uint16(newLen), dist: mf.dists[n-1]})
			mf.skipTo(src, p+newLen)
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
		if lp := curPrice + price0(m.isMatch[st][ps]) + m.litPrice(st, src[p-1], curByte, matchByte); lp < next.price {
			next.price, next.posPrev, next.back = lp, int32(cur), -1
		}
		mPrice := curPrice + price1(m.isMatch[st][ps])
		repMPrice := mPrice + price1(m.isRep[st])
		if matchByte == curByte && !(int(next.posPrev) == cur && next.back == 0) {
			if sp := repMPrice + m.shortRepPrice(st, ps); sp <= next.price {
				next.price, next.posPrev, next.back = sp, int32(cur), 0
			}
		}
		availFull := min(len(src)-p, numOpts-1-cur, maxMatchLen)
		if availFull < 2 {
			continue
		}
		startLen := 2
		for ri := 0; ri < 4; ri++ {
			d := int(reps[ri]) + 1
			if d > p || src[p] != src[p-d] || src[p+1] != src[p+1-d] {
				continue
			}
			rl := matchLen(src, p-d, p, availFull)
			for lenEnd < cur+rl {
				lenEnd++
				opts[lenEnd].price = infinityCost
			}
			base := repMPrice + m.pureRepPrice(ri, st, ps)
			lp := &m.repLenC.prices[ps]
			for l := rl; l >= 2; l-- {
				if pr := base + lp[l-minMatchLen]; pr < opts[cur+l].price {
					t := &opts[cur+l]
					t.price, t.posPrev, t.back = pr, int32(cur), int32(ri)
				}
			}
			if ri == 0 {
				startLen = rl + 1
			}
		}
		if newLen > availFull {
			newLen = availFull
			for n > 1 && int(mf.lens[n-2]) >= newLen {
				n--
			}
		}
		if newLen >= startLen {
			nm := mPrice + price0(m.isRep[st])
			for lenEnd < cur+newLen {
				lenEnd++
				opts[lenEnd].price = infinityCost
			}
			lp := &m.lenC.prices[ps]
			i := 0
			for l := startLen; l <= newLen; l++ {
				for int(mf.lens[i]) < l {
					i++
				}
				d := mf.dists[i]
				if pr := nm + lp[l-minMatchLen] + m.distPrice(d, l); pr < opts[cur+l].price {
					t := &opts[cur+l]
					t.price, t.posPrev, t.back = pr, int32(cur), int32(d)+4
				}
			}
		}
	}
}

// backtrack turns the path ending at opts[cur] into e.ops, in order.
func (e *Encoder) backtrack(cur int) {
	opts := e.opts
	ops := e.ops[:0]
	for i := cur; i > 0; {
		o := &opts[i]
		pp := int(o.posPrev)
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
