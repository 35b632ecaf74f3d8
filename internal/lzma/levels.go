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

// levels maps a level to the encoder settings, fast to best. Chosen on
// real NVIDIA libraries of CUDA 11.8, 12.4 and 13 (bench/README.md,
// bench/results/device-2026-11-26.md; 24 MiB blocks, 16 cores): lazy
// parsing with one 4-byte-hash candidate (1) is 0.958-0.994x the size of
// xz -1 at 0.43-0.73x its wall, where greedy parsing (the earlier 1) was
// 0.975-1.007x; its head of 2^19 entries (was 2^18) is 1.0-1.2 % smaller
// again on 11.8 and 12.4 at about the same CPU; the binary tree of depth 16 (5) is 0.998-1.0005x xz -6;
// the default (4) stays a hash chain: 1.002-1.007x xz -6 at 0.49-0.82x
// its wall, where a binary tree is as slow as xz -6 on 11.8 and 13; 6
// searches deeper than 5 (depth 32, nice 128: the earlier depth 24, nice
// 64 came out 0.01 % larger than 5 on the 48 MiB 11.8 and 12.4 samples,
// this one 0.07 % and 0.01 % smaller).
var levels = [...]Params{
	1: {Depth: 1, Nice: 16, HashBits: 19, NoHash3: true},
	2: {Depth: 2, Nice: 16, HashBits: 18, NoHash3: true},
	3: {Depth: 4, Nice: 16},
	4: {Optimal: true, Depth: 4, Nice: 32},
	5: {Optimal: true, BinaryTree: true, Depth: 16, Nice: 64},
	6: {Optimal: true, BinaryTree: true, Depth: 32, Nice: 128},
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
