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
	// Compressible text with an incompressible stretch in the middle: LZMA
	// chunk, stored chunk, then an LZMA chunk that must reset the state.
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

// TestStoredFallback checks that incompressible input is stored (the
// output is barely larger than the input) and compressible input is not.
func TestStoredFallback(t *testing.T) {
	t.Parallel()
	in := boundaryInputs()
	for _, pn := range sortedKeys(testParams) {
		p := testParams[pn]
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
}

// TestGolden pins the encoded bytes: the encoder is deterministic and any
// change to its output must be deliberate (update the hashes with the
// reason in the commit).
func TestGolden(t *testing.T) {
	t.Parallel()
	in := allInputs()
	var sb strings.Builder
	for _, pn := range sortedKeys(testParams) {
		p := testParams[pn]
		h := sha256.New()
		total := 0
		for _, name := range sortedKeys(in) {
			enc := encoded(pn, p, name, in[name])
			h.Write(enc)
			total += len(enc)
		}
		fmt.Fprintf(&sb, "%s %d %s\n", pn, total, hex.EncodeToString(h.Sum(nil))[:16])
	}
	const want = `bt 3506521 ed16c300d80377d0
btfast 3606346 8a4c7ccbef9a3352
fast 3526316 b36e037edaf7cc8a
greedy 3569063 e66331215451b5b5
greedy4 3605727 70acd7c96b625645
lazy4 3605772 09d5e994159dd4c5
optimal 3504092 9ee5cbf04e2f5a71
`
	if sb.String() != want {
		t.Errorf("encoded bytes changed:\n%s", sb.String())
	}
}
