package debredist

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/debredist/verify"
)

// TestReadersDuringRebuilds: readers in a loop while conversions
// alternate --preset 1 and the default (each switches OUT to a generation
// whose archives have other bytes) never see a mix of two generations:
// verify.Dir, verify.Nixpkgs and a reader of its own through outdir
// (manifest, sidecar and the archive's size of one Snapshot) all agree,
// every time. DEBREDIST_LONG_TESTS runs more rebuilds.
func TestReadersDuringRebuilds(t *testing.T) {
	out, cache := t.TempDir(), t.TempDir()
	o := Options{
		Source:  Source{Mirror: sampleMirror, CacheDir: cache},
		Release: Release{JetPack: "6"},
		Build:   Build{Out: out, Only: []string{"cuda_cudart", "cuda_nvcc", "cuda_cupti", "libcublas", "cudnn"}},
	}
	mustConvert(t, o)
	rebuilds := 8
	if os.Getenv("DEBREDIST_LONG_TESTS") != "" {
		rebuilds = 200
	}
	ctx := context.Background()
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer done.Store(true)
		for i := range rebuilds {
			r := o
			if i%2 == 0 {
				r.Build.Preset = 1
			}
			if _, err := Convert(ctx, r); err != nil {
				t.Errorf("rebuild %d: %v", i, err)
				return
			}
		}
	}()
	var reads, mixed, rereads atomic.Int64
	reader := func(name string, read func() error) {
		defer wg.Done()
		for !done.Load() {
			reads.Add(1)
			if err := read(); err != nil {
				mixed.Add(1)
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	wg.Add(3)
	go reader("verify.Dir", func() error {
		rep, err := verify.Dir(ctx, out)
		if err == nil {
			err = rep.Err()
		}
		return err
	})
	go reader("verify.Nixpkgs", func() error {
		_, err := verify.Nixpkgs(ctx, out)
		return err
	})
	go reader("outdir", func() error {
		err := readOnce(out)
		if err != nil && isReplaced(err) {
			rereads.Add(1)
			return nil // told to read again: never a mix
		}
		return err
	})
	wg.Wait()
	t.Logf("%d rebuilds, %d reads, %d mixed, %d told to read again", rebuilds, reads.Load(), mixed.Load(), rereads.Load())
	if reads.Load() < 3 {
		t.Errorf("only %d reads during the rebuilds", reads.Load())
	}
}

// readOnce reads every manifest of one Snapshot of out with its sidecar
// and checks each archive's size (by stat, from the same Snapshot)
// against both.
func readOnce(out string) error {
	s, err := outdir.Open(out)
	if err != nil {
		return err
	}
	defer func() { _ = s.Close() }()
	for _, mf := range s.Manifests {
		f, err := s.Open(mf)
		if err != nil {
			return err
		}
		m, err := redist.ReadManifest(f)
		f.Close()
		if err != nil {
			return err
		}
		time.Sleep(time.Millisecond) // leave a rebuild time to switch
		prov, _, err := s.ReadSidecar(mf)
		if err != nil {
			return err
		}
		rec := map[string]redist.Archive{}
		for _, a := range prov.Archives {
			rec[a.RelativePath] = a
		}
		for _, c := range m.Components {
			for _, pa := range c.Artifacts() {
				a, err := s.Open(filepath.Join(filepath.Dir(mf), filepath.FromSlash(pa.Artifact.RelativePath)))
				if err != nil {
					return err
				}
				st, err := a.Stat()
				a.Close()
				if err != nil {
					return err
				}
				if size := strconv.FormatInt(st.Size(), 10); size != pa.Artifact.Size ||
					st.Size() != rec[pa.Artifact.RelativePath].Size ||
					pa.Artifact.SHA256 != rec[pa.Artifact.RelativePath].SHA256 {
					return &mixError{mf, pa.Artifact.RelativePath, st.Size(), pa.Artifact.Size, rec[pa.Artifact.RelativePath].Size}
				}
			}
		}
	}
	return nil
}

type mixError struct {
	manifest, rel string
	size          int64
	manifestSize  string
	recorded      int64
}

func (e *mixError) Error() string {
	return e.manifest + ": " + e.rel + " is " + strconv.FormatInt(
		e.size,
		10,
	) + " bytes, the manifest says " + e.manifestSize + ", the sidecar " + strconv.FormatInt(
		e.recorded,
		10,
	) + ": a mix of two generations"
}

func isReplaced(err error) bool { return errorsIs(err, outdir.ErrReplaced) }

var errorsIs = errors.Is
