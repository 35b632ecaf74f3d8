package debredist_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
)

// The examples below run offline against the bundled sample mirror, a
// directory laid out like NVIDIA's https://repo.download.nvidia.com/jetson.
const sampleMirror = "../testdata/sample-mirror"

// Fetch fills the content-addressed deb cache without converting anything:
// the debs of the plan (here narrowed to one redist package with
// Build.Only), each verified against the sha256 its index promises.
// A second call finds them all in the cache.
func ExampleFetch() {
	cache, _ := os.MkdirTemp("", "debredist-cache")
	defer func() { _ = os.RemoveAll(cache) }()
	o := debredist.Options{
		Source:  debredist.Source{Mirror: sampleMirror, CacheDir: cache},
		Release: debredist.Release{JetPack: "6"},
		Build:   debredist.Build{Only: []string{"cuda_cudart"}},
	}
	res, err := debredist.Fetch(context.Background(), o)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range res.Debs {
		// Paths maps each deb's sha256 to its file in the cache.
		_, cached := res.Paths[d.SHA256]
		fmt.Println(d.Repo, d.Name, d.Version, "cached:", cached)
	}
	fmt.Println("downloaded:", res.Downloads.Downloaded, "from cache:", res.Downloads.Cached)

	// The same call again: nothing to download.
	res, err = debredist.Fetch(context.Background(), o)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("downloaded:", res.Downloads.Downloaded, "from cache:", res.Downloads.Cached)
	// Output:
	// common cuda-cudart-12-6 12.6.68-1 cached: true
	// common cuda-cudart-dev-12-6 12.6.68-1 cached: true
	// common cuda-driver-dev-12-6 12.6.68-1 cached: true
	// downloaded: 3 from cache: 0
	// downloaded: 0 from cache: 3
}

// Fetch with package names fetches those binary packages of the release's
// repos, converted or not (here an L4T driver deb of the t234 repo).
func ExampleFetch_packages() {
	cache, _ := os.MkdirTemp("", "debredist-cache")
	defer func() { _ = os.RemoveAll(cache) }()
	res, err := debredist.Fetch(context.Background(), debredist.Options{
		Source:  debredist.Source{Mirror: sampleMirror, CacheDir: cache},
		Release: debredist.Release{L4T: "r36.5"},
	}, "nvidia-l4t-core")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range res.Debs {
		fmt.Println(d.Repo, d.Name, d.Version)
	}
	// Output:
	// t234 nvidia-l4t-core 36.5.0-20260115194252
}

// ExtractDeb unpacks a deb's data.tar safely: no path or link may leave
// dir, setuid bits and world-writable modes are stripped (each reported to
// Warn), and the result appears all at once or not at all.
func ExampleExtractDeb() {
	dir, _ := os.MkdirTemp("", "debredist-extract")
	defer func() { _ = os.RemoveAll(dir) }()
	out := filepath.Join(dir, "cudart") // must not exist, or be empty (see Force)

	// A deb of the sample mirror, found by its pool path (an index's Filename).
	deb := filepath.Join(sampleMirror, "common",
		"pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb")
	err := debredist.ExtractDeb(context.Background(), deb, out, debredist.ExtractOptions{
		Warn: func(msg string) { fmt.Println("warning:", msg) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// List what it holds: files and symlinks, as the deb ships them.
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		if target, err := os.Readlink(p); err == nil {
			fmt.Println(filepath.ToSlash(rel), "->", target)
		} else {
			fmt.Println(filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// usr/local/cuda-12.6/lib64 -> targets/aarch64-linux/lib
	// usr/local/cuda-12.6/targets/aarch64-linux/lib/libcudart.so.12 -> libcudart.so.12.6.68
	// usr/local/cuda-12.6/targets/aarch64-linux/lib/libcudart.so.12.6.68
	// usr/share/doc/cuda-cudart-12-6/changelog.Debian.gz
	// usr/share/doc/cuda-cudart-12-6/copyright
}

// Nix prints the Nix overlay that makes nixpkgs' CUDA package set of OUT's
// release use OUT's manifests and archives (apply it after jetpack-nixos'
// overlay). It names OUT by absolute path; only a few lines are shown here.
func ExampleNix() {
	out, _ := os.MkdirTemp("", "debredist-example")
	defer func() { _ = os.RemoveAll(out) }()
	cache, _ := os.MkdirTemp("", "debredist-cache")
	defer func() { _ = os.RemoveAll(cache) }()
	_, err := debredist.Convert(context.Background(), debredist.Options{
		Source:  debredist.Source{Mirror: sampleMirror, CacheDir: cache},
		Release: debredist.Release{JetPack: "6"},
		Build:   debredist.Build{Out: out, Only: []string{"cuda_cudart"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	overlay, err := debredist.Nix(context.Background(), out, debredist.NixOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The package set it overrides, the archive to add to the Nix store
	// (debredist nix --add-to-store does it) and what the overlay states of
	// the package (OUT stands for the directory).
	fmt.Println(overlay.Set)
	for _, a := range overlay.Archives {
		fmt.Println(strings.ReplaceAll(a, out, "OUT"))
	}
	var data struct {
		Packages map[string]struct {
			Releases map[string]struct {
				RelativePath string `json:"relative_path"`
			} `json:"releases"`
			Outputs []string `json:"outputs"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(overlay.Data, &data); err != nil {
		fmt.Println(err)
		return
	}
	p := data.Packages["cuda_cudart"]
	fmt.Println(p.Releases["linux-aarch64"].RelativePath, p.Outputs)
	// Output:
	// cudaPackages_12_6
	// OUT/cuda/redist/cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz
	// cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz [out dev include lib static stubs]
}

// Profiles lists the built-in releases; FindProfile picks one by name,
// alias, JetPack version or L4T suite, as Release.JetPack and Release.L4T
// do.
func ExampleFindProfile() {
	for _, p := range debredist.Profiles() {
		fmt.Println(p.Name, p.JetPack, p.L4T, p.CUDA, p.Platform)
	}
	for _, name := range []string{"6", "jetpack7.0", "r35.6"} {
		p, err := debredist.FindProfile(name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s -> %s\n", name, p.Name)
	}
	// Output:
	// jetpack5 5.1.6 r35.6 11.4 linux-aarch64
	// jetpack6 6.2.2 r36.5 12.6 linux-aarch64
	// jetpack7.0 7.1 r38.4 13.0 linux-sbsa
	// jetpack7 7.2 r39.2 13.2 linux-sbsa
	// 6 -> jetpack6
	// jetpack7.0 -> jetpack7.0
	// r35.6 -> jetpack5
}

// LoadProfile reads a profile file (the format 'debredist profiles --json 6'
// prints); fields it leaves out come from the built-in profile of the same
// L4T major. Release.ProfileFile does the same for a conversion.
func ExampleLoadProfile() {
	dir, _ := os.MkdirTemp("", "debredist-profile")
	defer func() { _ = os.RemoveAll(dir) }()
	file := filepath.Join(dir, "my-r36.6.json")
	if err := os.WriteFile(file, []byte(`{"name": "my-r36.6", "l4t": "r36.6"}`), 0o644); err != nil {
		fmt.Println(err)
		return
	}

	p, err := debredist.LoadProfile(file)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name, p.L4T, p.Platform, p.Target, p.Repos)

	// A value outside its grammar is a *profile.InvalidError naming the
	// field.
	if err := os.WriteFile(file, []byte(`{"name": "My Profile", "l4t": "r36.6"}`), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	_, err = debredist.LoadProfile(file)
	var ie *profile.InvalidError
	if errors.As(err, &ie) {
		fmt.Printf("%s: %q\n", ie.Field, ie.Value)
	}
	// Output:
	// my-r36.6 r36.6 linux-aarch64 aarch64-linux [common t234]
	// name: "My Profile"
}

// Options.Check reports options that cannot work together before anything
// runs, as a *fault.UsageError: here two release selectors.
func ExampleOptions_Check() {
	err := debredist.Options{Release: debredist.Release{JetPack: "6", L4T: "r36.5"}}.Check()
	var ue *fault.UsageError
	fmt.Println(errors.As(err, &ue))
	fmt.Println(err)
	// Output:
	// true
	// give only one of Release.JetPack, Release.L4T and Release.ProfileFile
}

// BuildArchive rebuilds one archive a conversion recorded, from the debs
// its provenance sidecar pins and nothing else (what the derivations of
// 'debredist nix --derivations' run): the bytes must come out as the
// manifest says, or nothing is written.
func ExampleBuildArchive() {
	out, _ := os.MkdirTemp("", "debredist-example")
	defer func() { _ = os.RemoveAll(out) }()
	cache, _ := os.MkdirTemp("", "debredist-cache")
	defer func() { _ = os.RemoveAll(cache) }()
	o := debredist.Options{
		Source:  debredist.Source{Mirror: sampleMirror, CacheDir: cache},
		Release: debredist.Release{JetPack: "6"},
		Build:   debredist.Build{Out: out, Only: []string{"cuda_cudart"}},
	}
	res, err := debredist.Convert(context.Background(), o)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The provenance sidecar beside the cuda manifest.
	sidecar, _ := redist.SidecarFor(filepath.Join(out, filepath.FromSlash(res.Products[0].Manifest)))
	f, err := os.Open(sidecar)
	if err != nil {
		fmt.Println(err)
		return
	}
	prov, err := redist.ReadProvenance(f)
	f.Close()
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := prov.Archives[0]

	// The debs it records, from the cache (Fetch finds them there).
	fetched, err := debredist.Fetch(context.Background(), o)
	if err != nil {
		fmt.Println(err)
		return
	}
	var debs []string
	for _, d := range rec.Debs {
		debs = append(debs, fetched.Paths[d.SHA256])
	}
	again := filepath.Join(out, "again.tar.xz")
	if err := debredist.BuildArchive(context.Background(), prov, rec.RelativePath, debs, again,
		debredist.DebLimits{}); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(again)
	fmt.Println(rec.RelativePath, len(rec.Debs), "debs")
	fmt.Println("same bytes:", fmt.Sprintf("%x", sha256.Sum256(b)) == rec.SHA256)
	// Output:
	// cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz 3 debs
	// same bytes: true
}
