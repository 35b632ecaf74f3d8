package reldiff_test

import (
	"fmt"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/reldiff"
)

// release plans a JetPack release from a few debs, as debredist.Diff does
// from a mirror's indexes or a lock file.
func release(jetpack string, debs ...apt.Package) *reldiff.Input {
	p, err := profile.ForJetPack(jetpack)
	if err != nil {
		panic(err)
	}
	pl, err := plan.Group(p, debs)
	if err != nil {
		panic(err)
	}
	return &reldiff.Input{Ref: "jetpack" + jetpack, Origin: "mirror", Profile: pl.Profile, Packages: pl.Packages}
}

func deb(name, source, version string) apt.Package {
	return apt.Package{Repo: "common", Name: name, Source: source, Version: version, SHA256: name + version}
}

// Compare diffs two releases per product and component: versions, and the
// debs added, removed, renamed (the same name but for its digits) or
// changed. Others is nil here: the releases were given without the debs
// no component converts.
func ExampleCompare() {
	from := release("5",
		deb("cuda-cudart-11-4", "cuda-cudart", "11.4.298-1"),
		deb("cuda-cudart-dev-11-4", "cuda-cudart", "11.4.298-1"),
		deb("libcudnn8", "cudnn", "8.6.0.166-1+cuda11.4"),
	)
	to := release("6",
		deb("cuda-cudart-12-6", "cuda-cudart", "12.6.68-1"),
		deb("cuda-cudart-dev-12-6", "cuda-cudart", "12.6.68-1"),
		deb("libcublas-12-6", "libcublas", "12.6.1.4-1"),
	)
	r := reldiff.Compare(from, to)
	fmt.Println(r.From.Profile, r.From.CUDA, "->", r.To.Profile, r.To.CUDA)
	for _, p := range r.Products {
		fmt.Printf("%s %q -> %q\n", p.Product, p.FromLabel, p.ToLabel)
		for _, c := range p.Components {
			fmt.Printf("  %s %s %q -> %q\n", c.Status, c.PName, c.FromVersion, c.ToVersion)
			for _, rn := range c.DebsRenamed {
				fmt.Println("    renamed", rn.From.Name, "=>", rn.To.Name)
			}
		}
	}
	fmt.Println("no differences:", r.Empty(), "others known:", r.Others != nil)
	// Output:
	// jetpack5 11.4 -> jetpack6 12.6
	// cuda "11.4.298" -> "12.6.68"
	//   changed cuda_cudart "11.4.298" -> "12.6.68"
	//     renamed cuda-cudart-11-4 => cuda-cudart-12-6
	//     renamed cuda-cudart-dev-11-4 => cuda-cudart-dev-12-6
	//   added libcublas "" -> "12.6.1.4"
	// cudnn "8.6.0" -> ""
	//   removed cudnn "8.6.0.166" -> ""
	// no differences: false others known: false
}

// CompareFiles compares the layouts of one component on both sides (what
// debredist.Diff does with DiffOptions.Files): paths added and removed,
// types and link targets changed, and the deb paths of the new side that no
// layout rule places.
func ExampleCompareFiles() {
	from := reldiff.NewListing([]entry.Header{
		{Path: "lib/libcudart.so", Type: entry.Symlink, Link: "libcudart.so.11.0"},
		{Path: "lib/libcudart.so.11.0", Type: entry.Symlink, Link: "libcudart.so.11.4.298"},
		{Path: "lib/libcudart.so.11.4.298", Mode: 0o644},
	}, nil, nil)
	to := reldiff.NewListing([]entry.Header{
		{Path: "lib/libcudart.so", Type: entry.Symlink, Link: "libcudart.so.12"},
		{Path: "lib/libcudart.so.12", Type: entry.Symlink, Link: "libcudart.so.12.6.68"},
		{Path: "lib/libcudart.so.12.6.68", Mode: 0o644},
	}, []fault.DebPath{{Deb: "cuda-cudart-12-6_12.6.68-1_arm64.deb", Path: "./srv/nvidia/cudart.conf"}}, nil)
	f := reldiff.CompareFiles(&from, &to)
	fmt.Println("added:", f.Added)
	fmt.Println("removed:", f.Removed)
	for _, l := range f.LinkChanged {
		fmt.Println("link:", l.Path, l.From, "->", l.To)
	}
	for _, u := range f.Unplaced {
		fmt.Println("unplaced:", u.Deb, u.Path)
	}
	// Output:
	// added: [lib/libcudart.so.12 lib/libcudart.so.12.6.68]
	// removed: [lib/libcudart.so.11.0 lib/libcudart.so.11.4.298]
	// link: lib/libcudart.so libcudart.so.11.0 -> libcudart.so.12
	// unplaced: cuda-cudart-12-6_12.6.68-1_arm64.deb ./srv/nvidia/cudart.conf
}
