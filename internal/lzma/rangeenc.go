package lzma

// prob is an adaptive binary probability: the chance that the next bit is
// 0, in units of 1/2048.
type prob uint16

const (
	probBits     = 11
	probInit     = prob(1 << (probBits - 1))
	moveBits     = 5
	priceShift   = 4 // prices are in 1/16 bit
	reduceBits   = 4 // probPrices is indexed by prob >> reduceBits
	infinityCost = 1 << 30
)

// probPrices[p>>4] is the cost, in 1/16 bit, of coding a bit whose
// probability is p/2048. Integer-only so that it is the same everywhere.
var probPrices [1 << (probBits - reduceBits)]uint32

func init() {
	for i := range probPrices {
		w := uint32(i<<reduceBits) + 1<<(reduceBits-1)
		bitCount := uint32(0)
		for j := 0; j < priceShift; j++ {
			w *= w
			bitCount <<= 1
			for w >= 1<<16 {
				w >>= 1
				bitCount++
			}
		}
		probPrices[i] = probBits<<priceShift - 15 - bitCount
	}
}

func price0(p prob) uint32 { return probPrices[p>>reduceBits] }
func price1(p prob) uint32 { return probPrices[(p^(1<<probBits-1))>>reduceBits] }
func priceBit(p prob, bit uint32) uint32 {
	if bit == 0 {
		return price0(p)
	}
	return price1(p)
}

// rangeEncoder is LZMA's carry-propagating binary range coder.
type rangeEncoder struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int64
	out       []byte
}

func (rc *rangeEncoder) reset() {
	rc.low = 0
	rc.rng = 0xFFFFFFFF
	rc.cache = 0
	rc.cacheSize = 1
	rc.out = rc.out[:0]
}

// pending is an upper bound of the bytes the coder has produced once flushed.
func (rc *rangeEncoder) pending() int { return len(rc.out) + int(rc.cacheSize) + 4 }

func (rc *rangeEncoder) shiftLow() {
	if uint32(rc.low) < 0xFF000000 || rc.low>>32 != 0 {
		carry := byte(rc.low >> 32)
		temp := rc.cache
		for {
			rc.out = append(rc.out, temp+carry)
			temp = 0xFF
			rc.cacheSize--
			if rc.cacheSize == 0 {
				break
			}
		}
		rc.cache = byte(rc.low >> 24)
	}
	rc.cacheSize++
	rc.low = (rc.low & 0x00FFFFFF) << 8
}

func (rc *rangeEncoder) flush() {
	for i := 0; i < 5; i++ {
		rc.shiftLow()
	}
}

func (rc *rangeEncoder) encodeBit(p *prob, bit uint32) {
	bound := (rc.rng >> probBits) * uint32(*p)
	if bit == 0 {
		rc.rng = bound
		*p += (1<<probBits - *p) >> moveBits
	} else {
		rc.low += uint64(bound)
		rc.rng -= bound
		*p -= *p >> moveBits
	}
	for rc.rng < 1<<24 {
		rc.rng <<= 8
		rc.shiftLow()
	}
}

func (rc *rangeEncoder) encodeDirect(v uint32, n int) {
	for n > 0 {
		n--
		rc.rng >>= 1
		if (v>>uint(n))&1 != 0 {
			rc.low += uint64(rc.rng)
		}
		for rc.rng < 1<<24 {
			rc.rng <<= 8
			rc.shiftLow()
		}
	}
}

// encodeTree codes the n low bits of sym, high bit first, with the bit tree
// probs[1:1<<n].
func (rc *rangeEncoder) encodeTree(probs []prob, n int, sym uint32) {
	m := uint32(1)
	for i := n - 1; i >= 0; i-- {
		bit := (sym >> uint(i)) & 1
		rc.encodeBit(&probs[m], bit)
		m = m<<1 | bit
	}
}

// encodeReverse codes the n low bits of sym, low bit first.
func (rc *rangeEncoder) encodeReverse(probs []prob, n int, sym uint32) {
	m := uint32(1)
	for i := 0; i < n; i++ {
		bit := sym & 1
		sym >>= 1
		rc.encodeBit(&probs[m], bit)
		m = m<<1 | bit
	}
}

func treePrice(probs []prob, n int, sym uint32) uint32 {
	price := uint32(0)
	m := uint32(1)
	for i := n - 1; i >= 0; i-- {
		bit := (sym >> uint(i)) & 1
		price += priceBit(probs[m], bit)
		m = m<<1 | bit
	}
	return price
}

func reversePrice(probs []prob, n int, sym uint32) uint32 {
	price := uint32(0)
	m := uint32(1)
	for i := 0; i < n; i++ {
		bit := sym & 1
		sym >>= 1
		price += priceBit(probs[m], bit)
		m = m<<1 | bit
	}
	return price
}
