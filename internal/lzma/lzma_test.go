package lzma

import (
	"bytes"
	"io"
	"math/rand"
	"sync"
	"testing"

	ulz "github.com/ulikunitz/xz/lzma"
)

func decodeUlikunitz(t testing.TB, enc []byte, dictCap int) []byte {
	t.Helper()
	r, err := ulz.Reader2Config{DictCap: max(dictCap, 4096)}.NewReader2(bytes.NewReader(enc))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return out
}

func testInputs() map[string][]byte {
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 300<<10)
	rng.Read(random)
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog 0123456789\n"), 5000)
	mixed := make([]byte, 0, 1<<20)
	for len(mixed) < 1<<20 {
		switch rng.Intn(4) {
		case 0:
			b := make([]byte, rng.Intn(5000))
			rng.Read(b)
			mixed = append(mixed, b...)
		case 1:
			mixed = append(mixed, text[:rng.Intn(4000)]...)
		case 2:
			if len(mixed) > 100 {
				s := rng.Intn(len(mixed) - 50)
				l := rng.Intn(min(len(mixed)-s, 3000))
				mixed = append(mixed, mixed[s:s+l]...)
			}
		case 3:
			mixed = append(mixed, make([]byte, rng.Intn(2000))...)
		}
	}
	// Machine-code-like: 4-byte words from a skewed vocabulary, some with
	// random immediates, and repeats of recent runs: short matches at many
	// distances, where the optimal parser's two-step paths (literal + rep0,
	// match + literal + rep0) and the 2- and 3-byte matches matter.
	code := make([]byte, 0, 600<<10)
	vocab := make([]uint32, 512)
	for i := range vocab {
		vocab[i] = rng.Uint32()
	}
	for len(code) < 600<<10 {
		switch x := rng.Intn(100); {
		case x < 8 && len(code) > 1024:
			n := 4 + rng.Intn(60)
			s := len(code) - n - rng.Intn(min(len(code)-n, 1<<15))
			code = append(code, code[s:s+n]...)
		default:
			w := vocab[min(rng.Intn(len(vocab)), rng.Intn(len(vocab)))]
			if rng.Intn(100) < 15 {
				w ^= uint32(rng.Intn(1<<16)) << 8
			}
			code = append(code, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
		}
	}
	return map[string][]byte{
		"code":   code,
		"empty":  {},
		"one":    {42},
		"two":    {1, 2},
		"zeros":  make([]byte, 5<<20),
		"random": random,
		"text":   text,
		"mixed":  mixed,
	}
}

var testParams = map[string]Params{
	"fast":    {Depth: 8, Nice: 32},
	"optimal": {Optimal: true, Depth: 16, Nice: 64},
	"bt":      {Optimal: true, BinaryTree: true, Depth: 24, Nice: 64, DictSize: 1 << 20},
	"greedy":  {Greedy: true, Depth: 1, Nice: 8, HashBits: 14, DictSize: 1 << 20},
	"btfast":  {BinaryTree: true, Depth: 8, Nice: 16, DictSize: 1 << 16},
	"greedy4": {Greedy: true, Depth: 1, Nice: 8, HashBits: 14, DictSize: 1 << 20, NoHash3: true},
	"lazy4":   {Depth: 4, Nice: 16, HashBits: 14, DictSize: 1 << 16, NoHash3: true},
	// The detector off: random stretches are coded, then stored by
	// endChunk's fallback, which resets the state (TestStoredFallback).
	"optimal-all": {Optimal: true, Depth: 16, Nice: 64, ParseAll: true},
}

// encodings memoises NewEncoder(p).Encode of the named test inputs, which
// several (parallel) tests decode with different tools; TestEncoderReuse
// still encodes afresh.
var encodings sync.Map // "param/input" -> []byte

func encoded(pn string, p Params, name string, in []byte) []byte {
	key := pn + "/" + name
	if v, ok := encodings.Load(key); ok {
		return v.([]byte)
	}
	v, _ := encodings.LoadOrStore(key, NewEncoder(p).Encode(nil, in))
	return v.([]byte)
}

func TestRoundTripUlikunitz(t *testing.T) {
	t.Parallel()
	for pn, p := range testParams {
		for name, in := range testInputs() {
			enc := encoded(pn, p, name, in)
			out := decodeUlikunitz(t, enc, len(in))
			if !bytes.Equal(out, in) {
				t.Fatalf("%s/%s: round trip mismatch (%d vs %d bytes)", pn, name, len(out), len(in))
			}
			t.Logf("%s/%s: %d -> %d", pn, name, len(in), len(enc))
		}
	}
}

// TestEncoderReuse checks that an encoder's output does not depend on what
// it encoded before (tables are reset), for every parameter set.
func TestEncoderReuse(t *testing.T) {
	t.Parallel()
	in := testInputs()
	for pn, p := range testParams {
		e := NewEncoder(p)
		for _, name := range []string{"mixed", "random", "text", "one"} {
			got := e.Encode(nil, in[name])
			want := encoded(pn, p, name, in[name]) // a fresh encoder's bytes
			if !bytes.Equal(got, want) {
				t.Fatalf("%s/%s: reused encoder gives different bytes", pn, name)
			}
		}
	}
}
