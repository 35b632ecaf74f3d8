package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cudartArchive is the one archive of a `convert --only cuda_cudart` of
// JetPack 6, as OUT shows it.
const cudartArchive = "cuda/redist/cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz"

// convertCudart converts JetPack 6's cuda_cudart from the sample mirror
// into a new OUT and returns it with the generation's path of the archive.
func convertCudart(t *testing.T) (out, genArchive string) {
	t.Helper()
	out = filepath.Join(t.TempDir(), "out")
	code, _, stderr := cli(t, "convert", "--jetpack", "6", "--only", "cuda_cudart", "--mirror", sampleMirror,
		"--cache", t.TempDir(), "--out", out)
	if code != exitOK {
		t.Fatalf("convert: %d %s", code, stderr)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(out, cudartArchive))
	if err != nil {
		t.Fatal(err)
	}
	return out, real
}

// runCLI runs this test binary as debredist with a deadline; a run still
// going after it gets SIGTERM, and must end within the grace after it.
func runCLI(t *testing.T, deadline time.Duration, args ...string) (code int, output string) {
	t.Helper()
	cmd := asCLI(t, args...)
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(deadline):
		t.Errorf("debredist %s: still running after %s (sent SIGTERM)", strings.Join(args, " "), deadline)
		_ = cmd.Process.Signal(syscall.SIGTERM) // had it ended meanwhile, the wait below returns at once
		grace := stopGrace + 5*time.Second
		select {
		case err = <-done:
		case <-time.After(grace):
			_ = cmd.Process.Kill()
			err = <-done
			t.Fatalf("debredist %s: SIGTERM did not end it within %s (%v)", strings.Join(args, " "), grace, err)
		}
	}
	if ee := (*exec.ExitError)(nil); err != nil && !errors.As(err, &ee) {
		t.Fatalf("debredist %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), buf.String()
}

// TestOutLinksAndSpecialFilesNotRead: as someone who can write OUT,
// replace files of the current generation with links (to identical bytes
// outside OUT, to /etc/passwd), a FIFO or a sparse file of another size,
// and link a manifest and a whole directory outside: verify, verify
// --nixpkgs and nix never follow the link, never wait on the FIFO, never
// read the sparse file, and verify exits 1 naming what it refused.
func TestOutLinksAndSpecialFilesNotRead(t *testing.T) {
	clean, _ := convertCudart(t)
	outside := t.TempDir()
	for _, tc := range []struct {
		name   string
		attack func(t *testing.T, out, genArchive string)
		want   []string // in verify's output
	}{
		{"archive linked to an identical copy outside", func(t *testing.T, out, a string) {
			cp := filepath.Join(outside, "x.tar.xz")
			copyFileT(t, a, cp)
			replace(t, a, func() error { return os.Symlink(cp, a) })
		}, []string{
			"is a symbolic link (to " + strconv.Quote(filepath.Join(outside, "x.tar.xz")) +
				") that debredist did not write: not followed",
			"cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz",
		}},
		{"archive linked to /etc/passwd", func(t *testing.T, out, a string) {
			replace(t, a, func() error { return os.Symlink("/etc/passwd", a) })
		}, []string{`(to "/etc/passwd") that debredist did not write: not followed`}},
		{"archive a FIFO", func(t *testing.T, out, a string) {
			replace(t, a, func() error { return syscall.Mkfifo(a, 0o644) })
		}, []string{"is a named pipe (FIFO), not a regular file: not read"}},
		{"archive a link to a FIFO outside", func(t *testing.T, out, a string) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			replace(t, a, func() error { return os.Symlink(fifo, a) })
		}, []string{"that debredist did not write: not followed"}},
		{"archive a sparse 8 GiB file", func(t *testing.T, out, a string) {
			replace(t, a, func() error {
				f, err := os.Create(a)
				if err == nil {
					err = f.Truncate(8 << 30)
					if cerr := f.Close(); err == nil {
						err = cerr
					}
				}
				return err
			})
		}, []string{"size is 8589934592 bytes, manifest says"}},
		{"manifest linked outside", func(t *testing.T, out, a string) {
			mf := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(a))), "redistrib_12.6.68.json")
			cp := filepath.Join(t.TempDir(), "m.json")
			copyFileT(t, mf, cp)
			replace(t, mf, func() error { return os.Symlink(cp, mf) })
		}, []string{"cuda/redist/redistrib_12.6.68.json: a symbolic link (to "}},
		{"platform directory linked outside", func(t *testing.T, out, a string) {
			linkDirOutside(t, filepath.Dir(a))
		}, []string{"cuda/redist/cuda_cudart/linux-aarch64: a symbolic link (to "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if err := exec.Command("cp", "-a", clean, out).Run(); err != nil {
				t.Fatal(err)
			}
			a, err := filepath.EvalSymlinks(filepath.Join(out, cudartArchive))
			if err != nil {
				t.Fatal(err)
			}
			tc.attack(t, out, a)
			start := time.Now()
			code, output := runCLI(t, 20*time.Second, "verify", out)
			if code != exitFailure {
				t.Errorf("verify: exit %d, want 1:\n%s", code, output)
			}
			for _, w := range tc.want {
				if !strings.Contains(output, w) {
					t.Errorf("verify's output lacks %q:\n%s", w, output)
				}
			}
			if strings.Contains(output, "sha256 is") ||
				strings.Contains(output, "size is 1") && strings.Contains(tc.name, "passwd") {
				t.Errorf("verify read what it should not have:\n%s", output)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("verify took %s", d)
			}
			if code, output := runCLI(t, 20*time.Second, "verify", "--nixpkgs", out); code != exitFailure {
				t.Errorf("verify --nixpkgs: exit %d, want 1:\n%s", code, output)
			}
			// nix refuses an OUT with links it did not write (the overlay
			// would silently lack what they stand for); otherwise it
			// writes its overlay, listing what nixpkgs would fail on:
			// here the archive it did not read.
			code, output = runCLI(t, 20*time.Second, "nix", out)
			switch link := strings.Contains(tc.name, "link"); {
			case link && (code != exitFailure || !strings.Contains(output, "debredist did not write, not followed")):
				t.Errorf("nix: exit %d, want 1 naming the link:\n%s", code, output)
			case !link && (code != exitFailure || !strings.Contains(output, "cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz")):
				t.Errorf("nix: exit %d, want 1 naming the archive it cannot take:\n%s", code, output)
			}
		})
	}
}

// replace removes the file at p and makes something else there.
func replace(t *testing.T, p string, make func() error) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := make(); err != nil {
		t.Fatal(err)
	}
}

func copyFileT(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExitAfterGrace: once the graceful stop was asked for, the process
// exits with 130 after the grace whatever the run is blocked on.
func TestExitAfterGrace(t *testing.T) {
	var buf strings.Builder
	got := make(chan int, 1)
	start := time.Now()
	go exitAfter(50*time.Millisecond, &buf, func(code int) { got <- code })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	select {
	case code := <-got:
		if code != exitInterrupted {
			t.Errorf("exit %d, want %d", code, exitInterrupted)
		}
		if time.Since(start) < 50*time.Millisecond {
			t.Errorf("exited before the grace")
		}
		if !strings.Contains(buf.String(), "still not stopped") {
			t.Errorf("no message: %q", buf.String())
		}
	case <-ctx.Done():
		t.Fatal("no exit after the grace")
	}
}

// TestVerifyManifestAgainstProvenance: as someone who can write OUT, edit
// a manifest's or a sidecar's fields (the archive untouched) or write a
// key twice: verify exits 1 naming the field or the key.
func TestVerifyManifestAgainstProvenance(t *testing.T) {
	clean, _ := convertCudart(t)
	const manifest, sidecar = "cuda/redist/redistrib_12.6.68.json", "cuda/redist/debredist-provenance_12.6.68.json"
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{
			"version",
			manifest,
			`"version": "12.6.68"`,
			`"version": "99.0"`,
			`field version: the manifest says "99.0", the provenance sidecar records "12.6.68"`,
		},
		{
			"version with a line break",
			manifest,
			`"version": "12.6.68"`,
			`"version": "12.6.68\nnext"`,
			`cuda_cudart.version: "12.6.68\nnext" is not dotted numbers`,
		},
		{
			"component key",
			manifest,
			`"cuda_cudart": {`,
			`"cuda_cudart_x": {`,
			`field pname (the component's key): the manifest says "cuda_cudart_x", the provenance sidecar records "cuda_cudart"`,
		},
		{
			"platform",
			manifest,
			`"linux-aarch64": {`,
			`"linux-sbsa": {`,
			`field platform: the manifest says "linux-sbsa", the provenance sidecar records "linux-aarch64"`,
		},
		{
			"size",
			manifest,
			`"size": "3284"`,
			`"size": "3285"`,
			`field size: the manifest says "3285", the provenance sidecar records "3284"`,
		},
		{"md5", manifest, `"md5": "c`, `"md5": "d`, `field md5: the manifest says "d`},
		{
			"duplicate key in the manifest",
			manifest,
			`"version": "12.6.68",`,
			`"version": "99.0", "version": "12.6.68",`,
			`duplicate key "version" in object cuda_cudart`,
		},
		{
			"duplicate key in the sidecar",
			sidecar,
			`"pname": "cuda_cudart",`,
			`"pname": "other", "pname": "cuda_cudart",`,
			`duplicate key "pname" in object archives[0]`,
		},
		{
			"sidecar version",
			sidecar,
			`"version": "12.6.68",`,
			`"version": "12.6.69",`,
			`field version: the manifest says "12.6.68", the provenance sidecar records "12.6.69"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if err := exec.Command("cp", "-a", clean, out).Run(); err != nil {
				t.Fatal(err)
			}
			p, err := filepath.EvalSymlinks(filepath.Join(out, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			edited := strings.Replace(string(b), tc.old, strings.ReplaceAll(tc.new, "\n", `\n`), 1)
			if edited == string(b) {
				t.Fatalf("%s holds no %s", tc.file, tc.old)
			}
			if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := cli(t, "verify", out)
			if code != exitFailure {
				t.Errorf("verify: exit %d, want 1\n%s%s", code, stdout, stderr)
			}
			if want := strings.ReplaceAll(tc.want, "\n", `\n`); !strings.Contains(stdout+stderr, want) {
				t.Errorf("verify does not say %q:\n%s%s", want, stdout, stderr)
			}
		})
	}
	// The sidecar's records emptied: no check is turned off by that.
	t.Run("records emptied", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		if err := exec.Command("cp", "-a", clean, out).Run(); err != nil {
			t.Fatal(err)
		}
		p, err := filepath.EvalSymlinks(filepath.Join(out, sidecar))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		doc["archives"] = []any{}
		b, _ = json.MarshalIndent(doc, "", "  ")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := cli(t, "verify", out)
		if code != exitFailure || !strings.Contains(stdout+stderr, "not recorded in the provenance sidecar") {
			t.Errorf("verify with the sidecar's records emptied: exit %d\n%s%s", code, stdout, stderr)
		}
	})
}

// TestBuildArchiveSpecialFiles: build-archive never waits on a named pipe
// or reads a device given as --provenance or --deb: it exits 2 naming it.
func TestBuildArchiveSpecialFiles(t *testing.T) {
	out, _ := convertCudart(t)
	prov := filepath.Join(out, "cuda", "redist", "debredist-provenance_12.6.68.json")
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	rel := strings.TrimPrefix(cudartArchive, "cuda/redist/")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{
			[]string{"--provenance", fifo, "--deb", "x.deb"},
			"provenance " + fifo + " is a named pipe (FIFO), not a regular file: not read",
		},
		{[]string{"--provenance", "/dev/zero", "--deb", "x.deb"}, "/dev/zero is a character device, not a regular file"},
		{[]string{"--provenance", prov, "--deb", fifo}, fifo + " is a named pipe (FIFO), not a regular file"},
		{[]string{"--provenance", prov, "--deb", "/dev/zero"}, "/dev/zero is a character device, not a regular file"},
	} {
		args := append(
			[]string{"build-archive", "--archive", rel, "--out", filepath.Join(t.TempDir(), "a.tar.xz")},
			tc.args...)
		code, output := runCLI(t, 20*time.Second, args...)
		if code != exitUsage || !strings.Contains(output, tc.want) {
			t.Errorf("%s: exit %d, want 2 saying %q:\n%s", strings.Join(args, " "), code, tc.want, output)
		}
	}
}

// TestDiffOutNotFollowed: diff reads an OUT's provenance through the same
// reader as verify: a sidecar replaced by a FIFO, or by a link to a
// sidecar elsewhere, is not read (diff says the OUT holds no provenance
// record, or names the link it did not follow), and a FIFO given as a side
// is never waited on.
func TestDiffOutNotFollowed(t *testing.T) {
	clean, _ := convertCudart(t)
	const sidecar = "cuda/redist/debredist-provenance_12.6.68.json"
	elsewhere := filepath.Join(t.TempDir(), "sidecar.json")
	for _, tc := range []struct {
		name   string
		attack func(p string) error
	}{
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"link", func(p string) error { return os.Symlink(elsewhere, p) }},
	} {
		out := filepath.Join(t.TempDir(), "out")
		if err := exec.Command("cp", "-a", clean, out).Run(); err != nil {
			t.Fatal(err)
		}
		p, err := filepath.EvalSymlinks(filepath.Join(out, sidecar))
		if err != nil {
			t.Fatal(err)
		}
		copyFileT(t, p, elsewhere)
		replace(t, p, func() error { return tc.attack(p) })
		want := "is a named pipe (FIFO), not a regular file: not read"
		if tc.name == "link" {
			want = "1 symbolic link(s) debredist did not write, not followed: " + filepath.Join(out, sidecar)
		}
		code, output := runCLI(t, 20*time.Second, "diff", clean, out)
		if code != exitFailure || !strings.Contains(output, want) {
			t.Errorf("%s: diff: exit %d, want 1 saying %q:\n%s", tc.name, code, want, output)
		}
	}
	fifo := filepath.Join(t.TempDir(), "lock.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	code, output := runCLI(t, 20*time.Second, "diff", clean, fifo)
	if code != exitUsage || !strings.Contains(output, "is a named pipe (FIFO), not a regular file") {
		t.Errorf("diff with a FIFO side: exit %d, want 2 naming the FIFO:\n%s", code, output)
	}
}

// TestNixDerivationsMirror: convert records a mirror directory given
// relative as an absolute path, so nix --derivations works from another
// directory (one holding a same-named directory too); DEBREDIST_MIRROR
// overrides it as for the other commands; a mirror directory whose index
// is not the one the conversion read is refused.
func TestNixDerivationsMirror(t *testing.T) {
	sample, err := filepath.Abs(sampleMirror)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	m := filepath.Join(work, "m")
	if err := exec.Command("cp", "-a", sample, m).Run(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, "out")
	t.Chdir(work)
	if code, _, stderr := cli(t, "convert", "--jetpack", "6", "--only", "cuda_cudart", "--mirror", "./m",
		"--cache", "cache", "--out", "out"); code != exitOK {
		t.Fatalf("convert: %d %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "cuda", "redist", "debredist-provenance_12.6.68.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"url": "`+m+`/common/dists/`) {
		t.Errorf("the provenance does not record the mirror as %s:\n%s", m, b)
	}
	elsewhere := t.TempDir()
	if err := os.Mkdir(filepath.Join(elsewhere, "m"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(elsewhere)
	t.Setenv("DEBREDIST_MIRROR", "")
	// The deb URLs the derivations fetch (the data the file reads).
	debURLs := func() (int, []string, string) {
		code, stdout, stderr := cli(t, "nix", "--derivations", "--json", out)
		var d struct {
			Debs map[string]struct{ URL string }
		}
		var urls []string
		if code == exitOK {
			if err := json.Unmarshal([]byte(stdout), &d); err != nil {
				t.Fatal(err)
			}
			for _, deb := range d.Debs {
				urls = append(urls, deb.URL)
			}
		}
		return code, urls, stderr
	}
	allUnder := func(urls []string, prefix string) bool {
		for _, u := range urls {
			if !strings.HasPrefix(u, prefix) {
				return false
			}
		}
		return len(urls) > 0
	}
	code, urls, stderr := debURLs()
	if code != exitOK || !allUnder(urls, "file://"+m+"/common/pool/") {
		t.Errorf("nix --derivations from another directory: exit %d, want the debs from %s: %v %s", code, m, urls, stderr)
	}

	m2 := filepath.Join(t.TempDir(), "m2")
	if err := exec.Command("cp", "-a", sample, m2).Run(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DEBREDIST_MIRROR", m2)
	code, urls, stderr = debURLs()
	if code != exitOK || !allUnder(urls, "file://"+m2+"/common/pool/") {
		t.Errorf("nix --derivations with DEBREDIST_MIRROR=%s: exit %d: %v %s", m2, code, urls, stderr)
	}

	index := filepath.Join(m2, "common", "dists", "r36.5", "main", "binary-arm64", "Packages.xz")
	f, err := os.OpenFile(index, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write([]byte{0})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, "nix", "--derivations", out)
	if code != exitFailure ||
		!strings.Contains(
			stderr,
			"the mirror directory "+m2+" holds another index than the conversion read: "+index+" has sha256 ",
		) {
		t.Errorf("nix --derivations with a mirror holding another index: exit %d, want 1 naming it:\n%s", code, stderr)
	}
}

// TestConvertRebuildsLinkedArchive: an archive of the current generation
// replaced by a link to identical bytes outside OUT is not taken as up to
// date: the next convert builds it again, and the new generation holds a
// regular file.
func TestConvertRebuildsLinkedArchive(t *testing.T) {
	out, a := convertCudart(t)
	cp := filepath.Join(t.TempDir(), "x.tar.xz")
	copyFileT(t, a, cp)
	replace(t, a, func() error { return os.Symlink(cp, a) })
	if code, _, stderr := cli(t, "convert", "--jetpack", "6", "--only", "cuda_cudart", "--mirror", sampleMirror,
		"--cache", t.TempDir(), "--out", out); code != exitOK {
		t.Fatalf("convert: %d %s", code, stderr)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(out, filepath.Dir(cudartArchive)))
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(filepath.Join(real, filepath.Base(cudartArchive)))
	if err != nil || !st.Mode().IsRegular() {
		t.Errorf("the archive after convert: %v %v, want a regular file", st.Mode(), err)
	}
	if code, stdout, stderr := cli(t, "verify", out); code != exitOK {
		t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestConvertNeverWritesThroughLinkedDir: a platform directory of the
// current generation replaced by a link to a copy outside OUT: the next
// convert (with other bytes: --preset 1) neither writes nor removes
// anything there, and its generation holds real directories only.
func TestConvertNeverWritesThroughLinkedDir(t *testing.T) {
	out, a := convertCudart(t)
	dir := filepath.Dir(a)
	elsewhere := linkDirOutside(t, dir)
	before, err := os.ReadFile(filepath.Join(elsewhere, filepath.Base(a)))
	if err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli(t, "convert", "--jetpack", "6", "--only", "cuda_cudart", "--preset", "1",
		"--mirror", sampleMirror, "--cache", t.TempDir(), "--out", out); code != exitOK {
		t.Fatalf("convert: %d %s", code, stderr)
	}
	after, err := os.ReadFile(filepath.Join(elsewhere, filepath.Base(a)))
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("convert changed %s through the link (%v)", elsewhere, err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 1 {
		t.Errorf("%s holds %d files after convert, want the 1 it had", elsewhere, len(ents))
	}
	real, err := filepath.EvalSymlinks(filepath.Join(out, "cuda"))
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeSymlink != 0 {
			t.Errorf("the new generation holds a link: %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := cli(t, "verify", out); code != exitOK {
		t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestOutsideDirectoryNotRead: a real directory in an OUT with generations
// that is no product of the current one (here a copy of a product's tree)
// is not read as output: verify names it and fails, and nix's data holds
// only the generation's manifests.
func TestOutsideDirectoryNotRead(t *testing.T) {
	clean, _ := convertCudart(t)
	out := filepath.Join(t.TempDir(), "out")
	if err := exec.Command("cp", "-a", clean, out).Run(); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("cp", "-rL", filepath.Join(out, "cuda"), filepath.Join(out, "zz")).Run(); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, "verify", out)
	if code != exitFailure ||
		!strings.Contains(stdout+stderr, "zz: a directory that is no product of the current output") ||
		strings.Count(stdout, "archive.tar.xz") != 1 {
		t.Errorf("verify with a copied product directory: exit %d\n%s%s", code, stdout, stderr)
	}
}

// linkDirOutside moves a copy of dir outside OUT and puts a symbolic link
// to it where dir was, as someone who can write OUT would; it returns the
// copy.
func linkDirOutside(t *testing.T, dir string) string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), filepath.Base(dir))
	if err := exec.Command("cp", "-a", dir, cp).Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(cp, dir); err != nil {
		t.Fatal(err)
	}
	return cp
}
