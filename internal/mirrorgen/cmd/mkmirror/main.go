// Command mkmirror writes a fake NVIDIA Jetson apt mirror (real package
// names, versions and paths; synthetic payloads) with package mirrorgen.
//
//	go run ./internal/mirrorgen/cmd/mkmirror -out testdata/sample-mirror -suites r35.6,r36.4,r36.5,r39.2
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/debredist/debredist/internal/mirrorgen"
)

func main() {
	out := flag.String("out", "", "output directory (required)")
	suites := flag.String(
		"suites",
		strings.Join(mirrorgen.SampleSuites(), ","),
		"comma-separated L4T suites; available: "+strings.Join(mirrorgen.Suites(), ","),
	)
	indexes := flag.String(
		"indexes",
		"Packages,Packages.gz,Packages.xz,Release",
		"comma-separated index files to write (Packages, Packages.gz, Packages.xz, Release)",
	)
	dpkg := flag.Bool("dpkg-deb", false, "build debs with dpkg-deb --build instead of the built-in builder")
	clean := flag.Bool(
		"clean",
		false,
		"remove the output directory's repo trees first (only directories containing dists/)",
	)
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *out, *suites, *indexes, *dpkg, *clean); err != nil {
		fmt.Fprintln(os.Stderr, "mkmirror:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, suites, indexes string, dpkg, clean bool) error {
	if clean {
		ents, err := os.ReadDir(out)
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		for _, e := range ents {
			repo := filepath.Join(out, e.Name())
			// Only remove what looks like a generated repo.
			if st, err := os.Stat(filepath.Join(repo, "dists")); err == nil && st.IsDir() {
				if err := os.RemoveAll(repo); err != nil {
					return err
				}
			}
		}
	}
	return mirrorgen.Generate(ctx, out, mirrorgen.Options{
		Suites:     strings.Split(suites, ","),
		Indexes:    strings.Split(indexes, ","),
		UseDpkgDeb: dpkg,
	})
}
