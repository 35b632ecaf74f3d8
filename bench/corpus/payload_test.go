package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

func TestElfLikeDeterministic(t *testing.T) {
	for _, size := range []int64{0, 1, 100, 5000, 1 << 20} {
		a, b := elfLike(42, size), elfLike(42, size)
		if int64(len(a)) != size || !bytes.Equal(a, b) {
			t.Fatalf("size %d: len %d, equal %v", size, len(a), bytes.Equal(a, b))
		}
	}
	if bytes.Equal(elfLike(1, 4096), elfLike(2, 4096)) {
		t.Fatal("different seeds gave the same payload")
	}
}

// TestElfLikeRatio checks the calibration: xz -6 compresses the payload to
// about a quarter, like real shared libraries.
func TestElfLikeRatio(t *testing.T) {
	xz := testutil.RequireTool(t, "xz")
	const size = 2 << 20
	p := filepath.Join(t.TempDir(), "lib.so")
	if err := os.WriteFile(p, elfLike(7, size), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xz, "-6", "-T1", "-c", p).Output()
	if err != nil {
		t.Fatal(err)
	}
	ratio := float64(len(out)) / size
	t.Logf("xz -6 ratio %.3f", ratio)
	if ratio < 0.20 || ratio > 0.30 {
		t.Errorf("xz -6 ratio %.3f, want 0.20..0.30", ratio)
	}
}
