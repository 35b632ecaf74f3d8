package debredist

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/hostile"
)

const hostileDir = "../testdata/hostile"

// hostileEnv is one case's world: a one-deb mirror and lock, OUT, the
// cache, and a sentinel directory next to OUT.
type hostileEnv struct {
	root, out, cache, sentinel string
	opts                       Options
}

// newHostileEnv puts debBytes into a directory mirror as libcublas-12-6 of
// r36.5 and writes a lock naming it, so that Convert reads it through the
// real fetch → deb → layout → archive path.
func newHostileEnv(t *testing.T, debBytes []byte, lim *hostile.Limits) *hostileEnv {
	t.Helper()
	root := t.TempDir()
	e := &hostileEnv{
		root:     root,
		out:      filepath.Join(root, "out"),
		cache:    filepath.Join(root, "cache"),
		sentinel: filepath.Join(root, "sentinel"),
	}
	mirror := filepath.Join(root, "mirror")
	p := filepath.Join(mirror, hostile.Repo, filepath.FromSlash(hostile.Filename))
	mustWrite(t, p, debBytes)
	mustWrite(t, filepath.Join(e.sentinel, "keep.txt"), []byte("sentinel\n"))
	sum := sha256.Sum256(debBytes)
	entry := map[string]any{
		"repo": hostile.Repo, "package": hostile.Package, "version": hostile.Version, "filename": hostile.Filename,
		"sha256": hex.EncodeToString(sum[:]), "source": hostile.Source,
	}
	if len(debBytes) > 0 { // a lock's sizes are positive: an empty deb's is left out (unknown)
		entry["size"] = len(debBytes)
	}
	lock := map[string]any{"version": apt.LockVersion, "suite": hostile.Suite, "packages": []map[string]any{entry}}
	lb, err := json.Marshal(lock)
	if err != nil {
		t.Fatal(err)
	}
	lockFile := filepath.Join(root, "lock.json")
	mustWrite(t, lockFile, lb)
	// The lock pins one deb of the release: convert just its package.
	e.opts = Options{
		Source:  Source{Mirror: mirror, CacheDir: e.cache},
		Release: Release{JetPack: "6", LockFile: lockFile},
		Build:   Build{Out: e.out, Jobs: 2, Only: []string{hostile.PName}},
	}
	if lim != nil {
		e.opts.Build.Limits = DebLimits{MaxBytes: lim.MaxBytes, MaxEntries: lim.MaxEntries, MaxNameLen: lim.MaxNameLen}
	}
	return e
}

func mustWrite(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// treeState lists every path under dir with its type and content hash,
// skipping the named subdirectories.
func treeState(t *testing.T, dir string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		for _, s := range skip {
			if rel == s {
				return filepath.SkipDir
			}
		}
		switch {
		case d.IsDir():
			out[rel] = "dir"
		case d.Type()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "link:" + l
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := sha256.Sum256(b)
			out[rel] = "file:" + hex.EncodeToString(s[:])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffState(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if b[k] != v {
			d = append(d, fmt.Sprintf("%s: %q -> %q", k, v, b[k]))
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			d = append(d, fmt.Sprintf("%s: new %q", k, v))
		}
	}
	return d
}

// errKind names err the way the corpus' cases do.
func errKind(err error) string {
	var de *fault.DebError
	var ce *fault.ConflictError
	var le *fault.LinkError
	var ue *fault.UnplacedError
	switch {
	case errors.As(err, &de):
		return "deb:" + map[fault.DebKind]string{
			fault.DebFormat: "format", fault.DebUnsafePath: "unsafe-path", fault.DebDevice: "device",
			fault.DebLimit: "limit", fault.DebCompression: "compression", fault.DebTruncated: "truncated",
			fault.DebExists: "exists", fault.DebIO: "io",
		}[de.Kind]
	case errors.As(err, &ce):
		return hostile.ErrLayoutConflict
	case errors.As(err, &le):
		return hostile.ErrLayoutLink
	case errors.As(err, &ue):
		return hostile.ErrLayoutUnplaced
	}
	return fmt.Sprintf("untyped %T", err)
}

func kindOK(want, got string) bool {
	for _, w := range strings.Split(want, "|") {
		if w == got {
			return true
		}
	}
	return false
}

// checkNames asserts the error names the deb, the member and the entry the
// case expects, in its fields and in its message.
func checkNames(t *testing.T, c hostile.Case, err error) {
	t.Helper()
	msg := err.Error()
	debFile := path.Base(hostile.Filename)
	var de *fault.DebError
	if errors.As(err, &de) {
		if de.Deb != debFile {
			t.Errorf("fault.DebError.Deb = %q, want %q", de.Deb, debFile)
		}
		if c.Member != "" && de.Member != c.Member {
			t.Errorf("fault.DebError.Member = %q, want %q", de.Member, c.Member)
		}
		if c.Entry != "" && de.Entry != c.Entry {
			t.Errorf("fault.DebError.Entry = %q, want %q", de.Entry, c.Entry)
		}
		for _, s := range []string{debFile, de.Member} {
			if !strings.Contains(msg, s) {
				t.Errorf("message %q does not name %q", msg, s)
			}
		}
		if de.Entry != "" && !strings.Contains(msg, strings.Trim(fmt.Sprintf("%q", de.Entry), `"`)) &&
			!strings.Contains(msg, de.Entry) {
			t.Errorf("message %q does not name entry %q", msg, de.Entry)
		}
		return
	}
	// Layout errors name the binary package and the deb path.
	var origins []fault.DebPath
	var ce *fault.ConflictError
	var le *fault.LinkError
	var ue *fault.UnplacedError
	switch {
	case errors.As(err, &ce):
		origins = []fault.DebPath{ce.A, ce.B}
	case errors.As(err, &le):
		origins = []fault.DebPath{le.Link}
	case errors.As(err, &ue):
		origins = ue.Paths
	}
	found := false
	for _, o := range origins {
		if o.Deb != hostile.Package {
			t.Errorf("layout error origin deb %q, want %q", o.Deb, hostile.Package)
		}
		if c.Entry == "" || o.Path == c.Entry {
			found = true
		}
	}
	if !found {
		t.Errorf("layout error origins %v do not name %q", origins, c.Entry)
	}
	if !strings.Contains(msg, hostile.Package) || (c.Entry != "" && !strings.Contains(msg, c.Entry)) {
		t.Errorf("message %q does not name %s and %s", msg, hostile.Package, c.Entry)
	}
}

// TestHostileDebs runs every deb of the corpus through Convert.
func TestHostileDebs(t *testing.T) {
	t.Parallel()
	cases, err := hostile.Load(hostileDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if c.Kind != hostile.KindDeb {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			b, err := c.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			e := newHostileEnv(t, b, c.Limits)
			warnings := collectWarnings(&e.opts)
			before := treeState(t, e.root, "out", "cache")
			rootBefore := rootListing(t)
			res, err := Convert(context.Background(), e.opts)

			// Nothing outside OUT and the cache changes, whatever the verdict.
			if d := diffState(before, treeState(t, e.root, "out", "cache")); len(d) > 0 {
				t.Errorf("files outside OUT changed:\n%s", strings.Join(d, "\n"))
			}
			if d := diffState(rootBefore, rootListing(t)); len(d) > 0 {
				t.Errorf("/ or /tmp changed:\n%s", strings.Join(d, "\n"))
			}
			checkCacheClean(t, e.cache)

			switch c.Expect {
			case hostile.Reject:
				if err == nil {
					t.Fatalf("converted (%d packages), want a %s rejection: %s", len(res.Packages), c.Error, c.Reason)
				}
				if got := errKind(err); !kindOK(c.Error, got) {
					t.Fatalf("error kind %s, want %s: %v", got, c.Error, err)
				}
				checkNames(t, c, err)
				noOut(t, e.out)
			case hostile.Accept:
				if err != nil {
					t.Fatalf("rejected, want accepted (%s): %v", c.Reason, err)
				}
				rep, err := verify.Dir(context.Background(), e.out)
				if err != nil || rep.Err() != nil {
					t.Fatalf("verify: %v %v", err, rep.Err())
				}
				var arch string
				for _, p := range res.Packages {
					if p.PName == "libcublas" {
						arch = filepath.Join(e.out, filepath.FromSlash(p.Archive))
					}
				}
				if arch == "" {
					t.Fatalf("no libcublas archive in %+v", res.Packages)
				}
				var changes []string
				for _, p := range res.Packages {
					changes = append(changes, p.Changes...)
				}
				for _, want := range c.Changes {
					if !slices.ContainsFunc(changes, func(s string) bool { return strings.Contains(s, want) }) {
						t.Errorf("no change line says %q: %q", want, changes)
					}
				}
				// A change that drops an entry is said on stderr too.
				for _, line := range changes {
					if w, ok := strings.CutPrefix(line, "warning: "); ok && !slices.Contains(warnings(), w) {
						t.Errorf("change %q was not emitted as a warning: %q", line, warnings())
					}
				}
				// And nothing else: a change line for an entry the case
				// does not change would bury the real ones.
				for _, line := range changes {
					if !slices.ContainsFunc(c.Changes, func(want string) bool { return strings.Contains(line, want) }) {
						t.Errorf("unexpected change line %q (case expects %q)", line, c.Changes)
					}
				}
				ents := archiveEntries(t, arch)
				for _, p := range c.Present {
					if _, ok := ents[p]; !ok {
						t.Errorf("archive lacks %q", p)
					}
				}
				for name, h := range ents {
					if h.Mode&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 {
						t.Errorf("%s: mode %v keeps setuid/setgid/sticky", name, h.Mode)
					}
					if strings.HasPrefix(name, "/") || name == ".." || strings.HasPrefix(name, "../") ||
						strings.Contains(name, "/../") {
						t.Errorf("unsafe archive name %q", name)
					}
				}
			}
		})
	}
	if n < 40 {
		t.Errorf("only %d deb cases", n)
	}
}

// rootListing records the escape targets a hostile deb could aim at.
func rootListing(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range []string{"/" + hostile.Escape, "/tmp/" + hostile.Escape,
		filepath.Join(os.TempDir(), hostile.Escape), "/etc/" + hostile.Escape} {
		if st, err := os.Lstat(p); err == nil {
			out[p] = st.Mode().String()
		}
	}
	return out
}

// checkCacheClean asserts the cache holds no partial download.
func checkCacheClean(t *testing.T, cache string) {
	t.Helper()
	_ = filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		n := d.Name()
		if strings.Contains(n, ".part") || strings.Contains(n, ".tmp") || strings.HasPrefix(n, ".download") {
			t.Errorf("partial file left in the cache: %s", p)
		}
		return nil
	})
}

// TestHostileIndexes parses every index of the corpus.
func TestHostileIndexes(t *testing.T) {
	t.Parallel()
	cases, err := hostile.Load(hostileDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Kind != hostile.KindIndex {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			b, err := c.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			checkIndexPlan(t, c, b)
			pkgs, probs, err := apt.ParsePackages(bytes.NewReader(b), apt.ParseOptions{})
			if c.Expect == hostile.Reject {
				if err == nil {
					t.Fatalf("parsed %d packages, want %s", len(pkgs), c.Error)
				}
				var se *apt.SyntaxError
				var ue *apt.UnsupportedCompressionError
				var be *apt.BombError
				got := "untyped"
				switch {
				case errors.As(err, &be):
					got = hostile.ErrIndexBomb
				case errors.As(err, &se):
					got = hostile.ErrIndexSyntax
					if se.Line < 1 {
						t.Errorf("syntax error without a line: %v", err)
					}
				case errors.As(err, &ue):
					got = hostile.ErrIndexCompress
				case errors.Is(err, io.ErrUnexpectedEOF):
					got = hostile.ErrIndexTruncated
				case strings.Contains(err.Error(), "gzip") || strings.Contains(err.Error(), "xz") ||
					strings.Contains(err.Error(), "flate"):
					got = hostile.ErrIndexCompress
				}
				if !kindOK(c.Error, got) {
					t.Fatalf("error %v (%T) classified %s, want %s", err, err, got, c.Error)
				}
				return
			}
			if err != nil {
				t.Fatalf("want accepted: %v", err)
			}
			if len(pkgs) != c.Packages || len(probs) != c.Problems {
				t.Errorf("%d packages, %d problems; want %d, %d (%v)", len(pkgs), len(probs), c.Packages, c.Problems, probs)
			}
			for _, p := range probs {
				if p.Reason == "" || p.Line < 1 {
					t.Errorf("problem without reason or line: %+v", p)
				}
			}
			if c.Newest != "" {
				nw := apt.Newest(pkgs)
				if len(nw) != 1 || nw[0].Version != c.Newest {
					t.Errorf("Newest = %+v, want version %s", nw, c.Newest)
				}
			}
		})
	}
}

// checkIndexPlan serves the index as the common repo of r36.5 (t234 from
// the sample mirror) and runs Plan: a reject fails naming the index URL; an
// accept plans, with one warning per skipped stanza.
func checkIndexPlan(t *testing.T, c hostile.Case, b []byte) {
	t.Helper()
	mirror := t.TempDir()
	name := "Packages"
	for _, ext := range []string{".xz", ".gz"} { // anything else is sniffed by its magic
		if strings.HasSuffix(c.File, ext) {
			name += ext
		}
	}
	mustWrite(t, filepath.Join(mirror, "common/dists/r36.5/main/binary-arm64", name), b)
	t234 := "t234/dists/r36.5/main/binary-arm64/Packages"
	tb, err := os.ReadFile(filepath.Join("../testdata/sample-mirror", t234))
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(mirror, t234), tb)
	// The corpus has no Release files: this is about parsing.
	_, err = Plan(
		context.Background(),
		Options{
			Source:  Source{Mirror: mirror, CacheDir: filepath.Join(t.TempDir(), "cache"), AllowUnverifiedIndex: true},
			Release: Release{JetPack: "6"},
		},
	)
	t.Logf("Plan: %v", err)
	var ie *fault.IncompleteError
	var se *apt.StanzaError
	switch {
	case c.Expect == hostile.Reject && err == nil:
		t.Errorf("Plan accepted the index, want %s", c.Error)
	case c.Expect == hostile.Reject && !strings.Contains(err.Error(), "common"):
		t.Errorf("Plan error does not name the repo/index: %v", err)
	case c.Expect == hostile.Accept && c.Problems > 0 && (!errors.As(err, &se) || !strings.Contains(err.Error(), "line ")):
		// apt.ParsePackages skips such a stanza; the pipeline refuses the
		// index whole, naming the stanza's line, as apt does.
		t.Errorf("Plan of an index with %d unusable stanza(s): %v, want the index refused naming the line", c.Problems, err)
	case c.Expect == hostile.Accept && c.Problems == 0 && err != nil && !errors.As(err, &ie) &&
		!strings.Contains(err.Error(), "nothing"):
		t.Errorf("Plan: %v", err)
	}
}

// TestHostileBombLimits runs the same bomb with a small limit (rejected
// with KindLimit) and with the defaults (converted).
func TestHostileBombLimits(t *testing.T) {
	t.Parallel()
	b, err := hostile.Deb("xz-bomb-default")
	if err != nil {
		t.Fatal(err)
	}
	small := newHostileEnv(t, b, &hostile.Limits{MaxBytes: 1 << 20})
	_, err = Convert(context.Background(), small.opts)
	if !errors.Is(err, fault.ErrDebLimit) {
		t.Fatalf("MaxBytes=1MiB: %v, want fault.ErrDebLimit", err)
	}
	def := newHostileEnv(t, b, nil)
	if _, err := Convert(context.Background(), def.opts); err != nil {
		t.Fatalf("default limits: %v", err)
	}
}

// The "very large index in bounded memory" case is internal/apt's
// TestScannerHeapFlat (200 MB streamed, heap asserted flat).
