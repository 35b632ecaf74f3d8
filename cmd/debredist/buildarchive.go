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
	args:    "--provenance FILE --archive PATH --out FILE [--deb FILE...]",
	summary: "build one recorded archive again from its debs (what a Nix derivation runs)",
	help: `Builds again the one archive of a provenance sidecar (OUT/<product>/redist/
debredist-provenance_<label>.json) whose relative_path is --archive (a wrong one
is refused, listing those the sidecar records), with the recorded profile,
compression, preset and entry mtime, from exactly the debs the sidecar records for
it. It plans nothing. The archive is written to --out only when its size and sha256
are the manifest's: the bytes are the ones convert wrote, or the command fails
naming both hashes.

Without --deb it takes the debs from the cache by their recorded sha256 (where
convert and fetch keep them), fetching those not there from --mirror (default
$DEBREDIST_MIRROR, else the mirror the conversion read, else NVIDIA's repository)
and checking each against that sha256, as fetch does; --offline uses the cache
only and names every deb not there. With --deb it reads the deb files given
instead (each once; matched to the recorded debs by sha256, every recorded deb
must be given: the error names each one that is not).

This is the builder of the fixed-output derivations that 'debredist nix
--derivations' prints: Nix fetches the debs, runs this with --deb, and checks the
output against the manifest's sha256 once more.`,
	example: `debredist build-archive --provenance out/cuda/redist/debredist-provenance_12.6.68.json \
  --archive cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz --out cuda_cudart.tar.xz
debredist build-archive --offline --provenance out/cuda/redist/debredist-provenance_12.6.68.json \
  --archive cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz --out again.tar.xz`,
	verbose: "log a line per deb found in the cache or fetched",
	quiet:   "no progress on stderr: only warnings and errors",
	flags: func(a *app, fs *flagSet) func([]string) error {
		prov := fs.String("provenance", "", "the provenance sidecar `file` that records the archive")
		rel := fs.String("archive", "", "the archive's relative_path in the manifest (`path`)")
		out := fs.String("out", "", "write the archive to `file` (must not exist)")
		fs.alias("o", "out")
		var debs repeatFlag
		fs.Var(
			&debs,
			"deb",
			"a deb `file` the archive is made from (repeat for each; default: the recorded debs from the cache or mirror)",
		)
		var sel selection
		sel.registerDebSource(
			fs,
			"without --deb; default $DEBREDIST_MIRROR, else the mirror the conversion read, else NVIDIA's repository",
			"for the recorded debs, without --deb",
		)
		downloads := downloadsFlag(fs)
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
			case len(debs) > 0 && (sel.mirror != "" || sel.cache != "" || sel.offline || *downloads != 0):
				return usagef(
					"--mirror, --cache, --offline and --downloads say where and how to find the debs: give them or --deb, not both",
				)
			}
			p, err := debredist.ReadProvenanceFile(*prov)
			if err != nil {
				return err
			}
			if len(debs) == 0 {
				o := sel.source(a)
				o.Source.ParallelDownloads = *downloads
				pr := a.newProgress()
				o.OnEvent = pr.handle
				debs, err = debredist.RecordedDebs(a.ctx, o, p, *rel)
				pr.close(err)
				if err != nil {
					return err
				}
			}
			err = debredist.BuildArchive(a.ctx, p, *rel, debs, *out, debredist.DebLimits{})
			if ue := (*fault.UsageError)(nil); errors.As(err, &ue) && ue.File == *out && strings.HasPrefix(ue.Msg, "out ") {
				ue.Msg = "--" + ue.Msg // the library names its parameter out: here the flag --out
			}
			return err
		}
	},
}
