package debredist

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/hostile"
)

// TestHostileProfiles converts the corpus deb with every hostile profile of
// the corpus, OUT four directories deep so that a traversal would land in
// the test's own directory: each is a usage error naming its field, and
// nothing at all is written (not even OUT).
func TestHostileProfiles(t *testing.T) {
	t.Parallel()
	cases, err := hostile.Load(hostileDir)
	if err != nil {
		t.Fatal(err)
	}
	debBytes, err := hostile.Deb("ok-baseline")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if c.Kind != hostile.KindProfile {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			e := newHostileEnv(t, debBytes, nil)
			e.opts.Build.Out = filepath.Join(e.root, "a", "b", "c", "out")
			e.opts.Release.JetPack = ""
			e.opts.Release.ProfileFile = filepath.Join(e.root, c.File)
			b, err := c.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			mustWrite(t, e.opts.Release.ProfileFile, b)
			before := treeState(t, e.root)
			rootBefore := rootListing(t)
			_, err = Convert(context.Background(), e.opts)
			if d := diffState(before, treeState(t, e.root)); len(d) > 0 {
				t.Errorf("a refused profile wrote:\n%s", strings.Join(d, "\n"))
			}
			if d := diffState(rootBefore, rootListing(t)); len(d) > 0 {
				t.Errorf("/ or /tmp changed:\n%s", strings.Join(d, "\n"))
			}
			var ue *fault.UsageError
			var ie *profile.InvalidError
			if !errors.As(err, &ue) || !errors.As(err, &ie) {
				t.Fatalf("got %v (%T), want a usage error from an *profile.InvalidError", err, err)
			}
			if ie.Field != c.Field || !strings.Contains(err.Error(), c.Field) || !strings.Contains(err.Error(), c.File) {
				t.Errorf("error %q: want it to name field %s and file %s", err, c.Field, c.File)
			}
		})
	}
	if n < 10 {
		t.Errorf("only %d profile cases", n)
	}

	// The control: the same world with a well-formed profile of the same
	// shape converts (so the refusals above are the profiles' doing).
	e := newHostileEnv(t, debBytes, nil)
	good := filepath.Join(e.root, "good.json")
	mustWrite(
		t,
		good,
		[]byte(
			`{"l4t": "`+hostile.Suite+`", "rules": {"components": [{"source": "`+hostile.Source+
				`", "product": "cuda", "name": "CUDA cuBLAS", "license": "CUDA Toolkit"}]}}`,
		),
	)
	e.opts.Release.JetPack, e.opts.Release.ProfileFile = "", good
	if _, err := Convert(context.Background(), e.opts); err != nil {
		t.Fatalf("control profile: %v", err)
	}
}
