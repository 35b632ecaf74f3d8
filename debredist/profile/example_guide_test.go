package profile_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/debredist/debredist/debredist/profile"
)

// ForJetPack finds a built-in profile by JetPack version, profile name or
// alias.
func ExampleForJetPack() {
	for _, v := range []string{"5", "6.2", "jetpack7", "7.0"} {
		p, err := profile.ForJetPack(v)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(v, "->", p.Name, p.L4T, "CUDA", p.CUDA, p.Platform, p.Repos)
	}
	_, err := profile.ForJetPack("4")
	fmt.Println(err != nil)
	// Output:
	// 5 -> jetpack5 r35.6 CUDA 11.4 linux-aarch64 [common t234]
	// 6.2 -> jetpack6 r36.5 CUDA 12.6 linux-aarch64 [common t234]
	// jetpack7 -> jetpack7 r39.2 CUDA 13.2 linux-sbsa [common som]
	// 7.0 -> jetpack7.0 r38.4 CUDA 13.0 linux-sbsa [common som]
	// true
}

// ForSuite gives the built-in profile of a suite, or derives one from the
// built-in profile of the same L4T major; a derived profile's CUDA version
// and release date come from the index (Resolve), and it expects no
// particular packages.
func ExampleForSuite() {
	p, _ := profile.ForSuite("r36.5")
	fmt.Println(p.Name, p.CUDA, p.ReleaseDate, len(p.Expect) > 0)

	p, err := profile.ForSuite("r36.6")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s %q %q %v\n", p.Name, p.CUDA, p.ReleaseDate, len(p.Expect) > 0)

	// What the index tells: the cuda-cudart-X-Y package names the CUDA
	// version, the L4T debs' build timestamps the release date.
	p, err = p.Resolve([]profile.Binary{
		{Name: "cuda-cudart-12-6", Version: "12.6.68-1"},
		{Name: "nvidia-l4t-core", Version: "36.6.0-20260612101500"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name, p.CUDA, p.ReleaseDate)
	// Output:
	// jetpack6 12.6 2026-01-15 true
	// l4t-r36.6 "" "" false
	// l4t-r36.6 12.6 2026-06-12
}

// Load reads a profile file: fields it leaves out come from the built-in
// profile of the same L4T major, and its rules go in front of the built-in
// rules (Merged). Every name and path is checked; a bad one is a
// *profile.InvalidError naming the field.
func ExampleLoad() {
	const file = `{
  "name": "my-r36.6",
  "l4t": "r36.6",
  "rules": {
    "rules": [
      {"match": "srv/nvidia/**", "drop": "telemetry configuration, not part of the redist"}
    ]
  }
}`
	p, err := profile.Load(strings.NewReader(file), "my-r36.6.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name, p.L4T, p.Platform, p.Target, p.Repos)
	first := p.Merged().Paths[0]
	fmt.Println(first.Match, "dropped:", first.Drop)

	_, err = profile.Load(strings.NewReader(`{"name": "My Profile", "l4t": "r36.6"}`), "bad.json")
	var ie *profile.InvalidError
	if errors.As(err, &ie) {
		fmt.Println(ie.File, ie.Field, ie.Value)
	}
	// Output:
	// my-r36.6 r36.6 linux-aarch64 aarch64-linux [common t234]
	// srv/nvidia/** dropped: telemetry configuration, not part of the redist
	// bad.json name My Profile
}

// Builtin lists the embedded releases, the profiles behind --jetpack.
func ExampleBuiltin() {
	for _, p := range profile.Builtin() {
		fmt.Println(p.Name, p.L4T, p.CUDA, p.CUDAMajor(), p.CUDADashed(), p.Capabilities)
	}
	// Output:
	// jetpack5 r35.6 11.4 11 11-4 [7.2 8.7]
	// jetpack6 r36.5 12.6 12 12-6 [8.7]
	// jetpack7.0 r38.4 13.0 13 13-0 [11.0]
	// jetpack7 r39.2 13.2 13 13-2 [8.7 11.0]
}
