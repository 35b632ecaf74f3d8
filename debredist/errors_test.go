package debredist_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/hostile"
	"github.com/debredist/debredist/internal/mirrorgen"
)

// A caller outside the package branches on each public error with
// errors.As; every error here is triggered for real: the hostile corpus
// (internal/hostile, testdata/hostile), a fixture mirror, an httptest server.

type lockDeb struct {
	pkg, version, filename string
	body                   []byte
	sha                    string // "" means the body's
}

// world writes a mirror directory holding debs and a lock naming them
// (suite r36.5, common repo); it returns the options to convert them.
func world(t *testing.T, debs ...lockDeb) debredist.Options {
	t.Helper()
	root := t.TempDir()
	mirror := filepath.Join(root, "mirror")
	var entries []map[string]any
	for _, d := range debs {
		p := filepath.Join(mirror, hostile.Repo, filepath.FromSlash(d.filename))
		if d.body != nil {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, d.body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		sum := sha256.Sum256(d.body)
		sha := hex.EncodeToString(sum[:])
		if d.sha != "" {
			sha = d.sha
		}
		e := map[string]any{"repo": hostile.Repo, "package": d.pkg, "version": d.version,
			"filename": d.filename, "sha256": sha, "source": hostile.Source}
		if len(d.body) > 0 { // a lock's sizes are positive: an empty deb's is left out (unknown)
			e["size"] = len(d.body)
		}
		entries = append(entries, e)
	}
	b, err := json.Marshal(map[string]any{"version": 1, "suite": hostile.Suite, "packages": entries})
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(root, "lock.json")
	if err := os.WriteFile(lock, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return debredist.Options{
		Source:  debredist.Source{Mirror: mirror, CacheDir: filepath.Join(root, "cache"), Retries: -1},
		Release: debredist.Release{JetPack: "6", LockFile: lock},
		Build:   debredist.Build{Out: filepath.Join(root, "out"), Jobs: 2, Only: []string{hostile.PName}},
	}
}

func one(b []byte) lockDeb {
	return lockDeb{pkg: hostile.Package, version: hostile.Version, filename: hostile.Filename, body: b}
}

// TestPublicErrorsHostileCorpus: every rejected deb of the corpus is a
// *DebError of the expected Kind naming deb, member and entry, or one of
// the layout errors.
func TestPublicErrorsHostileCorpus(t *testing.T) {
	t.Parallel()
	cases, err := hostile.Load("../testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[fault.DebKind]string{fault.DebFormat: "format", fault.DebUnsafePath: "unsafe-path",
		fault.DebDevice: "device", fault.DebLimit: "limit", fault.DebCompression: "compression",
		fault.DebTruncated: "truncated", fault.DebExists: "exists", fault.DebIO: "io"}
	seen := map[string]bool{}
	for _, c := range cases {
		if c.Kind != hostile.KindDeb || c.Expect != hostile.Reject {
			continue
		}
		b, err := c.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		o := world(t, one(b))
		if c.Limits != nil {
			o.Build.Limits = debredist.DebLimits{
				MaxBytes:   c.Limits.MaxBytes,
				MaxEntries: c.Limits.MaxEntries,
				MaxNameLen: c.Limits.MaxNameLen,
			}
		}
		_, err = debredist.Convert(context.Background(), o)
		var de *fault.DebError
		var ce *fault.ConflictError
		var le *fault.LinkError
		var ue *fault.UnplacedError
		got := ""
		switch {
		case errors.As(err, &de):
			got = "deb:" + kinds[de.Kind]
			if !strings.Contains(de.Deb, "libcublas") || (c.Member != "" && de.Member != c.Member) ||
				(c.Entry != "" && de.Entry != c.Entry) {
				t.Errorf(
					"%s: DebError names deb %q member %q entry %q, want member %q entry %q",
					c.Name,
					de.Deb,
					de.Member,
					de.Entry,
					c.Member,
					c.Entry,
				)
			}
			if de.Kind.String() == "unknown error" || !strings.Contains(err.Error(), de.Kind.String()) {
				t.Errorf("%s: kind %d (%s) not in %q", c.Name, de.Kind, de.Kind, err)
			}
		case errors.As(err, &ce):
			got = hostile.ErrLayoutConflict
			if ce.PName == "" || ce.A.Deb == "" || ce.B.Deb == "" {
				t.Errorf("%s: ConflictError without names: %+v", c.Name, ce)
			}
		case errors.As(err, &le):
			got = hostile.ErrLayoutLink
			if le.PName == "" || le.Link.Deb == "" {
				t.Errorf("%s: LinkError without names: %+v", c.Name, le)
			}
		case errors.As(err, &ue):
			got = hostile.ErrLayoutUnplaced
			if ue.PName == "" || len(ue.Paths) == 0 || ue.Paths[0].Deb == "" {
				t.Errorf("%s: UnplacedError without paths: %+v", c.Name, ue)
			}
		}
		ok := false
		for _, w := range strings.Split(c.Error, "|") {
			ok = ok || w == got
		}
		if !ok {
			t.Errorf("%s: got %q (%v), want %s", c.Name, got, err, c.Error)
		}
		seen[got] = true
	}
	for _, k := range []string{"deb:limit", "deb:unsafe-path", "deb:device", "deb:format", hostile.ErrLayoutConflict,
		hostile.ErrLayoutLink, hostile.ErrLayoutUnplaced} {
		if !seen[k] {
			t.Errorf("no corpus case produced %s", k)
		}
	}
}

// TestPublicErrorsProfiles: a rejected profile file is a *ProfileError
// naming the field.
func TestPublicErrorsProfiles(t *testing.T) {
	t.Parallel()
	cases, err := hostile.Load("../testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if c.Kind != hostile.KindProfile || c.Expect != hostile.Reject {
			continue
		}
		n++
		b, err := c.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), c.File)
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = debredist.LoadProfile(file)
		var pe *profile.InvalidError
		if !errors.As(err, &pe) || pe.Field != c.Field || !strings.HasSuffix(pe.File, c.File) {
			t.Errorf("%s: %v, want a *ProfileError naming field %s", c.Name, err, c.Field)
		}
	}
	if n == 0 {
		t.Fatal("no profile cases")
	}
}

func validDeb(t *testing.T) []byte {
	t.Helper()
	cases, err := hostile.Load("../testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Kind == hostile.KindDeb && c.Expect == hostile.Accept && c.Limits == nil {
			b, err := c.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatal("no accepted deb in the corpus")
	return nil
}

// TestPublicErrorsFetch: the download and cache failures over HTTP and
// from the cache.
func TestPublicErrorsFetch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	good := validDeb(t)

	t.Run("HTTPError", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.NotFoundHandler())
		defer srv.Close()
		o := world(
			t,
			lockDeb{pkg: hostile.Package, version: hostile.Version, filename: hostile.Filename, sha: strings.Repeat("0", 64)},
		)
		o.Source.Mirror = srv.URL
		_, err := debredist.Convert(ctx, o)
		var he *fault.HTTPError
		if !errors.As(err, &he) || he.Status != http.StatusNotFound || !he.NotFound() ||
			!strings.HasPrefix(he.URL, srv.URL) ||
			he.Package != hostile.Package {
			t.Fatalf("%v: want a *HTTPError 404 naming the package and URL", err)
		}
	})
	t.Run("HashMismatchError", func(t *testing.T) {
		t.Parallel()
		want := strings.Repeat("ab", 32)
		o := world(
			t,
			lockDeb{pkg: hostile.Package, version: hostile.Version, filename: hostile.Filename, body: good, sha: want},
		)
		srv := httptest.NewServer(http.FileServer(http.Dir(o.Source.Mirror)))
		defer srv.Close()
		o.Source.Mirror = srv.URL
		_, err := debredist.Convert(ctx, o)
		var hm *fault.HashMismatchError
		if !errors.As(err, &hm) || hm.Expected != want || hm.Actual == want || hm.Package != hostile.Package {
			t.Fatalf("%v: want a *HashMismatchError", err)
		}
	})
	t.Run("MissingError", func(t *testing.T) {
		t.Parallel()
		o := world(t, one(good))
		o.Source.Offline = true
		_, err := debredist.Convert(ctx, o)
		var me *fault.MissingError
		if !errors.As(err, &me) || len(me.Packages) != 1 || me.Packages[0].Name != hostile.Package {
			t.Fatalf("%v: want a *MissingError listing %s", err, hostile.Package)
		}
	})
	t.Run("CorruptCacheError", func(t *testing.T) {
		t.Parallel()
		o := world(t, one(good))
		if _, err := debredist.Fetch(ctx, o); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(good)
		sha := hex.EncodeToString(sum[:])
		entry := filepath.Join(o.Source.CacheDir, "sha256", sha[:2], sha+".deb")
		bad := append([]byte(nil), good...)
		for i := len(bad) - 64; i < len(bad)-48; i++ {
			bad[i] ^= 0xff
		}
		if err := os.WriteFile(entry, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		o.Source.Offline = true
		_, err := debredist.Convert(ctx, o)
		var ce *fault.CorruptCacheError
		if !errors.As(err, &ce) || ce.Expected != sha || ce.Package != hostile.Package {
			t.Fatalf("%v: want a *CorruptCacheError", err)
		}
	})
}

// TestPublicErrorsPlan: the release-level failures Plan reports.
func TestPublicErrorsPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("SignatureError", func(t *testing.T) {
		t.Parallel()
		m := t.TempDir()
		if err := mirrorgen.Generate(ctx, m, mirrorgen.Options{
			Only:    func(repo, pkg string) bool { return pkg == hostile.Package },
			Suites:  []string{"r36.5"},
			Indexes: []string{"Packages", "Release"},
		}); err != nil {
			t.Fatal(err)
		}
		_, err := debredist.Plan(
			ctx,
			debredist.Options{
				Source:  debredist.Source{Mirror: m, CacheDir: t.TempDir(), Keyring: "../internal/fetch/testdata/gpg/key.gpg"},
				Release: debredist.Release{L4T: "r36.5"},
			},
		)
		var se *fault.SignatureError
		if !errors.As(err, &se) || se.URL == "" {
			t.Fatalf("%v: want a *SignatureError", err)
		}
		var ie *fault.IndexError // the index of the first repo fails
		if !errors.As(err, &ie) || ie.Suite != "r36.5" || ie.Repo == "" || !errors.As(ie.Err, &se) {
			t.Fatalf("%v: want an *IndexError of r36.5 holding the *SignatureError", err)
		}
	})
	t.Run("IndexError", func(t *testing.T) {
		t.Parallel()
		m := t.TempDir()
		if err := mirrorgen.Generate(ctx, m, mirrorgen.Options{
			Only:    func(repo, pkg string) bool { return pkg == hostile.Package },
			Suites:  []string{"r36.5"},
			Indexes: []string{"Packages"},
		}); err != nil {
			t.Fatal(err)
		}
		idx := filepath.Join(m, "common", "dists", "r36.5", "main", "binary-arm64", "Packages")
		if err := os.WriteFile(idx, []byte("Package: x\nno colon on this line\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := debredist.Plan(
			ctx,
			debredist.Options{
				Source:  debredist.Source{Mirror: m, CacheDir: t.TempDir(), AllowUnverifiedIndex: true},
				Release: debredist.Release{L4T: "r36.5"},
			},
		)
		var ie *fault.IndexError
		if !errors.As(err, &ie) || ie.Repo != "common" || ie.Suite != "r36.5" || !strings.Contains(err.Error(), "line 2") {
			t.Fatalf("%v: want an *IndexError of common r36.5 naming the line", err)
		}
		if strings.Count(err.Error(), "index common r36.5") != 1 {
			t.Errorf("%v: the index is named more than once", err)
		}
	})
	t.Run("VersionError", func(t *testing.T) {
		t.Parallel()
		o := world(t, one(nil), lockDeb{pkg: "libcublas-dev-12-6", version: "12.6.2.1-1",
			filename: "pool/main/libc/libcublas/libcublas-dev-12-6_12.6.2.1-1_arm64.deb"})
		_, err := debredist.Plan(ctx, o)
		var ve *plan.VersionError
		if !errors.As(err, &ve) || ve.PName == "" || len(ve.Versions) != 2 {
			t.Fatalf("%v: want a *VersionError", err)
		}
	})
	t.Run("LockFileError", func(t *testing.T) {
		t.Parallel()
		o := world(
			t,
			lockDeb{pkg: hostile.Package, version: hostile.Version, filename: "../../etc/passwd", sha: strings.Repeat("0", 64)},
		)
		_, err := debredist.Plan(ctx, o)
		var le *apt.LockError
		if !errors.As(err, &le) || le.Package != hostile.Package || le.Reason == "" {
			t.Fatalf("%v: want a *LockFileError", err)
		}
	})
}

// TestPublicErrorsVerify: Verify's problems are structured: a damaged
// archive is a Problem naming its path, and VerifyError lists them.
func TestPublicErrorsVerify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	deb := validDeb(t)
	o := world(t, one(deb))
	res, err := debredist.Convert(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Downloads; d.Downloaded != 1 || d.Bytes != int64(len(deb)) || d.Cached != 0 {
		t.Errorf("Result.Downloads = %+v, want the one deb of %d bytes downloaded", d, len(deb))
	}
	fr, err := debredist.Fetch(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if d := fr.Downloads; d.Downloaded != 0 || d.Cached != 1 || fr.CacheDir != o.Source.CacheDir {
		t.Errorf("FetchResult.Downloads = %+v in %s, want the one deb cached in %s", d, fr.CacheDir, o.Source.CacheDir)
	}
	arch := filepath.Join(o.Build.Out, filepath.FromSlash(res.Packages[0].Archive))
	if err := os.WriteFile(arch, []byte("not an archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Dir(ctx, o.Build.Out)
	if err != nil {
		t.Fatal(err)
	}
	var ve *verify.Error
	if err := rep.Err(); !errors.As(err, &ve) || len(ve.Problems) == 0 {
		t.Fatalf("%v: want a *VerifyError", err)
	}
	p := ve.Problems[0]
	if !strings.HasSuffix(res.Packages[0].Archive, p.Path) || p.Err == nil || !strings.HasPrefix(p.Error(), p.Path+": ") {
		t.Errorf("problem %+v does not name the archive %s", p, res.Packages[0].Archive)
	}
	if msg := p.Error(); strings.Contains(msg, "archive: archive: ") {
		t.Errorf("problem stutters: %s", msg)
	}
	b, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(b), `"problems":["`) {
		t.Errorf("JSON report %s: problems must be messages (%v)", b, err)
	}
}

// Branch on the failures a caller can act on (here, a limit no deb fits).
func Example_errors() {
	out, _ := os.MkdirTemp("", "debredist-example")
	defer func() { _ = os.RemoveAll(out) }()
	cache, _ := os.MkdirTemp("", "debredist-cache")
	defer func() { _ = os.RemoveAll(cache) }()
	_, err := debredist.Convert(context.Background(), debredist.Options{
		Source:  debredist.Source{Mirror: "../testdata/sample-mirror", CacheDir: cache},
		Release: debredist.Release{JetPack: "6"},
		Build:   debredist.Build{Out: out, Only: []string{"cuda_cudart"}, Limits: debredist.DebLimits{MaxBytes: 1024}},
	})
	var (
		de *fault.DebError
		he *fault.HTTPError
		hm *fault.HashMismatchError
		ue *fault.UnplacedError
	)
	switch {
	case err == nil:
		fmt.Println("converted")
	case errors.As(err, &de) && de.Kind == fault.DebLimit:
		// a decompression bomb, or a deb larger than Options.Limits allow
		fmt.Println(filepath.Base(de.Deb), "exceeds a limit:", de.Err)
	case errors.As(err, &he) && he.NotFound():
		// the mirror lost a file: refresh the index or the lock file
	case errors.As(err, &hm):
		// NVIDIA replaced hm.URL under the same name
	case errors.As(err, &ue):
		// add a rule placing ue.Paths to a profile file
	}
	// Output:
	// cuda-cudart-12-6_12.6.68-1_arm64.deb exceeds a limit: uncompressed size exceeds MaxBytes=1024
}
