package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/redist"
)

func noArgs(args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// humanBytes renders n as "12.3 MiB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// ---- profiles

var profilesCmd = &command{
	name:    "profiles",
	args:    "[--json [NAME]]",
	summary: "list the built-in release profiles",
	help: `Lists the built-in release profiles: name, aliases, JetPack version, L4T apt suite,
CUDA version, redist platform, target directory, apt repositories, release date and
description. Any name, alias, JetPack version or L4T suite shown here selects a
release in plan, fetch and convert (--jetpack, --l4t).

With --json the list is printed as JSON (schema debredist.profiles/v1). With --json
NAME (a name, alias, JetPack version or L4T suite) the one profile is printed in the
format --profile reads (schema debredist.profile/v1), to copy and edit.`,
	example: `debredist profiles
debredist profiles --json jetpack6 > my-r36.6.json   # edit l4t, expect, rules…
debredist plan --profile my-r36.6.json`,
	flags: func(a *app, fs *flagSet) func([]string) error {
		asJSON := fs.Bool("json", false, "print JSON: the list, or with a NAME argument one profile in --profile format")
		return func(args []string) error {
			if len(args) > 1 || len(args) == 1 && !*asJSON {
				return usagef("unexpected argument %q (a NAME goes with --json)", args[len(args)-1])
			}
			if len(args) == 1 {
				p, err := debredist.FindProfile(args[0])
				if err != nil {
					return &fault.UsageError{Msg: err.Error()}
				}
				return writeDoc(a.stdout, "profile", p)
			}
			ps := debredist.Profiles()
			if *asJSON {
				return writeDoc(a.stdout, "profiles", struct {
					Profiles []debredist.Profile `json:"profiles"`
				}{ps})
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tALIASES\tJETPACK\tL4T\tCUDA\tPLATFORM\tTARGET\tREPOS\tRELEASED\tDESCRIPTION")
			for _, p := range ps {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, orDash(strings.Join(p.Aliases, ",")), orDash(p.JetPack),
					p.Suite, orDash(p.CUDA), p.Platform, p.Target, strings.Join(p.Repos, ","), orDash(p.ReleaseDate), p.Description)
			}
			return tw.Flush()
		}
	},
}

// ---- index

var indexCmd = &command{
	name:    "index",
	args:    "PATH [--json]",
	summary: "list the packages of a local apt Packages index",
	help: `Parses a local apt Packages index (plain, gzip, xz or zstd, detected by content) and
prints its packages, one per line:
  name version architecture filename size sha256 source
or, with --json, a JSON object (schema debredist.index/v1) with every parsed field of
every package (source_version, description, depends, provides, md5sum, sha1, ...)
and the problems. A stanza that cannot be downloaded safely (no Filename, a malformed
SHA256, an unsafe path...) is a warning naming its line and package; the packages
that could be read are still listed, and the exit status is 1, as it is when the
file cannot be read or parsed at all (plan, fetch and convert refuse such an index
whole, as apt does).`,
	example: `debredist index Packages.gz
debredist index Packages.xz --json | jq '.packages[].package'`,
	flags: func(a *app, fs *flagSet) func([]string) error {
		file := fs.String("file", "", "the Packages index `file` to read (the same as the PATH argument)")
		asJSON := fs.Bool("json", false, "print the packages and problems as JSON")
		return func(args []string) error {
			switch {
			case len(args) > 1:
				return usagef("want 1 argument, the Packages file; got %d", len(args))
			case len(args) == 1 && *file != "":
				return usagef("give the Packages file once: as PATH or with --file")
			case len(args) == 1:
				*file = args[0]
			case *file == "":
				return usagef("want 1 argument, the Packages file")
			}
			f, err := os.Open(*file)
			if err != nil {
				var pe *os.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return &fault.UsageError{Msg: fmt.Sprintf("index %s: %v", *file, err), Err: err, File: *file}
			}
			defer f.Close()
			br := bufio.NewReader(f)
			head, _ := br.Peek(64)
			if err := apt.CheckCompressionName(*file, head); err != nil {
				return &fault.UsageError{Msg: err.Error(), Err: err, File: *file}
			}
			pkgs, problems, err := apt.ParsePackages(br, apt.ParseOptions{})
			if err != nil {
				return &fault.UsageError{Msg: fmt.Sprintf("index %s: %v", *file, err), Err: err, File: *file}
			}
			if !*asJSON || len(problems) > 0 {
				for _, p := range problems {
					a.warn(fmt.Sprintf("%s: %s (stanza left out)", *file, p.String()))
				}
			}
			if *asJSON {
				var probs []string
				for _, p := range problems {
					probs = append(probs, p.String())
				}
				if err := writeDoc(a.stdout, "index", struct {
					File     string        `json:"file"`
					Packages []apt.Package `json:"packages"`
					Problems []string      `json:"problems"`
				}{*file, pkgs, probs}); err != nil {
					return err
				}
			} else {
				for _, p := range pkgs {
					fmt.Fprintf(a.stdout, "%s %s %s %s %d %s %s\n", p.Name, p.Version, orDash(p.Architecture), p.Filename, p.Size, p.SHA256, orDash(p.Source))
				}
			}
			if len(problems) > 0 {
				return &exitError{code: exitFailure, msg: fmt.Sprintf("index %s: %d stanza(s) could not be read and are left out", *file, len(problems))}
			}
			return nil
		}
	},
}

// ---- extract

var extractCmd = &command{
	name:    "extract",
	args:    "DEB DIR [--force]",
	summary: "safely extract a .deb's files into a directory",
	help: `Extracts the data of a .deb into DIR. No path or symlink may escape DIR; setuid,
setgid and sticky bits, owners and mtimes are dropped (a warning on stderr names
each entry whose bits were stripped, whose write permission for others was cleared, or whose
absolute symlink was re-rooted). The extraction is written
beside DIR and renamed into place, so a failure leaves nothing half-written. An
existing non-empty DIR is refused unless --force (which replaces it).`,
	example: `debredist extract cuda-cudart-12-6_12.6.68-1_arm64.deb ./cudart
debredist extract pkg.deb ./pkg --force`,
	flags: func(a *app, fs *flagSet) func([]string) error {
		force := fs.Bool("force", false, "replace DIR if it exists and is not empty")
		return func(args []string) error {
			if len(args) != 2 {
				return usagef("want 2 arguments, DEB and DIR; got %d", len(args))
			}
			warn := func(msg string) { fmt.Fprintf(a.stderr, "debredist: warning: %s\n", msg) }
			if _, err := os.Stat(args[0]); err != nil {
				return &fault.UsageError{Msg: "deb " + args[0] + ": " + errors.Unwrap(err).Error(), Err: err, File: args[0]}
			}
			err := debredist.ExtractDeb(a.ctx, args[0], args[1], debredist.ExtractOptions{Force: *force, Warn: warn})
			var de *fault.DebError
			if errors.As(err, &de) && (de.Kind == fault.DebFormat || de.Kind == fault.DebTruncated) {
				return &fault.UsageError{Msg: err.Error(), Err: err, File: args[0]} // not a deb
			}
			if err != nil {
				return err
			}
			if !a.quiet {
				fmt.Fprintf(a.stdout, "extracted %s into %s\n", args[0], args[1])
			}
			return nil
		}
	},
}

// ---- release selection shared by plan, fetch and convert

// selection holds the flags that select a release and where its debs
// come from.
type selection struct {
	jetpack, l4t, lock, profile string
	mirror, cache, keyring      string
	offline, unverified         bool
}

func (s *selection) register(fs *flagSet) {
	fs.StringVar(&s.jetpack, "jetpack", "", "select the release by JetPack `version` or profile name (5, 6, 7, 6.2, jetpack6; see 'debredist profiles')")
	fs.StringVar(&s.l4t, "l4t", "", "select the release by L4T apt `suite` (rMAJOR.MINOR, e.g. r36.5)")
	fs.StringVar(&s.lock, "lock", "", "pin the exact debs with a lock `file` (debredist lock or jetpack-nixos sourceinfo); may be combined with --jetpack/--l4t/--profile")
	fs.StringVar(&s.profile, "profile", "", "select the release with a profile `file` (JSON, see 'debredist profiles --json NAME')")
	s.registerSource(fs)
}

// registerSource registers the flags that say where indexes and debs come
// from (not which release).
func (s *selection) registerSource(fs *flagSet) {
	fs.StringVar(&s.mirror, "mirror", "", "apt mirror: base `URL` (https, http, file) or directory (default $DEBREDIST_MIRROR, else NVIDIA's repository)")
	fs.StringVar(&s.cache, "cache", "", "deb and index cache `dir` (default $XDG_CACHE_HOME/debredist)")
	fs.StringVar(&s.keyring, "keyring", "", "OpenPGP keyring `file` to check InRelease/Release.gpg signatures (unchecked without it)")
	fs.BoolVar(&s.offline, "offline", false, "use only the cache (debs, and the indexes of an earlier online run); fail listing what is missing")
	fs.BoolVar(&s.unverified, "allow-unverified-index", false, "accept a Packages index no Release file lists (like apt's [trusted=yes]); without a Release nothing tells a complete index from one cut short")
}

// source returns the Options fields the source flags set; the mirror
// defaults to $DEBREDIST_MIRROR.
func (s *selection) source(a *app) debredist.Options {
	mirror := s.mirror
	if mirror == "" {
		mirror = a.getenv("DEBREDIST_MIRROR")
	}
	return debredist.Options{Source: debredist.Source{Mirror: mirror, CacheDir: s.cache, Keyring: s.keyring, Offline: s.offline, AllowUnverifiedIndex: s.unverified}}
}

// options checks the selection and turns it into Options.
func (s *selection) options(a *app) (debredist.Options, error) {
	o := s.source(a)
	o.Release.JetPack, o.Release.L4T, o.Release.ProfileFile, o.Release.LockFile = s.jetpack, s.l4t, s.profile, s.lock
	if v := a.getenv("SOURCE_DATE_EPOCH"); v != "" {
		sec, err := strconv.ParseInt(v, 10, 64)
		if err != nil || sec < 0 {
			return o, usagef("SOURCE_DATE_EPOCH=%q: want a non-negative integer number of seconds", v)
		}
		o.Build.MTime = time.Unix(sec, 0).UTC()
	}
	return o, nil
}

func jobsFlag(fs *flagSet) *int {
	return fs.Int("jobs", 0, "`N` parallel downloads and package builds (default: 4 downloads, one build per core and at least 2)")
}

// ---- plan

var planCmd = &command{
	name:    "plan",
	args:    "(--jetpack N | --l4t rXX.Y | --lock FILE | --profile FILE) [flags]",
	summary: "show which redist packages a conversion would build, from which debs",
	help: `Reads the release's apt indexes (or a lock file) and prints, per redist package, its
product, pname, version, platform, CUDA variant and source debs; then the debs that
are not converted (a count, or each one with its reason with -v); then the product
labels (the release_label of each manifest). Downloads no debs. When the debs are
in the cache already (after a fetch or convert), it also lists the redist packages
that would not be emitted because their debs carry no payload, with the reason.`,
	example: `debredist plan --jetpack 6
debredist plan --l4t r36.5 --only cuda_nvcc,cudnn -v
debredist plan --lock jetpack6.lock --offline --json`,
	flags: func(a *app, fs *flagSet) func([]string) error {
		var sel selection
		var only listFlag
		sel.register(fs)
		fs.Var(&only, "only", "plan only these redist packages (`pnames`, comma-separated or repeated)")
		asJSON := fs.Bool("json", false, "print the plan as JSON on stdout")
		return func(args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			o, err := sel.options(a)
			if err != nil {
				return err
			}
			o.Build.Only = only
			pr := a.newProgress()
			o.OnEvent = pr.handle
			pl, err := debredist.Plan(a.ctx, o)
			pr.close(err)
			if err != nil {
				return err
			}
			if *asJSON {
				return writeDoc(a.stdout, "plan", pl)
			}
			return printPlan(a, pl)
		}
	},
}

func printPlan(a *app, pl *plan.Result) error {
	w := a.stdout
	p := pl.Profile
	fmt.Fprintf(w, "%s: L4T %s, CUDA %s, platform %s, release date %s\n", p.Name, p.Suite, orDash(p.CUDA), p.Platform, orDash(p.ReleaseDate))
	fmt.Fprintf(w, "\nRedist packages (%d):\n", len(pl.Packages))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  PRODUCT\tPNAME\tVERSION\tPLATFORM\tCUDA\tDEBS")
	for _, pkg := range pl.Packages {
		var debs []string
		for _, d := range pkg.Debs {
			s := d.Name
			if a.verbose {
				s += "=" + d.Version
			}
			debs = append(debs, s)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", pkg.Product, pkg.PName, pkg.Version, pkg.Platform, orDash(pkg.CUDAVariant), strings.Join(debs, " "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if a.verbose {
		fmt.Fprintf(w, "\nSkipped debs (%d):\n", len(pl.Skipped))
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  PACKAGE\tVERSION\tSOURCE\tREASON")
		for _, s := range pl.Skipped {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", s.Package, s.Version, orDash(s.Source), s.Reason)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(w, "\nSkipped debs: %d (-v lists them with their reasons)\n", len(pl.Skipped))
	}
	if len(pl.SkippedPackages) > 0 {
		fmt.Fprintf(w, "\nSkipped redist packages (%d):\n", len(pl.SkippedPackages))
		for _, s := range pl.SkippedPackages {
			fmt.Fprintf(w, "  %s %s (%s): %s\n", s.PName, s.Version, strings.Join(s.Debs, " "), s.Reason)
		}
	}
	fmt.Fprintln(w, "\nProducts:")
	for _, pr := range pl.Products {
		fmt.Fprintf(w, "  %s %s\n", pr.Product, pr.Label)
	}
	return nil
}

// ---- fetch

var fetchCmd = &command{
	name:    "fetch",
	args:    "(--jetpack N | --l4t rXX.Y | --lock FILE | --profile FILE) [flags]",
	summary: "download the debs a conversion needs into the cache",
	help: `Plans the release like convert and makes sure every deb it needs is in the verified
cache (or, with --package, only those binary packages of the release's repositories).
Prints how many debs and bytes are available and where the cache is. With --lock-out
it writes a lock file pinning the exact debs, for later --lock --offline runs.`,
	example: `debredist fetch --jetpack 6 --lock-out jetpack6.lock
debredist fetch --l4t r36.5 --package cuda-nvcc-12-6 --package libcudnn9-cuda-12`,
	flags: func(a *app, fs *flagSet) func([]string) error {
		var sel selection
		var pkgs listFlag
		sel.register(fs)
		jobs := jobsFlag(fs)
		verifyCache := fs.Bool("verify-cache", false, "re-hash debs already in the cache")
		lockOut := fs.String("lock-out", "", "write the lock of the debs used to `file`")
		fs.Var(&pkgs, "package", "fetch only these binary `packages` (comma-separated or repeated)")
		asJSON := fs.Bool("json", false, "print the result as JSON on stdout")
		return func(args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			o, err := sel.options(a)
			if err != nil {
				return err
			}
			o.Source.Downloads, o.Build.Jobs, o.Source.VerifyCache, o.Build.LockOut = *jobs, *jobs, *verifyCache, *lockOut
			if err := o.Check(); err != nil {
				return err
			}
			pr := a.newProgress()
			o.OnEvent = pr.handle
			res, err := debredist.Fetch(a.ctx, o, pkgs...)
			pr.close(err)
			if err != nil {
				return err
			}
			var total int64
			for _, d := range res.Debs {
				total += d.Size
			}
			if *asJSON {
				return writeDoc(a.stdout, "fetch", struct {
					*debredist.FetchResult
					Bytes int64 `json:"bytes"`
				}{res, total})
			}
			d := res.Downloads
			fmt.Fprintf(a.stdout, "%d debs (%s) in %s: %d %s (%s), %d already cached\n",
				len(res.Debs), humanBytes(total), res.CacheDir, d.Downloaded, gotWord(d), humanBytes(d.Bytes), d.Cached)
			if *lockOut != "" {
				fmt.Fprintf(a.stdout, "lock written to %s\n", *lockOut)
			}
			return nil
		}
	},
}

// ---- convert

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
	flags: func(a *app, fs *flagSet) func([]string) error {
		var sel selection
		var only listFlag
		sel.register(fs)
		out := fs.String("out", "", "output `dir` (required)")
		fs.alias("o", "out")
		jobs := jobsFlag(fs)
		verifyCache := fs.Bool("verify-cache", false, "re-hash debs already in the cache")
		compress := fs.String("compress", "xz", "archive compression: `xz` or zstd")
		preset := fs.Int("preset", 0, "compression `level`: xz 1 (fastest) .. 6 (smallest), zstd 1..4; 0: the default (xz 4)")
		fs.Var(&only, "only", "convert only these redist packages (`pnames`, comma-separated or repeated)")
		lockOut := fs.String("lock-out", "", "write the lock of the debs used to `file`")
		asJSON := fs.Bool("json", false, "print the result as JSON on stdout (nothing else)")
		withSBOM := fs.Bool("sbom", false, "write each manifest's bill of materials beside it (debredist-sbom_<label>.spdx.json and .cdx.json)")
		failOnWarnings := fs.Bool("fail-on-warnings", false, "exit 1 when the output has a warning whose code --allow-warning does not name (OUT is written and verified first)")
		var allow listFlag
		fs.Var(&allow, "allow-warning", "a warning `code` that --fail-on-warnings accepts (comma-separated or repeated): "+strings.Join(redist.WarningCodes, ", "))
		return func(args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			o, err := sel.options(a)
			if err != nil {
				return err
			}
			o.Build.Out, o.Source.Downloads, o.Build.Jobs, o.Source.VerifyCache, o.Build.Compression, o.Build.Only, o.Build.LockOut = *out, *jobs, *jobs, *verifyCache, *compress, only, *lockOut
			o.Build.Preset, o.Build.SBOM, o.Build.FailOnWarnings, o.Build.AllowWarnings = *preset, *withSBOM, *failOnWarnings, allow
			if err := o.Check(); err != nil {
				return err
			}
			pr := a.newProgress()
			o.OnEvent = pr.handle
			res, err := debredist.Convert(a.ctx, o)
			pr.close(err)
			var we *fault.WarningsError
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
func gotWord(d debredist.DownloadStats) string {
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Product, labels[p.Product], p.PName, p.Version, humanBytes(p.Size), status)
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

// ---- nix

var nixCmd = &command{
	name:    "nix",
	args:    "OUT [--derivations [--mirror URL]] [--json] | --add-to-store OUT",
	summary: "print a Nix overlay that uses an output directory's manifests (or the derivations that build them)",
	help: `Prints a Nix overlay for the output directory OUT, to use unedited after
jetpack-nixos' overlay (its NixOS module adds its overlays first; in a flake, list
this one after jetpack-nixos.overlays.default). It hands OUT's redistrib_*.json
manifests to the cudaPackages set of their CUDA version (.override), makes
_cuda.lib.mkRedistUrl return file:// URLs into OUT for exactly OUT's archives
(tensorrt included), states each package's archive (passthru.supportedReleases, so
no revision's cuda_variant or platform rule decides it), builds with nixpkgs'
buildRedist the packages nixpkgs has no file for (cudnn_jit), and adds an extension
to _cuda.extensions for that CUDA release with what the debs cannot provide (it runs
the checks of verify --nixpkgs, decoding every archive once).

The printed Nix is the same code for every OUT; everything read from OUT is one JSON
string in it, read with builtins.fromJSON (schema debredist.nix/v1, docs/json.md):
no manifest, provenance or profile string is ever Nix syntax or a comment. What
needs your decision (the insecure TensorRT) is printed on standard error. --json
prints that data instead of the Nix.

--add-to-store puts OUT's archives into the Nix store (nix-store --add-fixed
sha256, one call) and prints their store paths: fetchurl then finds each one by
name and sha256 without reading OUT.

JetPack 5 (CUDA 11.4): cudaPackages_11_4 comes from cuda-legacy; jetpack-nixos'
11.4 extension would rebuild its packages from jetpack-nixos' own debs, so the
overlay drops that extension's result for every package OUT provides, keeping
cuda_compat = null, and drops libcusparse's libnvjitlink input (CUDA 11.4 has
none). TensorRT below 10.16.1 is marked insecure by nixpkgs (CVE-2026-24188): the
overlay offers an explicit choice (acceptInsecureTensorRT, or
permittedInsecurePackages), off by default. scripts/nixpkgs-eval.sh instantiates
every package of the overlay, each in its own evaluation, against checkouts of
nixpkgs, jetpack-nixos and cuda-legacy.

With --derivations it prints instead a Nix file (a function of debredist, fetchurl
and system) whose "archives" attribute builds every archive of OUT as a
fixed-output derivation: its hash is the manifest's sha256, Nix fetches the debs the
provenance pins (from --mirror, default $DEBREDIST_MIRROR, else the mirror the
conversion read, else NVIDIA's; a mirror directory must hold the indexes the
conversion read) and runs "debredist build-archive" on exactly one archive's debs. Its
"overlay" attribute is the overlay above, taking each archive from its
derivation. Manifests and provenance are embedded: that file is all a user keeps,
and any Nix machine, remote builder or binary cache builds or substitutes the
archives. nix/package.nix builds debredist itself for the debredist argument.`,
	example: `debredist nix ./redist > redist-overlay.nix
debredist nix --add-to-store ./redist
debredist nix --derivations ./redist > redist.nix
nix-build redist.nix -A archives --arg debredist '(import <nixpkgs> { }).callPackage ./nix/package.nix { }'`,
	flags: func(a *app, fs *flagSet) func([]string) error {
		derivations := fs.Bool("derivations", false, "print the Nix file that builds every archive as a fixed-output derivation")
		mirror := fs.String("mirror", "", "with --derivations: fetch the debs from this base `URL` or directory (default $DEBREDIST_MIRROR, else the mirror the conversion read, else NVIDIA's)")
		addToStore := fs.Bool("add-to-store", false, "add OUT's archives to the Nix store (nix-store --add-fixed sha256) instead of printing the overlay")
		jsonOut := fs.Bool("json", false, "print the data the Nix reads (schema debredist.nix/v1) instead of the Nix")
		return func(args []string) error {
			if *mirror != "" && !*derivations {
				return usagef("--mirror goes with --derivations")
			}
			if *addToStore && (*derivations || *jsonOut) {
				return usagef("give only one of --add-to-store, --derivations and --json")
			}
			if len(args) != 1 {
				return usagef("want 1 argument, the output directory; got %d", len(args))
			}
			if err := namedDir(args[0]); err != nil {
				return err
			}
			m := *mirror
			if m == "" && *derivations {
				m = a.getenv("DEBREDIST_MIRROR") // as the other commands
			}
			o := debredist.NixOptions{Derivations: *derivations, Mirror: m}
			if *addToStore {
				// nix-store gets copies read through one generation of OUT
				// (their sha256 checked), never OUT's paths to open again.
				tmp, err := os.MkdirTemp("", "debredist-nix-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				o.CopyArchivesTo = tmp
			}
			r, err := debredist.Nix(a.ctx, args[0], o)
			if err != nil {
				return err
			}
			for _, n := range r.Notes {
				fmt.Fprintf(a.stderr, "debredist nix: %s\n", n)
			}
			if *addToStore {
				return addToNixStore(a, r.Archives)
			}
			if *jsonOut {
				var b bytes.Buffer
				if err := json.Indent(&b, r.Data, "", "  "); err != nil {
					return err
				}
				b.WriteByte('\n')
				_, err = a.stdout.Write(b.Bytes())
				return err
			}
			_, err = io.WriteString(a.stdout, r.Text)
			return err
		}
	},
}

// addToNixStore runs nix-store --add-fixed sha256 on the archives (no
// shell: the paths are arguments) and prints the store paths.
func addToNixStore(a *app, archives []string) error {
	if len(archives) == 0 {
		return fmt.Errorf("no archive to add")
	}
	c := exec.CommandContext(a.ctx, "nix-store", append([]string{"--add-fixed", "sha256"}, archives...)...)
	c.Stdout, c.Stderr = a.stdout, a.stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("nix-store --add-fixed sha256 (%d archives): %w", len(archives), err)
	}
	return nil
}
