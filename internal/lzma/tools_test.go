package lzma

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

// boundaryInputs straddle the LZMA2 chunk limits (2 MiB uncompressed per
// chunk, 64 KiB per stored chunk) and a small dictionary's wrap-around.
func boundaryInputs() map[string][]byte {
	rng := rand.New(rand.NewSource(7))
	random := make([]byte, 2<<20+1)
	rng.Read(random)
	text := bytes.Repeat([]byte("cudaMalloc cudaFree cudaMemcpyAsync __global__ void k(int*p){p[0]=1;}\n"), 40000)
	m := map[string][]byte{
		"stored-64K-1": random[:1<<16-1],
		"stored-64K":   random[:1<<16],
		"stored-64K+1": random[:1<<16+1],
		"random-2M+1":  random,
		"text-2M":      text[:2<<20],
		"text-2M+1":    text[:2<<20+1],
	}
	// Compressible text with an incompressible stretch in the middle. With
	// the random-stretch detector (ParseAll off) the stretch is stored before
	// it is coded and the LZMA chunk after it keeps the state; with ParseAll
	// it is coded, endChunk falls back to stored chunks, and the LZMA chunk
	// after them must reset the state (TestStoredFallback checks that).
	mix := append(append(append([]byte{}, text[:1<<20]...), random[:1<<18]...), text[:1<<20]...)
	m["text-random-text"] = mix
	return m
}

func allInputs() map[string][]byte {
	m := testInputs()
	for k, v := range boundaryInputs() {
		m[k] = v
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func testDict(p Params) int {
	if p.DictSize == 0 {
		return 8 << 20
	}
	return p.DictSize
}

// TestRoundTripBoundaries decodes the boundary inputs with ulikunitz/xz.
func TestRoundTripBoundaries(t *testing.T) {
	t.Parallel()
	in := boundaryInputs()
	for _, pn := range sortedKeys(testParams) {
		p := testParams[pn]
		for _, name := range sortedKeys(in) {
			enc := encoded(pn, p, name, in[name])
			if out := decodeUlikunitz(t, enc, testDict(p)); !bytes.Equal(out, in[name]) {
				t.Fatalf("%s/%s: round trip mismatch", pn, name)
			}
		}
	}
}

// TestRoundTripXZ decodes with xz(1) in raw LZMA2 mode.
func TestRoundTripXZ(t *testing.T) {
	t.Parallel()
	xz := testutil.RequireTool(t, "xz")
	in := allInputs()
	for _, pn := range sortedKeys(testParams) {
		p := testParams[pn]
		for _, name := range sortedKeys(in) {
			enc := encoded(pn, p, name, in[name])
			cmd := exec.Command(xz, "-d", "-c", "--format=raw", fmt.Sprintf("--lzma2=dict=%d", testDict(p)))
			cmd.Stdin = bytes.NewReader(enc)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s/%s: xz -d: %v: %s", pn, name, err, stderr.String())
			}
			if !bytes.Equal(out, in[name]) {
				t.Fatalf("%s/%s: xz -d output differs", pn, name)
			}
		}
	}
}

// TestRoundTripPython decodes with Python's lzma module (liblzma): one
// interpreter decodes every encoding and prints each output's SHA-256.
func TestRoundTripPython(t *testing.T) {
	t.Parallel()
	py := testutil.RequireTool(t, "python3")
	in := allInputs()
	dir := t.TempDir()
	var jobs, want []string
	for _, pn := range sortedKeys(testParams) {
		p := testParams[pn]
		for _, name := range []string{"code", "mixed", "zeros", "empty", "one", "text-random-text", "stored-64K+1"} {
			file := filepath.Join(dir, pn+"-"+name)
			if err := os.WriteFile(file, encoded(pn, p, name, in[name]), 0o644); err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, fmt.Sprintf("%d %s", testDict(p), file))
			sum := sha256.Sum256(in[name])
			want = append(want, pn+"/"+name+" "+hex.EncodeToString(sum[:]))
		}
	}
	const script = `import hashlib, lzma, sys
for line in sys.stdin.read().splitlines():
    d, f = line.split(" ", 1)
    data = lzma.decompress(open(f, "rb").read(), format=lzma.FORMAT_RAW,
                           filters=[{"id": lzma.FILTER_LZMA2, "dict_size": int(d)}])
    print(hashlib.sha256(data).hexdigest())
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(strings.Join(jobs, "\n"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python lzma: %v: %s", err, stderr.String())
	}
	got := strings.Fields(string(out))
	if len(got) != len(want) {
		t.Fatalf("python lzma decoded %d of %d encodings:\n%s", len(got), len(want), out)
	}
	for i, w := range want {
		name, sum, _ := strings.Cut(w, " ")
		if got[i] != sum {
			t.Errorf("%s: python lzma output differs", name)
		}
	}
}

// lzma2Controls returns the control bytes of an LZMA2 stream's chunks (end
// marker excluded).
func lzma2Controls(t *testing.T, enc []byte) []byte {
	t.Helper()
	var out []byte
	for off := 0; ; {
		if off >= len(enc) {
			t.Fatalf("no end marker (%d bytes)", len(enc))
		}
		ctl := enc[off]
		switch {
		case ctl == 0x00:
			if off+1 != len(enc) {
				t.Fatalf("end marker at %d of %d bytes", off, len(enc))
			}
			return out
		case ctl == 0x01 || ctl == 0x02:
			if off+3 > len(enc) {
				t.Fatalf("stored chunk header cut at %d", off)
			}
			out = append(out, ctl)
			off += 3 + (int(enc[off+1])<<8 | int(enc[off+2])) + 1
		case ctl >= 0x80:
			if off+5 > len(enc) {
				t.Fatalf("LZMA chunk header cut at %d", off)
			}
			out = append(out, ctl)
			off += 5 + (int(enc[off+3])<<8 | int(enc[off+4])) + 1
			if ctl >= 0xC0 {
				off++ // properties byte
			}
		default:
			t.Fatalf("invalid control byte %#x at %d", ctl, off)
		}
	}
}

// TestStoredFallback checks that incompressible input is stored (the
// output is barely larger than the input) and compressible input is not,
// and that with ParseAll the LZMA chunk after a stored run (endChunk's
// fallback, which restarts the model) resets the state.
func TestStoredFallback(t *testing.T) {
	t.Parallel()
	in := boundaryInputs()
	var parseAll int
	for _, pn := range sortedKeys(testParams) {
		p := testParams[pn]
		if p.ParseAll {
			parseAll++
			var stored, resets int
			ctls := lzma2Controls(t, encoded(pn, p, "text-random-text", in["text-random-text"]))
			t.Logf("%s: text-random-text: chunk controls % x", pn, ctls)
			for i := 1; i < len(ctls); i++ {
				if prev, c := ctls[i-1], ctls[i]; prev <= 0x02 && c >= 0x80 {
					stored++
					if c >= 0xA0 && c <= 0xBF {
						resets++
					} else {
						t.Errorf(
							"%s: text-random-text: chunk %d after a stored run has control %#x, want 0xA0..0xBF (state reset)",
							pn,
							i,
							c,
						)
					}
				}
			}
			if stored == 0 || resets != stored {
				t.Errorf(
					"%s: text-random-text: %d stored runs followed by an LZMA chunk, %d of them reset the state; want >= 1, all",
					pn,
					stored,
					resets,
				)
			}
		}
		r := in["random-2M+1"]
		enc := encoded(pn, p, "random-2M+1", r)
		// 3 header bytes per 64 KiB stored chunk, one end byte.
		if limit := len(r) + 3*(len(r)>>16+1) + 1; len(enc) > limit {
			t.Errorf("%s: random input: %d bytes, want <= %d (stored chunks)", pn, len(enc), limit)
		}
		if enc[0] != 0x01 {
			t.Errorf("%s: random input: first chunk control %#x, want 0x01 (stored, dictionary reset)", pn, enc[0])
		}
		z := NewEncoder(p).Encode(nil, make([]byte, 1<<20))
		if len(z) > 1024 || z[0]&0xE0 != 0xE0 {
			t.Errorf("%s: 1 MiB of zeros: %d bytes, control %#x", pn, len(z), z[0])
		}
	}
	if parseAll == 0 {
		t.Error("no ParseAll entry in testParams: endChunk's stored fallback is not covered")
	}
}

// TestDuplicateRandom: a random block repeated within the dictionary is
// coded as a match, not stored (the random-stretch detector's probe must
// let a duplicated random object through to the parser).
func TestDuplicateRandom(t *testing.T) {
	t.Parallel()
	const n = 256 << 10
	block := make([]byte, n)
	rand.New(rand.NewSource(11)).Read(block)
	in := append(append([]byte{}, block...), block...)
	for _, pn := range sortedKeys(testParams) {
		p := testParams[pn]
		if testDict(p) < 2*n {
			continue // the copy is out of the dictionary's reach
		}
		enc := NewEncoder(p).Encode(nil, in)
		t.Logf("%s: %d -> %d", pn, len(in), len(enc))
		if limit := len(in) * 55 / 100; len(enc) >= limit {
			t.Errorf("%s: random block twice: %d bytes, want < %d (0.55x)", pn, len(enc), limit)
		}
		if out := decodeUlikunitz(t, enc, testDict(p)); !bytes.Equal(out, in) {
			t.Errorf("%s: random block twice: round trip mismatch", pn)
		}
	}
}

// TestGolden pins the encoded bytes: the encoder is deterministic and any
// change to its output must be deliberate (update the hashes with the
// reason in the commit).
func TestGolden(t *testing.T) {
	t.Parallel()
	in := allInputs()
	var sb strings.Builder
	line := func(pn string, p Params) {
		h := sha256.New()
		total := 0
		for _, name := range sortedKeys(in) {
			enc := encoded(pn, p, name, in[name])
			h.Write(enc)
			total += len(enc)
		}
		fmt.Fprintf(&sb, "%s %d %s\n", pn, total, hex.EncodeToString(h.Sum(nil))[:16])
	}
	for _, pn := range sortedKeys(testParams) {
		line(pn, testParams[pn])
	}
	// The levels themselves: archives record their preset, and
	// build-archive must make the same bytes from it later.
	for n := 1; n <= MaxLevel; n++ {
		p, err := Level(n)
		if err != nil {
			t.Fatal(err)
		}
		line(fmt.Sprintf("level%d", n), p)
	}
	const want = `bt 3506521 ed16c300d80377d0
btfast 3606346 8a4c7ccbef9a3352
fast 3526316 b36e037edaf7cc8a
greedy 3569063 e66331215451b5b5
greedy4 3605727 70acd7c96b625645
lazy4 3605772 09d5e994159dd4c5
optimal 3504092 9ee5cbf04e2f5a71
optimal-all 3483521 e0da046ac63eb1bb
level1 3533430 904a08a383e3901f
level2 3528280 8ddbe269877a1333
level3 3527895 80ad0dfac6b51a1e
level4 3506598 e0caecc902c12624
level5 3506510 92172207e2b05a43
level6 3506505 3d7ba45bc1cd6cca
`
	if sb.String() != want {
		t.Errorf("encoded bytes changed:\n%s", sb.String())
	}
}
