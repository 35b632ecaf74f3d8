package archive

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/testutil"
)

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// TestRealTools checks our archives with xz(1), zstd(1) and GNU tar: the
// compressed stream verifies, the listing shows normalised owners, modes and
// mtime in tar --sort=name order, and extraction reproduces the entries.
func TestRealTools(t *testing.T) {
	tarBin := testutil.RequireTool(t, "tar")
	mtime := time.Unix(1700000000, 0)
	entries := sampleEntries(bigSize)
	for _, tc := range []struct {
		comp    Compression
		tool    string
		tarFlag string
	}{{XZ, "xz", "-J"}, {Zstd, "zstd", "--zstd"}} {
		t.Run(tc.comp.String(), func(t *testing.T) {
			tool := testutil.RequireTool(t, tc.tool)
			data, res := writeArchive(
				t,
				entries,
				Options{Top: "foo-1.0-archive", MTime: mtime, Compression: tc.comp, Workers: 2},
			)
			dir := t.TempDir()
			arch := filepath.Join(dir, "foo-1.0-archive"+tc.comp.Ext())
			if err := os.WriteFile(arch, data, 0o644); err != nil {
				t.Fatal(err)
			}
			run(t, tool, "-t", arch)
			// A block's dictionary need not exceed the block (testBlock here); the
			// 8 MiB header at BlockSize is pinned by TestGolden.
			if tc.comp == XZ {
				info := run(t, tool, "-lvv", arch)
				for _, want := range []string{"Blocks:            2", "Check:             CRC64", "Sizes in headers:  Yes",
					fmt.Sprintf("--lzma2=dict=%dKiB", testBlock>>10)} {
					if !strings.Contains(info, want) {
						t.Errorf("xz -lvv lacks %q:\n%s", want, info)
					}
				}
			}

			listing := run(t, tarBin, tc.tarFlag, "--numeric-owner", "--full-time", "-tvf", arch)
			checkListing(t, listing, entries, "2023-11-14 22:13:20")

			out := filepath.Join(dir, "x")
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			run(t, tarBin, tc.tarFlag, "-xf", arch, "-C", out)
			top := filepath.Join(out, "foo-1.0-archive")
			checkExtracted(t, top, entries)
			if got := narOfDir(t, top); got != res.NAR {
				t.Errorf("NAR of extracted tree = %s, Write reported %s", got, res.NAR)
			}

			// GNU tar's own --sort=name order over the extracted tree must
			// equal ours.
			again := run(t, tarBin, "--sort=name", "-cf", "-", "-C", out, "foo-1.0-archive")
			cmd := exec.Command(tarBin, "-tf", "-")
			cmd.Stdin = strings.NewReader(again)
			theirList, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			ourList := run(t, tarBin, tc.tarFlag, "-tf", arch)
			if ourList != string(theirList) {
				t.Errorf("entry order differs from tar --sort=name:\nours:\n%s\ntar:\n%s", ourList, theirList)
			}
		})
	}
}

func checkListing(t *testing.T, listing string, entries []Entry, stamp string) {
	t.Helper()
	want := map[string]string{"foo-1.0-archive/": "drwxr-xr-x"}
	for _, e := range entries {
		name := "foo-1.0-archive/" + e.Path
		switch e.Type {
		case entry.Dir:
			want[name+"/"] = "drwxr-xr-x"
		case entry.Regular:
			want[name] = "-rw-r--r--"
			if e.Mode&0o111 != 0 {
				want[name] = "-rwxr-xr-x"
			}
		case entry.Symlink:
			want[name] = "lrwxrwxrwx"
		case entry.Hardlink:
			want[name] = "hrwxr-xr-x" // all hardlink targets in sampleEntries are executable
		}
	}
	lines := strings.Split(strings.TrimSpace(listing), "\n")
	seen := 0
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 6 {
			t.Errorf("odd listing line %q", l)
			continue
		}
		mode, owner, date, clock, name := f[0], f[1], f[3], f[4], f[5]
		if owner != "0/0" {
			t.Errorf("%s: owner %s, want 0/0", name, owner)
		}
		if got := date + " " + clock; got != stamp {
			t.Errorf("%s: mtime %s, want %s", name, got, stamp)
		}
		if w, ok := want[name]; ok {
			seen++
			if mode != w {
				t.Errorf("%s: mode %s, want %s", name, mode, w)
			}
		}
	}
	// sampleEntries has implicit parents (bin, a, share...) that are not in want.
	if seen != len(want) {
		t.Errorf("listing matched %d of %d expected entries:\n%s", seen, len(want), listing)
	}
}

func checkExtracted(t *testing.T, top string, entries []Entry) {
	t.Helper()
	for _, e := range entries {
		p := filepath.Join(top, filepath.FromSlash(e.Path))
		fi, err := os.Lstat(p)
		if err != nil {
			t.Errorf("%s: %v", e.Path, err)
			continue
		}
		switch e.Type {
		case entry.Dir:
			if !fi.IsDir() || fi.Mode().Perm() != 0o755 {
				t.Errorf("%s: mode %v, want dir 0755", e.Path, fi.Mode())
			}
		case entry.Regular:
			wantPerm := fs.FileMode(0o644)
			if e.Mode&0o111 != 0 {
				wantPerm = 0o755
			}
			if !fi.Mode().IsRegular() || fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != wantPerm {
				t.Errorf("%s: mode %v, want %v", e.Path, fi.Mode(), wantPerm)
			}
			got, _ := os.ReadFile(p)
			rc, _ := e.Open()
			want, _ := io.ReadAll(rc)
			if !bytes.Equal(got, want) {
				t.Errorf("%s: content differs (%d vs %d bytes)", e.Path, len(got), len(want))
			}
		case entry.Symlink:
			if target, err := os.Readlink(p); err != nil || target != e.Link {
				t.Errorf("%s: readlink = %q, %v; want %q", e.Path, target, err, e.Link)
			}
		case entry.Hardlink:
			tfi, err := os.Lstat(filepath.Join(top, filepath.FromSlash(e.Link)))
			if err != nil || !os.SameFile(fi, tfi) {
				t.Errorf("%s: not a hardlink of %s (%v)", e.Path, e.Link, err)
			}
		}
	}
}

// TestNixHash compares the streamed NAR hash with nix-hash over the tree
// extracted by GNU tar.
func TestNixHash(t *testing.T) {
	nixHash := testutil.RequireTool(t, "nix-hash")
	tarBin := testutil.RequireTool(t, "tar")
	data, res := writeArchive(t, sampleEntries(100000), Options{Top: "n"})
	dir := t.TempDir()
	arch := filepath.Join(dir, "n.tar.xz")
	if err := os.WriteFile(arch, data, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, tarBin, "-xJf", arch, "-C", dir)
	// Hex output works with every nix version (--sri needs nix >= 2.4).
	got := strings.TrimSpace(run(t, nixHash, "--type", "sha256", filepath.Join(dir, "n")))
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(res.NAR, "sha256-"))
	if err != nil {
		t.Fatal(err)
	}
	if want := hex.EncodeToString(raw); got != want {
		t.Errorf("nix-hash = %s, Write NAR = %s (%s)", got, want, res.NAR)
	}
}
