package main

import (
	"errors"
	"strings"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/fault"
)

// repeatFlag collects every value of a flag given several times (paths may
// hold commas, so no splitting).
type repeatFlag []string

func (r *repeatFlag) String() string     { return "" }
func (r *repeatFlag) Set(s string) error { *r = append(*r, s); return nil }

var buildArchiveCmd = &command{
	name:    "build-archive",
	args:    "--provenance FILE --archive PATH --deb FILE... --out FILE",
	summary: "build one recorded archive again from given debs (what a Nix derivation runs)",
	help: `Builds again the one archive of a provenance sidecar (OUT/<product>/redist/
debredist-provenance_<label>.json) whose relative_path is --archive, from the deb
files given with --deb (each once; matched to the recorded debs by sha256, every
recorded deb must be given), with the recorded profile, compression, preset and
entry mtime. It plans nothing and downloads nothing. The archive is written to
--out only when its size and sha256 are the manifest's: the bytes are the ones
convert wrote, or the command fails naming both hashes.

This is the builder of the fixed-output derivations that 'debredist nix
--derivations' prints: Nix fetches the debs, runs this, and checks the output
against the manifest's sha256 once more.`,
	example: `debredist build-archive --provenance out/cuda/redist/debredist-provenance_12.6.68.json \
  --archive cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz \
  --deb cuda-cudart-12-6_12.6.68-1_arm64.deb --deb cuda-cudart-dev-12-6_12.6.68-1_arm64.deb \
  --deb cuda-driver-dev-12-6_12.6.68-1_arm64.deb --out cuda_cudart.tar.xz`,
	flags: func(a *app, fs *flagSet) func([]string) error {
		prov := fs.String("provenance", "", "the provenance sidecar `file` that records the archive")
		rel := fs.String("archive", "", "the archive's relative_path in the manifest (`path`)")
		out := fs.String("out", "", "write the archive to `file` (must not exist)")
		fs.alias("o", "out")
		var debs repeatFlag
		fs.Var(&debs, "deb", "a deb `file` the archive is made from (repeat for each)")
		return func(args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			switch {
			case *prov == "":
				return usagef("missing required flag --provenance")
			case *rel == "":
				return usagef("missing required flag --archive")
			case *out == "":
				return usagef("missing required flag --out")
			}
			p, err := debredist.ReadProvenanceFile(*prov)
			if err != nil {
				return err
			}
			err = debredist.BuildArchive(a.ctx, p, *rel, debs, *out, debredist.DebLimits{})
			if ue := (*fault.UsageError)(nil); errors.As(err, &ue) && ue.File == *out && strings.HasPrefix(ue.Msg, "out ") {
				ue.Msg = "--" + ue.Msg // the library names its parameter out: here the flag --out
			}
			return err
		}
	},
}
