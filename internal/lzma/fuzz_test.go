package lzma

import (
	"bytes"
	"testing"
)

// FuzzRoundTrip encodes arbitrary bytes with one of the test parameter sets
// (small dictionaries, so that the dictionary wraps) and decodes them with
// ulikunitz/xz: the result must equal the input, and encoding twice must
// give the same bytes.
func FuzzRoundTrip(f *testing.F) {
	f.Add(byte(0), []byte("hello hello hello"))
	f.Add(byte(1), bytes.Repeat([]byte{0, 1, 2, 3}, 5000))
	f.Add(byte(2), []byte{})
	f.Add(byte(3), []byte{7})
	params := []Params{
		{Depth: 1, Nice: 8, HashBits: 12, DictSize: 1 << 16},
		{Greedy: true, Depth: 2, Nice: 8, HashBits: 12, DictSize: 1 << 16},
		{Optimal: true, Depth: 4, Nice: 16, HashBits: 12, DictSize: 1 << 16},
		{Optimal: true, BinaryTree: true, Depth: 8, Nice: 16, HashBits: 12, DictSize: 1 << 16},
		{Greedy: true, Depth: 1, Nice: 8, HashBits: 12, DictSize: 1 << 16, NoHash3: true},
		{Optimal: true, BinaryTree: true, Depth: 8, Nice: 16, HashBits: 12, DictSize: 1 << 16, NoHash3: true},
	}
	encs := make([]*Encoder, len(params))
	for i, p := range params {
		encs[i] = NewEncoder(p)
	}
	f.Fuzz(func(t *testing.T, sel byte, data []byte) {
		i := int(sel) % len(params)
		enc := encs[i].Encode(nil, data)
		if again := NewEncoder(params[i]).Encode(nil, data); !bytes.Equal(enc, again) {
			t.Fatal("encoding depends on the encoder's history")
		}
		if out := decodeUlikunitz(t, enc, 1<<16); !bytes.Equal(out, data) {
			t.Fatalf("round trip mismatch: %d bytes in, %d out", len(data), len(out))
		}
	})
}
