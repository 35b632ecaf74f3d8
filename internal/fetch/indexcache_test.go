package fetch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
)

// TestIndexOffline: after one online Index against an http mirror, an
// offline Index replays the same files through the same checks; without
// that run, or with a cached file changed, it fails saying what to do.
func TestIndexOffline(t *testing.T) {
	keyA := newKey(t, "a")
	ring := keyringFile(t, keyA, true)
	xzIdx := xzed(t, packagesText())
	rel := releaseText(map[string][]byte{"main/binary-arm64/Packages.xz": xzIdx})
	srv, _ := serveMirror(
		t,
		mirrorFiles{indexDir + "Packages.xz": xzIdx, distDir + "InRelease": clearsigned(t, keyA, rel)},
	)
	repo := apt.NewRepo("", "common", testSuite)
	ctx := context.Background()

	o := testOptions(t, srv.URL, nil)
	o.Keyring = ring
	o.Offline = true
	if _, _, err := mustNew(t, o).Index(ctx, repo); err == nil ||
		!strings.Contains(err.Error(), "run once without Source.Offline") {
		t.Fatalf("offline before any online run: err = %v", err)
	}

	o.Offline = false
	online, info, err := mustNew(t, o).Index(ctx, repo)
	if err != nil || !info.Signed {
		t.Fatalf("online: %v (info %+v)", err, info)
	}
	before := srv.requests("/" + indexDir + "Packages.xz")
	o.Offline = true
	offline, oinfo, err := mustNew(t, o).Index(ctx, repo)
	if err != nil {
		t.Fatalf("offline after an online run: %v", err)
	}
	if oinfo != info || len(offline) != len(online) || offline[0].SHA256 != online[0].SHA256 {
		t.Errorf("offline index %+v (%d packages), online %+v (%d)", oinfo, len(offline), info, len(online))
	}
	if n := srv.requests("/" + indexDir + "Packages.xz"); n != before {
		t.Errorf("offline Index made %d requests", n-before)
	}
	assertCleanCache(t, o.CacheDir)

	// The cached Packages file changed on disk: refused, not trusted.
	p, _ := mustNew(t, o).indexBlobPath(sha256Hex(xzIdx))
	if err := os.WriteFile(p, append(bytes.Clone(xzIdx), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mustNew(t, o).Index(ctx, repo); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("tampered cache entry: err = %v", err)
	}
	// Another mirror's record is not used.
	o.Base = srv.URL + "/other"
	if _, _, err := mustNew(t, o).Index(ctx, repo); err == nil || !strings.Contains(err.Error(), "not in the cache") {
		t.Errorf("other mirror offline: err = %v", err)
	}
}

// TestIndexStrict: a Packages file cut short, or with one stanza that
// cannot be used, is refused whole, naming the file and the line.
func TestIndexStrict(t *testing.T) {
	plain := packagesText()
	for name, idx := range map[string][]byte{
		"cut in a field": plain[:bytes.Index(plain, []byte("SHA256:"))+20],
		"cut at a line":  plain[:bytes.LastIndex(plain, []byte("\nSHA256:"))+1],
		"bad stanza":     bytes.Replace(plain, []byte("Filename: "), []byte("Filename: ../"), 1),
		"no line break":  bytes.TrimRight(plain, "\n"),
	} {
		t.Run(name, func(t *testing.T) {
			_, bases := serveMirror(t, mirrorFiles{indexDir + "Packages": idx})
			o := testOptions(t, bases["dir"], nil)
			o.AllowUnverified = true
			_, _, err := mustNew(t, o).Index(context.Background(), apt.NewRepo("", "common", testSuite))
			var se *apt.StanzaError
			var sy *apt.SyntaxError
			if err == nil || !errors.As(err, &se) && !errors.As(err, &sy) {
				t.Fatalf("err = %v, want a stanza or syntax error", err)
			}
			if !strings.Contains(err.Error(), filepath.Join(bases["dir"], indexDir+"Packages")) ||
				!strings.Contains(err.Error(), "line ") {
				t.Errorf("%q does not name the file and line", err)
			}
		})
	}
}
