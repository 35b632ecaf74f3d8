package debredist

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/hostile"
)

// TestUpToDateWithoutDebsKeepsProvenance: over an existing OUT, with a
// lock whose debs are not in the cache and --offline, every package is up
// to date by the recorded inputs: the run says so and leaves provenance
// and manifests as the run that read the debs wrote them.
func TestUpToDateWithoutDebsKeepsProvenance(t *testing.T) {
	t.Parallel()
	e := convertedBaseline(t)
	before := treeState(t, e.out)

	o := e.opts
	o.Source.CacheDir, o.Source.Offline = filepath.Join(e.root, "empty-cache"), true
	o.Release.LockFile = filepath.Join(e.root, "another-name.lock.json") // a rewritten sidecar would name it
	lb, err := os.ReadFile(e.opts.Release.LockFile)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, o.Release.LockFile, lb)
	warnings := collectWarnings(&o)
	res, err := Convert(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Packages {
		if !p.UpToDate {
			t.Errorf("%s rebuilt", p.PName)
		}
	}
	if !strings.Contains(strings.Join(warnings(), "\n"), "not in the cache and were not read") {
		t.Errorf("no warning that the up-to-date decision read no deb: %q", warnings())
	}
	if d := diffState(before, treeState(t, e.out)); len(d) > 0 {
		t.Errorf("a run that read nothing rewrote OUT:\n%s", strings.Join(d, "\n"))
	}
}

// TestNoOpOnReadOnlyOut: a run with everything up to date needs no write
// access to OUT; one that must write fails with one line saying why.
func TestNoOpOnReadOnlyOut(t *testing.T) {
	t.Parallel()
	e := convertedBaseline(t)
	readOnly(t, e.out)
	if _, err := Convert(context.Background(), e.opts); err != nil {
		t.Fatalf("no-op run on a read-only OUT: %v", err)
	}
	o := e.opts
	o.Build.Compression = "zstd" // other archives: something must be written
	_, err := Convert(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "not writable") || strings.Count(err.Error(), "\n") > 0 {
		t.Fatalf("got %v, want one line saying OUT is not writable", err)
	}
}

// readOnly makes dir read-only for the rest of the test: chmod, or for
// root (whom modes do not stop) the immutable attribute.
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Error(err)
			}
		})
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("running as root and chattr +i fails: %v %s", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("chattr", "-i", dir).CombinedOutput(); err != nil {
			t.Errorf("chattr -i %s: %v %s", dir, err, bytes.TrimSpace(out))
		}
	})
}

// TestVerifyChecksProvenance: verify compares the sidecar's records with
// the archives (size, hashes) and refuses records of archives the
// manifest does not name.
func TestVerifyChecksProvenance(t *testing.T) {
	t.Parallel()
	e := convertedBaseline(t)
	rep, err := verify.Dir(context.Background(), e.out)
	if err != nil || rep.Err() != nil {
		t.Fatalf("fresh OUT: %v %v", err, rep.Err())
	}
	files, _ := filepath.Glob(filepath.Join(e.out, "*", "redist", redist.SidecarPrefix+"*.json"))
	if len(files) != 1 {
		t.Fatalf("sidecars %v", files)
	}
	orig := readProvenance(t, e.out)
	for name, edit := range map[string]func(p *redist.Provenance){
		"size": func(p *redist.Provenance) { p.Archives[0].Size++ },
		"md5":  func(p *redist.Provenance) { p.Archives[0].MD5 = strings.Repeat("0", 32) },
		"extra": func(p *redist.Provenance) {
			a := p.Archives[0]
			a.RelativePath = "ghost/linux-aarch64/ghost.tar.xz"
			p.Archives = append(p.Archives, a)
		},
	} {
		p := orig
		p.Archives = append([]redist.Archive(nil), orig.Archives...)
		edit(&p)
		pb, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, files[0], pb)
		rep, err := verify.Dir(context.Background(), e.out)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Err() == nil || !strings.Contains(rep.Err().Error(), "provenance") {
			t.Errorf("%s: provenance edit not found: %v", name, rep.Err())
		}
	}
}

// TestUnwritableLockOutLeavesOutComplete: the lock file is written last,
// so a --lock-out that cannot be written names the flag and leaves OUT
// with every manifest.
func TestUnwritableLockOutLeavesOutComplete(t *testing.T) {
	t.Parallel()
	b, err := hostile.Deb("ok-baseline")
	if err != nil {
		t.Fatal(err)
	}
	e := newHostileEnv(t, b, nil)
	file := filepath.Join(e.root, "a-file")
	mustWrite(t, file, nil)
	e.opts.Build.LockOut = filepath.Join(file, "x.lock.json")
	_, err = Convert(context.Background(), e.opts)
	if err == nil || !strings.Contains(err.Error(), "Build.LockOut") || strings.Contains(err.Error(), ".write-") {
		t.Fatalf("got %v, want an error naming Build.LockOut (and no temporary file)", err)
	}
	rep, err := verify.Dir(context.Background(), e.out)
	if err != nil || rep.Err() != nil || len(rep.Manifests) == 0 {
		t.Fatalf("OUT after the failed --lock-out: %v %v (%d manifests)", err, rep.Err(), len(rep.Manifests))
	}
}

// convertedBaseline is a hostile-corpus environment whose mirror holds the
// corpus' baseline deb, converted once into e.out.
func convertedBaseline(t *testing.T) *hostileEnv {
	t.Helper()
	b, err := hostile.Deb("ok-baseline")
	if err != nil {
		t.Fatal(err)
	}
	e := newHostileEnv(t, b, nil)
	if _, err := Convert(context.Background(), e.opts); err != nil {
		t.Fatal(err)
	}
	return e
}

// collectWarnings sets o.OnEvent to record the warnings a run emits and
// returns a function listing them.
func collectWarnings(o *Options) func() []string {
	var mu sync.Mutex
	var warnings []string
	o.OnEvent = func(ev event.Event) {
		if ev.Kind == event.Warning {
			mu.Lock()
			warnings = append(warnings, ev.Message)
			mu.Unlock()
		}
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(warnings)
	}
}
