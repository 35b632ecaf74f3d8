package debredist_test

import (
	"context"
	"fmt"
	"os"
	"path"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/plan"
)

// The stages compose: Plan JetPack 6 (a function of the indexes and the
// profile: no deb is read), keep the packages wanted, ConvertPlan exactly
// those (their debs and no other are fetched and read), and list the
// resulting OUT through the reader of one generation, debredist/outdir
// (paths as reached through the product links, never .debredist/gen-N).
func ExampleConvertPlan() {
	ctx := context.Background()
	cache, _ := os.MkdirTemp("", "debredist-cache")
	defer func() { _ = os.RemoveAll(cache) }()
	out, _ := os.MkdirTemp("", "debredist-out")
	defer func() { _ = os.RemoveAll(out) }()
	o := debredist.Options{
		Source:  debredist.Source{Mirror: sampleMirror, CacheDir: cache},
		Release: debredist.Release{JetPack: "6"},
		Build:   debredist.Build{Out: out},
	}
	pl, err := debredist.Plan(ctx, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	var keep []plan.Package
	for _, p := range pl.Packages {
		if p.PName == "cuda_cudart" || p.PName == "cuda_nvcc" {
			keep = append(keep, p)
		}
	}
	pl.Packages = keep
	res, err := debredist.ConvertPlan(ctx, o, pl)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("built:", len(res.Packages), "packages from", res.Downloads.Downloaded+res.Downloads.Cached, "debs")

	snap, err := outdir.Open(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = snap.Close() }()
	for _, m := range snap.Manifests { // relative to out: "cuda/redist/redistrib_12.6.68.json"
		fmt.Println("manifest", m)
		prov, _, err := snap.ReadSidecar(m)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, a := range prov.Archives {
			file := path.Join(path.Dir(m), a.RelativePath)
			fmt.Println("  archive", a.RelativePath, "from", len(a.Debs), "debs, present:", snap.IsFile(file))
		}
	}
	// Output:
	// built: 2 packages from 6 debs
	// manifest cuda/redist/redistrib_12.6.68.json
	//   archive cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz from 3 debs, present: true
	//   archive cuda_nvcc/linux-aarch64/cuda_nvcc-linux-aarch64-12.6.68-archive.tar.xz from 3 debs, present: true
}
