package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/clearsign"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/ulikunitz/xz"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/testutil"
)

const (
	testSuite = "r36.5"
	distDir   = "common/dists/r36.5/"
	indexDir  = distDir + "main/binary-arm64/"
)

// mirrorFiles is a mirror as relative path -> content.
type mirrorFiles map[string][]byte

// testDebs are the debs the test Packages index lists.
func testDebs() []struct {
	pkg  apt.Package
	body []byte
} {
	var out []struct {
		pkg  apt.Package
		body []byte
	}
	for i, name := range []string{"cuda-cudart-12-6", "libnvinfer10"} {
		body := randomBytes(2000+i*100, uint64(100+i))
		p, _ := testPkg(name, body)
		out = append(out, struct {
			pkg  apt.Package
			body []byte
		}{p, body})
	}
	return out
}

func packagesText() []byte {
	var b bytes.Buffer
	for i, d := range testDebs() {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(
			&b,
			"Package: %s\nArchitecture: arm64\nVersion: %s\nFilename: %s\nSize: %d\nSHA256: %s\nDescription: test %d\n",
			d.pkg.Name,
			d.pkg.Version,
			d.pkg.Filename,
			d.pkg.Size,
			d.pkg.SHA256,
			i,
		)
	}
	return b.Bytes()
}

func gzipped(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func xzed(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// releaseText lists the given files (path relative to dists/<suite>/).
func releaseText(files map[string][]byte) []byte {
	var b bytes.Buffer
	b.WriteString("Origin: test\nLabel: test\nSuite: r36.5\nArchitectures: arm64\nComponents: main\nSHA256:\n")
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s %d %s\n", sha256Hex(files[k]), len(files[k]), k)
	}
	return b.Bytes()
}

func newKey(t testing.TB, name string) *openpgp.Entity {
	t.Helper()
	e, err := openpgp.NewEntity(name, "test", name+"@example.com", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func clearsigned(t testing.TB, e *openpgp.Entity, text []byte) []byte {
	var buf bytes.Buffer
	w, err := clearsign.Encode(&buf, e.PrivateKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(text); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func detached(t testing.TB, e *openpgp.Entity, text []byte, armored bool) []byte {
	var buf bytes.Buffer
	var err error
	if armored {
		err = openpgp.ArmoredDetachSign(&buf, e, bytes.NewReader(text), nil)
	} else {
		err = openpgp.DetachSign(&buf, e, bytes.NewReader(text), nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// keyringFile writes e's public key, armored or binary.
func keyringFile(t testing.TB, e *openpgp.Entity, armored bool) string {
	var buf bytes.Buffer
	if armored {
		w, err := armor.Encode(&buf, openpgp.PublicKeyType, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Serialize(w); err != nil {
			t.Fatal(err)
		}
		testutil.Must(t, w.Close())
	} else if err := e.Serialize(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "keyring.gpg")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// serveMirror makes the mirror reachable as an http server, a directory
// and a file:// URL, and returns the three bases.
func serveMirror(t *testing.T, m mirrorFiles) (srv *server, bases map[string]string) {
	srv = newServer(t)
	dir := t.TempDir()
	for rel, b := range m {
		srv.put("/"+rel, b)
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return srv, map[string]string{"http": srv.URL, "dir": dir, "file": "file://" + dir}
}

func TestIndex(t *testing.T) {
	keyA, keyB := newKey(t, "a"), newKey(t, "b")
	ringA, ringB, ringABin := keyringFile(t, keyA, true), keyringFile(t, keyB, true), keyringFile(t, keyA, false)
	plain := packagesText()
	variants := map[string][]byte{"Packages": plain, "Packages.gz": gzipped(t, plain), "Packages.xz": xzed(t, plain)}

	// mk builds a mirror with the named Packages variants and, via relFn, a
	// Release/InRelease/Release.gpg set.
	mk := func(names []string, relFn func(idx map[string][]byte) mirrorFiles) mirrorFiles {
		m := mirrorFiles{}
		idx := map[string][]byte{}
		for _, n := range names {
			m[indexDir+n] = variants[n]
			idx["main/binary-arm64/"+n] = variants[n]
		}
		if relFn != nil {
			for k, v := range relFn(idx) {
				m[distDir+k] = v
			}
		}
		return m
	}
	release := func(idx map[string][]byte) mirrorFiles { return mirrorFiles{"Release": releaseText(idx)} }
	inRelease := func(e *openpgp.Entity) func(map[string][]byte) mirrorFiles {
		return func(idx map[string][]byte) mirrorFiles {
			return mirrorFiles{"InRelease": clearsigned(t, e, releaseText(idx))}
		}
	}
	detachedRelease := func(e *openpgp.Entity, armored bool) func(map[string][]byte) mirrorFiles {
		return func(idx map[string][]byte) mirrorFiles {
			r := releaseText(idx)
			return mirrorFiles{"Release": r, "Release.gpg": detached(t, e, r, armored)}
		}
	}
	only := func(keep ...string) func(map[string][]byte) mirrorFiles {
		return func(idx map[string][]byte) mirrorFiles {
			sub := map[string][]byte{}
			for _, k := range keep {
				sub[k] = idx[k]
			}
			return release(sub)
		}
	}
	isSig := func(err error) bool { var se *fault.SignatureError; return errors.As(err, &se) }
	isUnverified := func(err error) bool { return errors.Is(err, fault.ErrUnverifiedIndex) }
	isNotFound := func(err error) bool {
		var nf *fault.NotFoundError
		return errors.As(err, &nf) && !errors.Is(err, fault.ErrUnverifiedIndex) &&
			strings.Contains(err.Error(), "no such suite "+testSuite)
	}
	contains := func(s string) func(error) bool {
		return func(err error) bool { return strings.Contains(err.Error(), s) }
	}
	all := []string{"Packages.xz", "Packages.gz", "Packages"}

	tests := []struct {
		name        string
		mirror      mirrorFiles
		keyring     string
		wantFile    string
		wantRelease bool
		wantSigned  bool
		wantErr     func(error) bool
		// unverified sets AllowUnverified (apt's [trusted=yes]).
		unverified bool
	}{
		{name: "no Release refused", mirror: mk(all, nil), wantErr: isUnverified},
		{name: "Release lists none refused", mirror: mk(all, only()), wantErr: isUnverified},
		{name: "xz preferred", mirror: mk(all, nil), wantFile: "Packages.xz", unverified: true},
		{
			name:       "gz fallback",
			mirror:     mk([]string{"Packages.gz", "Packages"}, nil),
			wantFile:   "Packages.gz",
			unverified: true,
		},
		{name: "plain fallback", mirror: mk([]string{"Packages"}, nil), wantFile: "Packages", unverified: true},
		{name: "no index", mirror: mk(nil, nil), wantErr: isNotFound, unverified: true},
		{name: "no index, not unverified", mirror: mk(nil, nil), wantErr: isNotFound},
		{name: "no index, keyring", mirror: mk(nil, nil), keyring: ringA, wantErr: isNotFound},
		{
			name: "listed index absent",
			mirror: mirrorFiles{
				distDir + "Release": releaseText(map[string][]byte{"main/binary-arm64/Packages.xz": variants["Packages.xz"]}),
			},
			wantErr: contains("no Packages index found"),
		},
		{name: "Release verifies", mirror: mk(all, release), wantFile: "Packages.xz", wantRelease: true},
		{
			name:        "Release lists only gz",
			mirror:      mk(all, only("main/binary-arm64/Packages.gz")),
			wantFile:    "Packages.gz",
			wantRelease: true,
		},
		{name: "Release lists none", mirror: mk(all, only()), wantFile: "Packages.xz", unverified: true},
		{name: "Release mismatch", mirror: func() mirrorFiles {
			m := mk(all, release)
			m[indexDir+"Packages.xz"] = xzed(t, append(bytes.Clone(plain), "\nPackage: evil\n"...))
			return m
		}(), wantErr: func(err error) bool { var me *apt.MismatchError; return errors.As(err, &me) }},
		{name: "InRelease, no keyring", mirror: mk(all, inRelease(keyA)), wantFile: "Packages.xz", wantRelease: true},
		{
			name:        "InRelease, good key",
			mirror:      mk(all, inRelease(keyA)),
			keyring:     ringA,
			wantFile:    "Packages.xz",
			wantRelease: true,
			wantSigned:  true,
		},
		{
			name:        "InRelease, binary keyring",
			mirror:      mk(all, inRelease(keyA)),
			keyring:     ringABin,
			wantFile:    "Packages.xz",
			wantRelease: true,
			wantSigned:  true,
		},
		{name: "InRelease, wrong key", mirror: mk(all, inRelease(keyA)), keyring: ringB, wantErr: isSig},
		{name: "InRelease, tampered", mirror: func() mirrorFiles {
			m := mk(all, inRelease(keyA))
			m[distDir+"InRelease"] = bytes.Replace(m[distDir+"InRelease"], []byte("Label: test"), []byte("Label: evil"), 1)
			return m
		}(), keyring: ringA, wantErr: isSig},
		{name: "InRelease not signed, keyring", mirror: mk(all, func(idx map[string][]byte) mirrorFiles {
			return mirrorFiles{"InRelease": releaseText(idx)}
		}), keyring: ringA, wantErr: isSig},
		{
			name:        "Release.gpg armored",
			mirror:      mk(all, detachedRelease(keyA, true)),
			keyring:     ringA,
			wantFile:    "Packages.xz",
			wantRelease: true,
			wantSigned:  true,
		},
		{
			name:        "Release.gpg binary",
			mirror:      mk(all, detachedRelease(keyA, false)),
			keyring:     ringA,
			wantFile:    "Packages.xz",
			wantRelease: true,
			wantSigned:  true,
		},
		{
			name:        "Release.gpg, no keyring",
			mirror:      mk(all, detachedRelease(keyA, false)),
			wantFile:    "Packages.xz",
			wantRelease: true,
		},
		{name: "Release.gpg wrong key", mirror: mk(all, detachedRelease(keyB, true)), keyring: ringA, wantErr: isSig},
		{name: "Release.gpg missing", mirror: mk(all, release), keyring: ringA, wantErr: isSig},
		{name: "no Release, keyring", mirror: mk(all, nil), keyring: ringA, wantErr: isSig},
		{name: "signed Release lists none", mirror: mk(all, func(map[string][]byte) mirrorFiles {
			return mirrorFiles{"InRelease": clearsigned(t, keyA, releaseText(nil))}
		}), keyring: ringA, wantErr: contains("cannot verify the index")},
	}
	for _, tc := range tests {
		for _, kind := range []string{"http", "dir", "file"} {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				_, bases := serveMirror(t, tc.mirror)
				o := testOptions(t, bases[kind], nil)
				o.Keyring, o.AllowUnverified = tc.keyring, tc.unverified
				f := mustNew(t, o)
				pkgs, info, err := f.Index(context.Background(), apt.NewRepo("", "common", testSuite))
				if tc.wantErr != nil {
					if err == nil || !tc.wantErr(err) {
						t.Fatalf("err = %v, want a matching error", err)
					}
					if !strings.Contains(err.Error(), "common") {
						t.Errorf("error %q does not name the repo", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasSuffix(info.URL, "/"+tc.wantFile) || info.Release != tc.wantRelease ||
					info.Signed != tc.wantSigned ||
					info.Repo != "common" {
					t.Errorf("info %+v, want file %s release %v signed %v", info, tc.wantFile, tc.wantRelease, tc.wantSigned)
				}
				if info.SHA256 != sha256Hex(variants[tc.wantFile]) {
					t.Errorf("info.SHA256 %s is not the file's", info.SHA256)
				}
				want := testDebs()
				if len(pkgs) != len(want) {
					t.Fatalf("%d packages, want %d", len(pkgs), len(want))
				}
				for i, p := range pkgs {
					if p.Repo != "common" || p.Name != want[i].pkg.Name || p.SHA256 != want[i].pkg.SHA256 ||
						p.Size != want[i].pkg.Size {
						t.Errorf("package %d = %+v", i, p)
					}
				}
			})
		}
	}
}

// TestIndexThenFetch runs the pipeline's two network steps against each
// kind of mirror.
func TestIndexThenFetch(t *testing.T) {
	plain := packagesText()
	m := mirrorFiles{indexDir + "Packages.gz": gzipped(t, plain)}
	for _, d := range testDebs() {
		m["common/"+d.pkg.Filename] = d.body
	}
	srv, bases := serveMirror(t, m)
	srv.put("/"+indexDir+"Packages.gz", m[indexDir+"Packages.gz"], status(503)) // one transient failure
	for kind, base := range bases {
		t.Run(kind, func(t *testing.T) {
			o := testOptions(t, base, nil)
			o.AllowUnverified = true
			f := mustNew(t, o)
			pkgs, _, err := f.Index(context.Background(), apt.NewRepo("", "common", testSuite))
			if err != nil {
				t.Fatal(err)
			}
			paths, err := f.Fetch(context.Background(), pkgs)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range testDebs() {
				if got, _ := os.ReadFile(paths[d.pkg.SHA256]); !bytes.Equal(got, d.body) {
					t.Errorf("%s: cache entry differs", d.pkg.Name)
				}
			}
			assertCleanCache(t, o.CacheDir)
		})
	}
}

func TestIndexSizeLimit(t *testing.T) {
	srv := newServer(t)
	srv.put("/"+indexDir+"Packages.xz", make([]byte, 1000))
	o := testOptions(t, srv.URL, nil)
	f := mustNew(t, o)
	_, err := f.get(context.Background(), srv.URL+"/"+indexDir+"Packages.xz", 999)
	if err == nil || !strings.Contains(err.Error(), "larger than 999 bytes") {
		t.Fatalf("err = %v", err)
	}
	if b, err := f.get(context.Background(), srv.URL+"/"+indexDir+"Packages.xz", 1000); err != nil || len(b) != 1000 {
		t.Fatalf("get at the limit: %d bytes, %v", len(b), err)
	}
}

func TestKeyringErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	garbage := filepath.Join(dir, "garbage")
	testutil.Must(t, os.WriteFile(empty, nil, 0o644))
	testutil.Must(t, os.WriteFile(garbage, []byte("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nnot a key\n"), 0o644))
	for _, path := range []string{filepath.Join(dir, "absent"), empty, garbage} {
		if _, err := New(Options{Keyring: path, CacheDir: dir}); err == nil || !strings.Contains(err.Error(), "keyring") {
			t.Errorf("New with keyring %s: err = %v", filepath.Base(path), err)
		}
	}
}

// TestIndexForbiddenMeansAbsent: S3-style servers answer 403 for missing
// objects; InRelease/Release/Packages.xz may be absent that way. Other
// errors are not mistaken for absence.
func TestIndexForbiddenMeansAbsent(t *testing.T) {
	plain := packagesText()
	srv := newServer(t)
	for _, n := range []string{distDir + "InRelease", distDir + "Release", indexDir + "Packages.xz"} {
		srv.put("/"+n, nil, status(403))
	}
	srv.put("/"+indexDir+"Packages.gz", gzipped(t, plain))
	o := testOptions(t, srv.URL, nil)
	o.AllowUnverified = true
	f := mustNew(t, o)
	pkgs, info, err := f.Index(context.Background(), apt.NewRepo("", "common", testSuite))
	if err != nil || len(pkgs) != 2 || !strings.HasSuffix(info.URL, "Packages.gz") || info.Release {
		t.Fatalf("Index = %d pkgs, %+v, %v", len(pkgs), info, err)
	}

	o = testOptions(t, srv.URL, nil)
	o.Retries = 1
	f = mustNew(t, o)
	srv.put("/"+distDir+"InRelease", nil, status(500), status(500), status(500)) // faults[0] was used above
	_, _, err = f.Index(context.Background(), apt.NewRepo("", "common", testSuite))
	var he *fault.HTTPError
	if !errors.As(err, &he) || he.Status != 500 {
		t.Fatalf("err = %v, want HTTP 500", err)
	}
	if n := srv.requests("/" + distDir + "InRelease"); n != 2+1 {
		t.Errorf("%d InRelease requests, want 3 (1 earlier + 2 attempts)", n)
	}
}

// TestIndexNotFound: a missing mirror directory and a suite the mirror
// lacks are "not found" errors naming the path and the suites the mirror
// has, never an unverified index; --allow-unverified-index is the answer
// only where there is an index and no Release lists it.
func TestIndexNotFound(t *testing.T) {
	plain := packagesText()
	other := mirrorFiles{
		"common/dists/r36.4/" + "Release":               []byte("Suite: r36.4\n"),
		"common/dists/r35.6/main/binary-arm64/Packages": plain,
	}
	_, bases := serveMirror(t, other)
	index := func(base string, allow bool) error {
		o := testOptions(t, base, nil)
		o.AllowUnverified = allow
		_, _, err := mustNew(t, o).Index(context.Background(), apt.NewRepo("", "common", testSuite))
		return err
	}
	for _, allow := range []bool{false, true} {
		for kind, base := range bases {
			err := index(base, allow)
			var nf *fault.NotFoundError
			if !errors.As(err, &nf) || errors.Is(err, fault.ErrUnverifiedIndex) {
				t.Fatalf("%s (allow %v): err = %v, want a *fault.NotFoundError", kind, allow, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "dists/"+testSuite) || !strings.Contains(msg, "no such suite "+testSuite) ||
				strings.Contains(msg, "unverified") {
				t.Errorf("%s: %q does not say which suite is missing where", kind, msg)
			}
			if kind == "http" {
				if nf.Listed || !strings.Contains(msg, "does not list its suites") {
					t.Errorf("http: %q claims to know the suites", msg)
				}
			} else if !nf.Listed || strings.Join(nf.Suites, ",") != "r35.6,r36.4" ||
				!strings.Contains(msg, "suites: r35.6, r36.4") {
				t.Errorf("%s: suites %v, message %q; want r35.6, r36.4 listed", kind, nf.Suites, msg)
			}
		}
	}
	missing := filepath.Join(t.TempDir(), "nonexistent")
	for _, base := range []string{missing, "file://" + missing} {
		err := index(base, false)
		var nf *fault.NotFoundError
		if !errors.As(err, &nf) || nf.What != "mirror directory" ||
			!strings.Contains(err.Error(), missing+": no such mirror directory") {
			t.Errorf("mirror %s: err = %v, want it named as a missing mirror directory", base, err)
		}
	}
}

// TestIndexCompressionName: a Packages.xz (or .gz) whose bytes are not
// that format is refused, even when the Release lists it.
func TestIndexCompressionName(t *testing.T) {
	plain := packagesText()
	for _, name := range []string{"Packages.xz", "Packages.gz"} {
		m := mirrorFiles{
			indexDir + name:     plain,
			distDir + "Release": releaseText(map[string][]byte{"main/binary-arm64/" + name: plain}),
		}
		_, bases := serveMirror(t, m)
		_, _, err := mustNew(
			t,
			testOptions(t, bases["dir"], nil),
		).Index(context.Background(), apt.NewRepo("", "common", testSuite))
		var ce *apt.CompressionMismatchError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), name+": named like") {
			t.Errorf("%s holding plain text: err = %v, want a *apt.CompressionMismatchError naming it", name, err)
		}
	}
}
