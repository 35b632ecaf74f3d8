package publish

import (
	"strings"
	"testing"
)

func TestOutPathRefusesEscapes(t *testing.T) {
	t.Parallel()
	out := "/work/out"
	for _, elems := range [][]string{
		{"../../../../PRODUCT-ESCAPE", "redist"},
		{"cuda", "redist", "../../../../../PNAME-ESCAPE/linux-aarch64/x.tar.xz"},
		{"cuda", "/etc/passwd"},
		{"cuda", "redist", "a\x00b"},
		{"cuda", ""},
		{"cuda", "redist", ".."},
	} {
		if p, err := Path(out, elems...); err == nil || !strings.Contains(err.Error(), out) {
			t.Errorf("outPath(%q) = %q, %v: want a refusal naming OUT", elems, p, err)
		}
	}
	p, err := Path(out, "cuda", "redist", "cuda_cudart/linux-aarch64/a.tar.xz")
	if err != nil || p != "/work/out/cuda/redist/cuda_cudart/linux-aarch64/a.tar.xz" {
		t.Errorf("a path inside OUT: %q, %v", p, err)
	}
}
