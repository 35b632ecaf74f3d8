package apt_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/debredist/debredist/debredist/apt"
)

// CompareVersions orders Debian versions as dpkg does: epochs first, "~"
// before anything, revisions last.
func ExampleCompareVersions() {
	for _, p := range [][2]string{
		{"12.6.68-1", "12.6.77-1"},
		{"9.3.0.75-1~rc1", "9.3.0.75-1"},
		{"1:9.0.0-1", "9.3.0.75-1"},
		{"10.3.0.30-1+cuda12.5", "10.3.0.30-1+cuda12.5"},
	} {
		c, err := apt.CompareVersions(p[0], p[1])
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(p[0], map[int]string{-1: "<", 0: "=", 1: ">"}[c], p[1])
	}
	// Output:
	// 12.6.68-1 < 12.6.77-1
	// 9.3.0.75-1~rc1 < 9.3.0.75-1
	// 1:9.0.0-1 > 9.3.0.75-1
	// 10.3.0.30-1+cuda12.5 = 10.3.0.30-1+cuda12.5
}

// NewScanner streams an index one stanza at a time (any compression,
// sniffed from the bytes), so memory does not grow with the index; unsafe
// stanzas are skipped and listed by Problems.
func ExampleNewScanner() {
	index := `Package: cuda-cudart-12-6
Version: 12.6.68-1
Source: cuda-cudart
Filename: pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb
Size: 188530
SHA256: 54456ed3372670d6a6d7e19d5971ec234800fe620dfb822aa751bc7d80f2a516

Package: nvidia-jetpack
Version: 6.2.2+b24
Filename: pool/main/n/nvidia-jetpack/nvidia-jetpack_6.2.2+b24_arm64.deb
Size: 2000
SHA256: 2a6ba1b4c1c6d0e4bbf1e2a7a3b5d9c0e1f2a3b4c5d6e7f8091a2b3c4d5e6f70
Description: NVIDIA Jetpack Meta Package
 This is a meta-package.
`
	s, err := apt.NewScanner(strings.NewReader(index), apt.ParseOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = s.Close() }()
	for {
		p, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(p.Name, p.Version, "source:", p.Source, "meta:", p.IsMeta(), "line:", p.Line)
	}
	fmt.Println("problems:", len(s.Problems()))
	// Output:
	// cuda-cudart-12-6 12.6.68-1 source: cuda-cudart meta: false line: 1
	// nvidia-jetpack 6.2.2+b24 source: nvidia-jetpack meta: true line: 8
	// problems: 0
}

// A Release file lists every index of a suite with its size and sha256;
// Verify checks an index's bytes against it, which is what tells a
// complete index from one cut short.
func ExampleReleaseFile_Verify() {
	index := "Package: cuda-cudart-12-6\nVersion: 12.6.68-1\n"
	sum := sha256.Sum256([]byte(index))
	release := fmt.Sprintf(`Origin: NVIDIA
Label: Jetson
Suite: r36.5
Architectures: arm64
Components: main
SHA256:
 %s %d main/binary-arm64/Packages
`, hex.EncodeToString(sum[:]), len(index))
	r, err := apt.ParseReleaseFile(strings.NewReader(release))
	if err != nil {
		fmt.Println(err)
		return
	}
	repo := apt.NewRepo("", "common", r.Suite)
	path := repo.IndexPath("Packages") // the key of the index in the Release
	fmt.Println(path, r.Has(path))
	fmt.Println("complete:", r.Verify(path, strings.NewReader(index)))

	// An index cut short is a *apt.MismatchError.
	var me *apt.MismatchError
	err = r.Verify(path, strings.NewReader(index[:20]))
	fmt.Println("cut short:", errors.As(err, &me), me.ExpectedSize, me.ActualSize)

	// An index the Release does not list.
	err = r.Verify(repo.IndexPath("Packages.xz"), strings.NewReader(index))
	fmt.Println("not listed:", errors.Is(err, apt.ErrNotListed))
	// Output:
	// main/binary-arm64/Packages true
	// complete: <nil>
	// cut short: true 45 20
	// not listed: true
}

// ReadLock reads debredist's lock format or jetpack-nixos'
// sourceinfo/<suite>-debs.json, told apart by shape. The sourceinfo format
// names no suite and no sizes: the caller sets Suite.
func ExampleReadLock() {
	const sourceinfo = `{
  "common": {
    "cuda-cudart-12-6": {
      "filename": "pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb",
      "sha256": "54456ed3372670d6a6d7e19d5971ec234800fe620dfb822aa751bc7d80f2a516",
      "source": "cuda-cudart",
      "version": "12.6.68-1"
    }
  }
}`
	l, err := apt.ReadLock(strings.NewReader(sourceinfo))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("suite %q\n", l.Suite)
	for _, p := range l.Packages {
		fmt.Println(p.Repo, p.Name, p.Version, p.Source, p.Size)
	}
	// Output:
	// suite ""
	// common cuda-cudart-12-6 12.6.68-1 cuda-cudart 0
}

// CheckFilename is the rule every pool path from an index or lock file
// passes before it is joined to a mirror; SplitSource splits a Source
// field.
func ExampleCheckFilename() {
	for _, f := range []string{
		"pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb",
		"../../etc/passwd",
		"/pool/x.deb",
	} {
		fmt.Println(f, apt.CheckFilename(f) == nil)
	}
	name, version, _ := apt.SplitSource("tensorrt (8.5.2-1+cuda11.4)")
	fmt.Println(name, version)
	// Output:
	// pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb true
	// ../../etc/passwd false
	// /pool/x.deb false
	// tensorrt 8.5.2-1+cuda11.4
}
