package debtest

import (
	"archive/tar"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debredist/debredist/internal/testutil"
)

func sample(comp string) Deb {
	return Deb{
		Control: "Package: cuda-nvcc-12-6\nVersion: 12.6.68-1\nArchitecture: arm64\n" +
			"Maintainer: cudatools <cudatools@nvidia.com>\nDescription: CUDA nvcc",
		Compression: comp,
		AddParents:  true,
		MD5Sums:     true,
		MTime:       time.Unix(1700000000, 0),
		Files: []File{
			{Name: "usr/local/cuda-12.6/bin/nvcc", Mode: 0755, Body: []byte("\x7fELF fake nvcc")},
			{Name: "usr/local/cuda-12.6/include/x.h", Body: []byte("#pragma once\n")},
			{Name: "usr/local/cuda-12.6/lib64", Type: tar.TypeSymlink, Linkname: "targets/aarch64-linux/lib"},
			{Name: "usr/local/cuda-12.6/bin/nvcc2", Type: tar.TypeLink, Linkname: "usr/local/cuda-12.6/bin/nvcc"},
			{Name: "usr/share/doc/cuda-nvcc-12-6", Type: tar.TypeDir},
		},
	}
}

func TestBuildDeterministic(t *testing.T) {
	for _, comp := range []string{"xz", "gzip", "zstd", "none"} {
		a, err := Build(sample(comp))
		if err != nil {
			t.Fatalf("%s: %v", comp, err)
		}
		b, err := Build(sample(comp))
		if err != nil {
			t.Fatalf("%s: %v", comp, err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two builds differ", comp)
		}
		if !bytes.HasPrefix(a, []byte("!<arch>\ndebian-binary   1700000000  0     0     100644  4         `\n2.0\n")) {
			t.Errorf("%s: unexpected ar start %q", comp, a[:80])
		}
	}
}

func TestBuildAcceptedByDpkgDeb(t *testing.T) {
	dpkg := testutil.RequireTool(t, "dpkg-deb")
	dir := t.TempDir()
	for _, comp := range []string{"xz", "gzip", "zstd", "none"} {
		b, err := Build(sample(comp))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, comp+".deb")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(dpkg, "-c", p).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: dpkg-deb -c: %v\n%s", comp, err, out)
		}
		var names []string
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			names = append(names, f[5])
		}
		want := []string{"./", "./usr/", "./usr/local/", "./usr/local/cuda-12.6/", "./usr/local/cuda-12.6/bin/",
			"./usr/local/cuda-12.6/bin/nvcc", "./usr/local/cuda-12.6/include/", "./usr/local/cuda-12.6/include/x.h",
			"./usr/local/cuda-12.6/lib64", "./usr/local/cuda-12.6/bin/nvcc2", "./usr/share/", "./usr/share/doc/",
			"./usr/share/doc/cuda-nvcc-12-6/"}
		if strings.Join(names, " ") != strings.Join(want, " ") {
			t.Errorf("%s: dpkg-deb -c names\n got %v\nwant %v", comp, names, want)
		}
		out, err = exec.Command(dpkg, "-f", p, "Package", "Version").CombinedOutput()
		if err != nil {
			t.Fatalf("%s: dpkg-deb -f: %v\n%s", comp, err, out)
		}
		if got := string(out); got != "Package: cuda-nvcc-12-6\nVersion: 12.6.68-1\n" {
			t.Errorf("%s: dpkg-deb -f = %q", comp, got)
		}
		out, err = exec.Command(dpkg, "-I", p, "md5sums").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "usr/local/cuda-12.6/bin/nvcc\n") {
			t.Errorf("%s: dpkg-deb -I md5sums: %v\n%s", comp, err, out)
		}
		x := filepath.Join(dir, comp)
		if out, err := exec.Command(dpkg, "-x", p, x).CombinedOutput(); err != nil {
			t.Fatalf("%s: dpkg-deb -x: %v\n%s", comp, err, out)
		}
		got, err := os.ReadFile(filepath.Join(x, "usr/local/cuda-12.6/bin/nvcc"))
		if err != nil || string(got) != "\x7fELF fake nvcc" {
			t.Errorf("%s: extracted nvcc = %q, %v", comp, got, err)
		}
	}
}

func TestBuildKnobs(t *testing.T) {
	d := sample("none")
	d.MemberOrder = []string{"control", "debian-binary", "_extra"}
	d.ExtraMembers = []Member{{Name: "_extra", Body: []byte("odd")}}
	d.ArSlash = true
	d.NoPadding = true
	b, err := Build(d)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("!<arch>\ncontrol.tar/")) {
		t.Errorf("order/slash not applied: %q", b[:30])
	}
	if !bytes.HasSuffix(b, []byte("`\nodd")) {
		t.Errorf("NoPadding not applied: %q", b[len(b)-10:])
	}
	d.MemberOrder = []string{"nope"}
	if _, err := Build(d); err == nil {
		t.Error("unknown member in MemberOrder accepted")
	}
	if _, err := Build(Deb{Compression: "bzip2"}); err == nil {
		t.Error("bzip2 accepted")
	}
}
