package verify_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/verify"
)

// convert writes the cuda_cudart redist of JetPack 6 from the bundled
// sample mirror into a new temporary directory, as debredist's
// ExampleConvert does.
func convert() (out string, cleanup func(), err error) {
	out, _ = os.MkdirTemp("", "debredist-example")
	cache, _ := os.MkdirTemp("", "debredist-cache")
	cleanup = func() { _ = os.RemoveAll(out); _ = os.RemoveAll(cache) }
	_, err = debredist.Convert(context.Background(), debredist.Options{
		Source:  debredist.Source{Mirror: "../../testdata/sample-mirror", CacheDir: cache},
		Release: debredist.Release{JetPack: "6"},
		Build:   debredist.Build{Out: out, Only: []string{"cuda_cudart"}},
	})
	return out, cleanup, err
}

// Dir re-reads every manifest of an output directory and checks each
// archive it names. The error is for failures to run at all; what is wrong
// with the output is in the report, every problem at once, and Report.Err
// turns them into one *verify.Error.
func ExampleDir() {
	out, cleanup, err := convert()
	defer cleanup()
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := verify.Dir(context.Background(), out)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("manifests:", rep.Manifests) // relative to the directory
	for _, a := range rep.Artifacts {
		fmt.Println(a.Component, a.Platform, a.Path, "problems:", len(a.Problems))
	}
	fmt.Println("archives:", rep.Archives(), "ok:", rep.OK())

	// Damage the archive: the report names it, and Err lists every problem.
	// (Archive.Path is the manifest's relative_path: relative to the
	// manifest's directory, which Archive.Manifest names.)
	a := rep.Artifacts[0]
	archive := filepath.Join(out, filepath.FromSlash(path.Dir(a.Manifest)), filepath.FromSlash(a.Path))
	if err := os.WriteFile(archive, []byte("not an archive"), 0o644); err != nil {
		fmt.Println(err)
	}
	rep, err = verify.Dir(context.Background(), out)
	if err != nil {
		fmt.Println(err)
		return
	}
	var ve *verify.Error
	if errors.As(rep.Err(), &ve) {
		// The size differs from the manifest's: one problem of one archive
		// (found by stat: a file of another size is not read), whose Path
		// is relative to the checked directory.
		fmt.Println("ok:", rep.OK(), "problems:", len(ve.Problems))
		fmt.Println(ve.Problems[0].Path)
	}
	// Output:
	// manifests: [cuda/redist/redistrib_12.6.68.json]
	// cuda_cudart linux-aarch64 cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz problems: 0
	// archives: 1 ok: true
	// ok: false problems: 1
	// cuda/redist/cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz
}

// Nixpkgs applies nixpkgs' buildRedist rules to every archive of an output
// directory, as a build would: which outputs each archive fills, for which
// Jetson devices the package evaluates, and what would fail.
func ExampleNixpkgs() {
	out, cleanup, err := convert()
	defer cleanup()
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := verify.Nixpkgs(context.Background(), out)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range rep.Components {
		fmt.Println(c.Component, c.Version, "CUDA", c.CUDA, "known:", c.Known, "devices:", c.Devices)
		outputs := make([]string, 0, len(c.Outputs))
		for o := range c.Outputs {
			outputs = append(outputs, o)
		}
		sort.Strings(outputs)
		for _, o := range outputs {
			fmt.Println("  output", o, c.Outputs[o] > 0)
		}
		fmt.Println("  failures:", len(c.Failures))
	}
	fmt.Println("ok:", rep.Err() == nil)
	// Output:
	// cuda_cudart 12.6.68 CUDA 12.6 known: true devices: [8.7: evaluates]
	//   output out true
	//   failures: 0
	// ok: true
}
