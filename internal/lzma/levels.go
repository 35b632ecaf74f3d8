package lzma

import "fmt"

// DefaultDictSize is the dictionary of every level: matches reach 8 MiB
// back inside a block (as xz -6). A larger one gained < 0.1 % on real NVIDIA
// libraries and costs 4 bytes of match-finder memory per byte.
const DefaultDictSize = 8 << 20

// DefaultLevel is the level used when none is chosen: price-based optimal
// parsing over a hash chain of depth 4, 8 MiB dictionary (lc=3 lp=0 pb=2).
const DefaultLevel = 4

// MaxLevel is the strongest (slowest) level; levels run from 1 to MaxLevel.
const MaxLevel = len(levels) - 1

// levels maps a level to the encoder settings, fast to best. Measured on
// 32 MiB of libcusparse.so (real NVIDIA aarch64 code, 24 MiB blocks; xz -6
// gives 0.377 on the same bytes in one stream, xz -3 0.409, xz -1 0.570),
// ratio and MB per CPU-second on the loaded 2-core VM:
// 1: 0.490, ~18; 2: 0.445, ~14; 3: 0.44, ~8; 4: 0.415, ~4.5; 5: 0.414, ~3;
// 6: 0.413, ~1. End-to-end numbers are in bench/README.md.
var levels = [...]Params{
	1: {Greedy: true, Depth: 1, Nice: 8, HashBits: 18, NoHash3: true},
	2: {Depth: 1, Nice: 8},
	3: {Depth: 4, Nice: 16},
	4: {Optimal: true, Depth: 4, Nice: 32},
	5: {Optimal: true, Depth: 8, Nice: 48},
	6: {Optimal: true, BinaryTree: true, Depth: 24, Nice: 64},
}

// Level returns the encoder settings of level n (1..MaxLevel), with
// DictSize set to DefaultDictSize. Level 0 is not a level: callers map their
// own "default" to DefaultLevel.
func Level(n int) (Params, error) {
	if n < 1 || n > MaxLevel {
		return Params{}, fmt.Errorf("lzma: level %d out of range 1..%d", n, MaxLevel)
	}
	p := levels[n]
	p.DictSize = DefaultDictSize
	return p, nil
}
