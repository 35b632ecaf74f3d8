package archive

import (
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/lzma"
)

// TestCompressions: every format answers its name, aliases, extension and
// presets from its one definition, and the parsers invert them.
func TestCompressions(t *testing.T) {
	for _, tc := range []struct {
		c             Compression
		names         []string
		ext           string
		max, def      int
		outOfRange    int
		wantOutOfText string
	}{
		{XZ, []string{"xz"}, ".tar.xz", lzma.MaxLevel, lzma.DefaultLevel, 7, "archive: xz preset 7 out of range 1..6"},
		{Zstd, []string{"zstd", "zst"}, ".tar.zst", 4, 4, 5, "archive: zstd preset 5 out of range 1..4"},
	} {
		if tc.c.String() != tc.names[0] || tc.c.Ext() != tc.ext || tc.c.MaxPreset() != tc.max ||
			tc.c.DefaultPreset() != tc.def {
			t.Errorf("%v: %q %q %d %d", tc.c, tc.c.String(), tc.c.Ext(), tc.c.MaxPreset(), tc.c.DefaultPreset())
		}
		for _, n := range tc.names {
			if c, err := ParseCompression(n); err != nil || c != tc.c {
				t.Errorf("ParseCompression(%q) = %v, %v", n, c, err)
			}
		}
		if c, ok := CompressionOfExt(tc.ext); !ok || c != tc.c {
			t.Errorf("CompressionOfExt(%q) = %v, %v", tc.ext, c, ok)
		}
		if top, c, ok := TrimExt("a/b-1.0" + tc.ext); !ok || c != tc.c || top != "a/b-1.0" {
			t.Errorf("TrimExt: %q %v %v", top, c, ok)
		}
		if p, err := tc.c.Preset(0); err != nil || p != tc.def {
			t.Errorf("%v.Preset(0) = %d, %v; want the default %d", tc.c, p, err, tc.def)
		}
		if p, err := tc.c.Preset(1); err != nil || p != 1 {
			t.Errorf("%v.Preset(1) = %d, %v", tc.c, p, err)
		}
		for _, bad := range []int{-1, tc.outOfRange} {
			if _, err := tc.c.Preset(bad); err == nil || (bad > 0 && err.Error() != tc.wantOutOfText) {
				t.Errorf("%v.Preset(%d) = %v", tc.c, bad, err)
			}
		}
	}
	if c, err := ParseCompression(""); err != nil || c != XZ {
		t.Errorf(`ParseCompression("") = %v, %v; want xz`, c, err)
	}
	if _, err := ParseCompression("lz4"); err == nil || !strings.Contains(err.Error(), "want xz or zstd") {
		t.Errorf("ParseCompression(lz4) = %v", err)
	}
	if _, _, ok := TrimExt("x.tar.gz"); ok {
		t.Error("TrimExt(x.tar.gz): ok")
	}
	if got := Compressions(); len(got) != 2 || got[0] != XZ {
		t.Errorf("Compressions() = %v, want xz first", got)
	}
}
