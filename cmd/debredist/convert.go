package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/redist"
)

var convertCmd = &command{
	name:    "convert",
	args:    "(--jetpack 5|6|7 | --l4t rXX.Y | --lock FILE | --profile FILE) --out DIR [flags]",
	summary: "build redist archives and manifests from the release's debs",
	help: `Plans the release, fetches its debs into the cache, builds one archive per redist
package in NVIDIA's layout, writes redistrib_<label>.json manifests, LICENSE files
and provenance under --out, and verifies the result. Archives whose inputs did not
change are kept ("up to date"). --out switches from the old output to the new one
in one step (the next generation is built in --out/.debredist, then one rename):
an interrupted, failed or killed run leaves --out as it was or as the new output.
An --out that exists, is not empty and holds no debredist output (no
redistrib_*.json, no .debredist) is refused unless --allow-nonempty-out says to
write beside what it holds (verify then names each file that is not debredist's).

Archive entry mtimes are the profile's release date, or SOURCE_DATE_EPOCH (integer
seconds) when set. The output is byte-reproducible from the debs, the profile and
the debredist version. With --json the Result is printed on stdout and nothing else.

Warnings (stderr, and "warnings" in --json) name what a consumer will trip over: a
redist package whose debs carry no payload is skipped, not emitted; a declared
nixpkgs output its debs leave empty; an entry the layout dropped (a link into
/etc/alternatives that no rule resolves). The provenance sidecar lists every entry
the archive changes (stripped setuid/setgid/sticky bits, re-rooted or merged links).
Each warning about the output has a stable code, printed in brackets and in
--json ("warnings": code, package, message) and recorded per archive in the
provenance; a run that rebuilds nothing, or only --only's packages, reports the
warnings of every archive of the release in --out, so the same --out gives the same
list. --fail-on-warnings makes such a warning fail the run (exit 1, after --out is
written and verified) unless --allow-warning names its code. The codes:
nixpkgs-empty-output, nixpkgs-insecure, entry-dropped, profile-rule-unused.`,
	example: `debredist convert --jetpack 6 --out ./redist
debredist convert --l4t r36.5 --out ./redist --only cuda_cudart,cuda_nvcc --compress zstd
SOURCE_DATE_EPOCH=1700000000 debredist convert --lock jetpack6.lock --offline --out ./redist --json
debredist convert --jetpack 6 --out ./redist --fail-on-warnings --allow-warning nixpkgs-insecure`,
	verbose: "log a line per deb (downloaded, read or found in the cache) and per redist package built or up to date",
	quiet:   "no progress and no result table: only warnings and errors",
	flags: func(a *app, fs *flagSet) func([]string) error {
		var sel selection
		var only listFlag
		sel.register(fs)
		out := fs.String("out", "", "output `dir` (required)")
		fs.alias("o", "out")
		downloads := downloadsFlag(fs)
		jobs := fs.Int("jobs", 0, "`N` redist packages built at once (default: one per core, at least 2)")
		verifyCache := fs.Bool("verify-cache", false, "re-hash debs already in the cache")
		compress := fs.String("compress", "xz", "archive compression: `xz` or zstd")
		preset := fs.Int("preset", 0, "compression `level`: xz 1 (fastest) .. 6 (smallest), zstd 1..4; 0: the default (xz 4)")
		fs.Var(&only, "only", "convert only these redist packages (`pnames`, comma-separated or repeated)")
		lockOut := fs.String("lock-out", "", "write the lock of the debs used to `file`")
		asJSON := fs.Bool("json", false, "print the result as JSON on stdout (nothing else)")
		withSBOM := fs.Bool(
			"sbom",
			false,
			"write each manifest's bill of materials beside it (debredist-sbom_<label>.spdx.json and .cdx.json)",
		)
		failOnWarnings := fs.Bool(
			"fail-on-warnings",
			false,
			"exit 1 when the output has a warning whose code --allow-warning does not name (OUT is written and verified first)",
		)
		nonEmpty := fs.Bool(
			"allow-nonempty-out",
			false,
			"convert into an --out that is not empty and holds no debredist output (its files stay; verify names them)",
		)
		var allow listFlag
		fs.Var(
			&allow,
			"allow-warning",
			"a warning `code` that --fail-on-warnings accepts (comma-separated or repeated): "+strings.Join(
				redist.WarningCodes,
				", ",
			),
		)
		return func(args []string) error {
			o, pr, err := sel.start(a, args, func(o *debredist.Options) error {
				o.Build.Out, o.Source.ParallelDownloads, o.Build.Jobs, o.Source.VerifyCache = *out, *downloads, *jobs, *verifyCache
				o.Build.Compression, o.Build.Only, o.Build.LockOut = *compress, only, *lockOut
				o.Build.Preset, o.Build.SBOM = *preset, *withSBOM
				o.Build.FailOnWarnings, o.Build.AllowWarnings = *failOnWarnings, allow
				o.Build.AllowNonEmptyOut = *nonEmpty
				if err := o.Check(); err != nil {
					return err
				}
				if o.Build.Out == "" {
					return usagef("missing required flag --out")
				}
				return nil
			})
			if err != nil {
				return err
			}
			res, err := debredist.Convert(a.ctx, o)
			pr.close(err)
			var we *redist.WarningsError
			if err != nil && (!errors.As(err, &we) || res == nil) {
				return err
			}
			// With --fail-on-warnings the output is written: the result
			// is printed, then the run fails.
			if *asJSON {
				if jerr := writeDoc(a.stdout, "convert", res); jerr != nil {
					return jerr
				}
				return err
			}
			if a.quiet {
				return err
			}
			if perr := printResult(a.stdout, res); perr != nil {
				return perr
			}
			if *lockOut != "" {
				fmt.Fprintf(a.stdout, "lock     %s\n", *lockOut)
			}
			return err
		}
	},
}

// gotWord says how the debs not in the cache came: downloaded, or read
// from a directory mirror into the cache.
func gotWord(d event.Downloads) string {
	if d.Local {
		return "read from the mirror directory into the cache"
	}
	return "downloaded"
}

func printResult(w io.Writer, res *debredist.Result) error {
	labels := map[string]string{}
	for _, p := range res.Products {
		labels[p.Product] = p.Label
	}
	// Products in the plan's order (as plan lists them), packages by name.
	order := map[string]int{}
	for i, p := range res.Products {
		order[p.Product] = i
	}
	pkgs := append([]debredist.PackageResult(nil), res.Packages...)
	sort.SliceStable(pkgs, func(i, j int) bool {
		if pkgs[i].Product != pkgs[j].Product {
			return order[pkgs[i].Product] < order[pkgs[j].Product]
		}
		return pkgs[i].PName < pkgs[j].PName
	})
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PRODUCT\tLABEL\tPNAME\tVERSION\tSIZE\tSTATUS")
	built, current := 0, 0
	for _, p := range pkgs {
		status := "built"
		if p.UpToDate {
			status = "up to date"
			current++
		} else {
			built++
		}
		fmt.Fprintf(
			tw,
			"%s\t%s\t%s\t%s\t%s\t%s\n",
			p.Product,
			labels[p.Product],
			p.PName,
			p.Version,
			humanBytes(p.Size),
			status,
		)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d built, %d up to date in %s", built, current, res.Out)
	if d := res.Downloads; d.Downloaded > 0 {
		fmt.Fprintf(w, " (%d debs %s, %s)", d.Downloaded, gotWord(d), humanBytes(d.Bytes))
	}
	fmt.Fprintln(w)
	for _, p := range res.Products {
		fmt.Fprintf(w, "manifest %s\n", filepath.Join(res.Out, filepath.FromSlash(p.Manifest)))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "skipped  %s %s: %s\n", s.PName, s.Version, s.Reason)
	}
	return nil // the warnings were said on stderr as they came (and are in --json)
}
