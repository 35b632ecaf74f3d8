package deb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/testutil"
)

// listing is one entry as both dpkg-deb -c and Reader report it.
type listing struct {
	Name     string
	Type     byte // - d l h
	Perm     string
	Size     int64
	Linkname string
}

func (l listing) String() string {
	return fmt.Sprintf("%c %s %d %s -> %s", l.Type, l.Perm, l.Size, l.Name, l.Linkname)
}

// dpkgList runs dpkg-deb -c and parses its listing (names without spaces).
func dpkgList(t *testing.T, dpkg, debPath string) []listing {
	t.Helper()
	out, err := exec.Command(dpkg, "-c", debPath).Output()
	if err != nil {
		t.Fatalf("dpkg-deb -c %s: %v", debPath, err)
	}
	var ls []listing
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			t.Fatalf("unparsable dpkg-deb -c line %q", line)
		}
		var size int64
		if _, err := fmt.Sscan(f[2], &size); err != nil {
			t.Fatalf("dpkg-deb -c line %q: size: %v", line, err)
		}
		l := listing{Type: f[0][0], Perm: f[0][1:], Size: size}
		name := strings.TrimPrefix(f[5], "./")
		name = strings.TrimSuffix(name, "/")
		if name == "" {
			continue // root
		}
		l.Name = name
		switch {
		case len(f) == 8 && f[6] == "->":
			l.Linkname = f[7]
		case len(f) == 9 && f[6] == "link" && f[7] == "to":
			l.Linkname = strings.TrimPrefix(f[8], "./")
		}
		ls = append(ls, l)
	}
	return ls
}

// readAll reads every entry and the regular files' contents.
func readAll(t *testing.T, r io.Reader, opts Options) ([]listing, map[string][]byte, *Reader) {
	t.Helper()
	rd, err := NewReader(context.Background(), r, opts)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	defer func() { _ = rd.Close() }()
	var ls []listing
	bodies := map[string][]byte{}
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		l := listing{Name: e.Path, Perm: fsPermString(e), Size: e.Size, Linkname: e.Link}
		switch e.Type {
		case entry.Regular:
			l.Type = '-'
			b, err := io.ReadAll(rd)
			if err != nil {
				t.Fatalf("Read %s: %v", e.Path, err)
			}
			if int64(len(b)) != e.Size {
				t.Errorf("%s: read %d bytes, header says %d", e.Path, len(b), e.Size)
			}
			bodies[e.Path] = b
		case entry.Dir:
			l.Type = 'd'
		case entry.Symlink:
			l.Type = 'l'
		case entry.Hardlink:
			l.Type = 'h'
			bodies[e.Path] = bodies[e.Link]
		}
		ls = append(ls, l)
	}
	return ls, bodies, rd
}

// fsPermString renders the mode like ls/tar (rwsr-xr-x).
func fsPermString(e *Entry) string {
	m := e.Mode
	b := []byte("rwxrwxrwx")
	for i := 0; i < 9; i++ {
		if m&(1<<(8-i)) == 0 {
			b[i] = '-'
		}
	}
	set := func(i int, on bool, lower, upper byte) {
		if !on {
			return
		}
		if b[i] == 'x' {
			b[i] = lower
		} else {
			b[i] = upper
		}
	}
	set(2, m&os.ModeSetuid != 0, 's', 'S')
	set(5, m&os.ModeSetgid != 0, 's', 'S')
	set(8, m&os.ModeSticky != 0, 't', 'T')
	return string(b)
}

// makeTree writes a realistic package tree into dir and returns the expected
// regular file contents.
func makeTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{
		"usr/local/cuda-12.6/bin/nvcc":                                       bytes.Repeat([]byte("\x7fELF nvcc "), 3001),
		"usr/local/cuda-12.6/targets/aarch64-linux/lib/libcudart.so.12.6.68": bytes.Repeat([]byte{0, 1, 2, 3, 250}, 7777),
		"usr/local/cuda-12.6/targets/aarch64-linux/include/cuda.h":           []byte("#pragma once\n"),
		"usr/share/doc/cuda-x/copyright":                                     []byte("odd"),
		"usr/share/doc/cuda-x/empty":                                         nil,
		"usr/" + strings.Repeat("long", 30) + "/" + strings.Repeat("n", 110): []byte("long name"),
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(filepath.Join(dir, "usr/local/cuda-12.6/bin/nvcc"), 0o4755))
	must(os.Symlink("targets/aarch64-linux/lib", filepath.Join(dir, "usr/local/cuda-12.6/lib64")))
	must(
		os.Symlink(
			"libcudart.so.12.6.68",
			filepath.Join(dir, "usr/local/cuda-12.6/targets/aarch64-linux/lib/libcudart.so.12"),
		),
	)
	must(os.Symlink("/usr/lib/aarch64-linux-gnu/tegra/libcuda.so", filepath.Join(dir, "usr/local/cuda-12.6/libcuda.so")))
	must(
		os.Link(filepath.Join(dir, "usr/local/cuda-12.6/bin/nvcc"), filepath.Join(dir, "usr/local/cuda-12.6/bin/nvcc-hard")),
	)
	must(os.MkdirAll(filepath.Join(dir, "usr/share/empty-dir"), 0o2775))
	must(os.Chmod(filepath.Join(dir, "usr/share/empty-dir"), 0o2775))
	files["usr/local/cuda-12.6/bin/nvcc-hard"] = files["usr/local/cuda-12.6/bin/nvcc"]
	return files
}

const testControl = `Package: cuda-nvcc-12-6
Source: cuda-nvcc (12.6.68-1)
Version: 12.6.68-1
Architecture: arm64
Maintainer: cudatools <cudatools@nvidia.com>
Installed-Size: 123
Depends: cuda-cudart-12-6, libc6
Section: devel
Priority: optional
Description: CUDA nvcc
 The CUDA compiler.
 .
 Second paragraph.
`

func TestReaderMatchesDpkgDeb(t *testing.T) {
	dpkg := testutil.RequireTool(t, "dpkg-deb")
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	want := makeTree(t, root)
	if err := os.MkdirAll(filepath.Join(root, "DEBIAN"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "DEBIAN/control"), []byte(testControl), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "DEBIAN/postinst"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, comp := range []string{"xz", "gzip", "zstd", "none"} {
		for _, sysxz := range []bool{false, true} {
			if sysxz && comp != "xz" {
				continue
			}
			t.Run(fmt.Sprintf("%s/systemxz=%v", comp, sysxz), func(t *testing.T) {
				if sysxz {
					testutil.RequireTool(t, "xz")
				}
				debPath := filepath.Join(dir, comp+".deb")
				out, err := exec.Command(dpkg, "--root-owner-group", "-Z"+comp, "--build", root, debPath).CombinedOutput()
				if err != nil {
					t.Fatalf("dpkg-deb --build: %v\n%s", err, out)
				}
				wantList := dpkgList(t, dpkg, debPath)
				f, err := os.Open(debPath)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				got, bodies, rd := readAll(t, f, Options{Name: filepath.Base(debPath), SystemXZ: sysxz, systemXZMin: 1})
				if g, w := fmt.Sprint(got), fmt.Sprint(wantList); g != w {
					t.Errorf("entries differ from dpkg-deb -c\n got %v\nwant %v", got, wantList)
				}
				for name, body := range want {
					if !bytes.Equal(bodies[name], body) {
						t.Errorf("%s: content differs (got %d bytes, want %d)", name, len(bodies[name]), len(body))
					}
				}
				// Control() versus dpkg-deb -f.
				ctl := rd.Control()
				for _, field := range []string{"Package", "Version", "Architecture", "Source", "Depends", "Description",
					"Installed-Size"} {
					out, err := exec.Command(dpkg, "-f", debPath, field).Output()
					if err != nil {
						t.Fatalf("dpkg-deb -f %s: %v", field, err)
					}
					w := strings.TrimSuffix(string(out), "\n")
					w = strings.ReplaceAll(w, "\n .\n", "\n\n")
					w = strings.ReplaceAll(w, "\n ", "\n")
					if g := ctl.Field(field); g != w {
						t.Errorf("Control field %s = %q, dpkg-deb -f says %q", field, g, w)
					}
				}
				if ctl.Package != "cuda-nvcc-12-6" || ctl.Source != "cuda-nvcc" || ctl.SourceVersion != "12.6.68-1" ||
					ctl.Architecture != "arm64" {
					t.Errorf("Control = %+v", ctl)
				}
				if string(rd.ControlFiles()["postinst"]) != "#!/bin/sh\nexit 0\n" {
					t.Errorf("ControlFiles postinst = %q", rd.ControlFiles()["postinst"])
				}
				if _, ok := rd.ControlFiles()["control"]; !ok {
					t.Errorf("ControlFiles has no control: %v", keys(rd.ControlFiles()))
				}
			})
		}
	}
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestDebtestBuildReadBack proves the debtest builder is dpkg-compatible and
// that the Reader returns what it was given.
func TestDebtestBuildReadBack(t *testing.T) {
	dpkg := testutil.RequireTool(t, "dpkg-deb")
	d := debtest.Deb{
		Control:    testControl,
		AddParents: true,
		MD5Sums:    true,
		Files: []debtest.File{
			{Name: "usr/local/cuda-12.6/bin/nvcc", Mode: 0o755, Body: []byte("nvcc")},
			{Name: "usr/local/cuda-12.6/bin/ptxas", Mode: 0o6755, Body: []byte("ptxas odd")},
			{Name: "usr/local/cuda-12.6/lib64", Type: '2', Linkname: "targets/aarch64-linux/lib"},
			{Name: "usr/local/cuda-12.6/bin/nvcc.hard", Type: '1', Linkname: "usr/local/cuda-12.6/bin/nvcc"},
			{Name: "usr/share/doc/x/" + strings.Repeat("z", 150), Body: []byte("long")},
			{Name: "tmp", Type: '5', Mode: 0o1777},
		},
	}
	dir := t.TempDir()
	for _, comp := range []string{"xz", "gzip", "zstd", "none"} {
		for _, format := range []string{"gnu", "pax"} {
			t.Run(comp+"/"+format, func(t *testing.T) {
				d := d
				d.Compression = comp
				if format == "pax" {
					d.TarFormat = 4 // tar.FormatPAX
				}
				b, err := debtest.Build(d)
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, comp+format+".deb")
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				if out, err := exec.Command(dpkg, "-I", p).CombinedOutput(); err != nil {
					t.Fatalf("dpkg-deb -I: %v\n%s", err, out)
				}
				wantList := dpkgList(t, dpkg, p)
				got, bodies, rd := readAll(t, bytes.NewReader(b), Options{})
				if g, w := fmt.Sprint(got), fmt.Sprint(wantList); g != w {
					t.Errorf("entries differ from dpkg-deb -c\n got %v\nwant %v", got, wantList)
				}
				for _, f := range d.Files {
					if f.Type == 0 && !bytes.Equal(bodies[f.Name], f.Body) {
						t.Errorf("%s: got %q want %q", f.Name, bodies[f.Name], f.Body)
					}
				}
				if !strings.Contains(string(rd.ControlFiles()["md5sums"]), "usr/local/cuda-12.6/bin/nvcc\n") {
					t.Errorf("md5sums = %q", rd.ControlFiles()["md5sums"])
				}
			})
		}
	}
}

var _ = errors.Is
