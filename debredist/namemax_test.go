package debredist

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/hostile"
)

// TestNameMaxOnePolicy: a deb entry with a 256-byte path component is
// refused alike by Convert and ExtractDeb, as unsafe, naming the entry;
// a 255-byte one converts and extracts.
func TestNameMaxOnePolicy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		ok   bool
	}{{"name-component-255", true}, {"name-component-256", false}} {
		b, err := hostile.Deb(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		e := newHostileEnv(t, b, nil)
		_, cerr := Convert(context.Background(), e.opts)
		deb := filepath.Join(e.root, tc.file+".deb")
		mustWrite(t, deb, b)
		xerr := ExtractDeb(context.Background(), deb, filepath.Join(t.TempDir(), "x"), ExtractOptions{})
		for what, err := range map[string]error{"convert": cerr, "extract": xerr} {
			var de *fault.DebError
			switch {
			case tc.ok && err != nil:
				t.Errorf("%s %s: %v", what, tc.file, err)
			case !tc.ok && (!errors.As(err, &de) || de.Kind != fault.DebUnsafePath ||
				!strings.Contains(err.Error(), "longer than 255 bytes") ||
				!strings.Contains(err.Error(), strings.Repeat("n", 252)+".so1")):
				t.Errorf("%s %s: %v, want the unsafe-path refusal naming the entry", what, tc.file, err)
			}
		}
	}
}
