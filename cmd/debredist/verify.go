package main

import (
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/verify"
)

var verifyCmd = &command{
	name:    "verify",
	args:    "OUT [--nixpkgs] [--json]",
	summary: "re-check an output directory against its manifests",
	help: `Re-reads every redistrib_*.json under OUT and checks each archive it names: size,
sha256 and md5, the single top-level directory named like the file, entry safety,
the license file and the provenance record. Prints "ok" or "FAIL: <problems>" per
manifest entry (an archive listed under two platforms, as in JetPack 7.2, is checked
under each). An archive whose bytes are not the ones its manifest names is reported
as a size or sha256 mismatch first. Exits 1 when anything is wrong.

With --nixpkgs it then applies the rules of nixpkgs' generic CUDA builder
(buildRedist) to every archive once, as a build would: outputs split by pattern,
every declared output non-empty, no /usr/ references unless the package allows them,
no dangling links per output, the pkg-config move and rewrite, and each package's
own requirements (tensorrt's python/*.whl and lib/stubs, cuda_cudart's lib/stubs,
...). Problems nixpkgs has with NVIDIA's own archives too are shown as "nixpkgs",
and a declared output the release's debs leave empty as "override" (the overlay
that "debredist nix" prints removes it); neither fails the check. Archives of
products nixpkgs has no package set for (the l4t DLA compiler) are listed as "skip"
with the reason. A symbolic link in OUT that debredist did not write is reported,
never followed.

With --json the report is one object (schema debredist.verify/v2): the verify report,
and "nixpkgs" (null without --nixpkgs).`,
	example: `debredist verify ./redist
debredist verify --nixpkgs ./redist
debredist verify ./redist --json`,
	verbose: "with --nixpkgs: print below each archive the full source (file, commit, note) of the rules applied",
	quiet:   "leave out the closing \"all ok\" line",
	flags: func(a *app, fs *flagSet) func([]string) error {
		asJSON := fs.Bool("json", false, "print the report as JSON on stdout")
		nixpkgs := fs.Bool("nixpkgs", false, "also apply nixpkgs' buildRedist rules to every archive")
		return func(args []string) error {
			if len(args) != 1 {
				return usagef("want 1 argument, the output directory; got %d", len(args))
			}
			if err := namedDir(args[0]); err != nil {
				return err
			}
			return runVerify(a, args[0], *nixpkgs, *asJSON)
		}
	},
}

// verifyDoc is verify's --json output (debredist.verify/v2).
type verifyDoc struct {
	*verify.Report
	// Archives counts the distinct archive files; Artifacts has one entry
	// per manifest entry.
	Archives int                   `json:"archives"`
	Nixpkgs  *verify.NixpkgsReport `json:"nixpkgs"`
}

func runVerify(a *app, out string, nixpkgs, asJSON bool) error {
	rep, err := verify.Dir(a.ctx, out)
	if err != nil {
		return err
	}
	var nrep *verify.NixpkgsReport
	if nixpkgs {
		if nrep, err = verify.Nixpkgs(a.ctx, out); err != nil {
			return err
		}
	}
	problemsInFlags(rep.Problems)
	for i := range rep.Artifacts {
		problemsInFlags(rep.Artifacts[i].Problems)
	}
	if nrep != nil {
		problemsInFlags(nrep.Problems)
	}
	if asJSON {
		if err := writeDoc(a.stdout, "verify", verifyDoc{rep, rep.Archives(), nrep}); err != nil {
			return err
		}
	} else {
		for _, ar := range rep.Artifacts {
			p := path.Join(path.Dir(ar.Manifest), ar.Path)
			switch {
			case len(ar.Problems) > 0:
				fmt.Fprintf(a.stdout, "FAIL  %s: %s\n", p, joinProblems(ar.Problems))
			case !nixpkgs:
				fmt.Fprintf(a.stdout, "ok    %s\n", p)
			}
		}
		for _, pb := range rep.Problems {
			fmt.Fprintf(a.stdout, "FAIL  %s\n", pb)
		}
		if nrep != nil {
			printNixReport(a, nrep)
		}
	}
	var problems []verify.Problem
	for _, e := range []error{rep.Err(), nrep.Err()} {
		var ve *verify.Error
		if errors.As(e, &ve) {
			problems = append(problems, ve.Problems...)
		} else if e != nil {
			return e
		}
	}
	if len(problems) > 0 {
		rules := ""
		if nixpkgs {
			rules = " (nixpkgs' rules included)"
		}
		return &exitError{code: exitFailure, msg: fmt.Sprintf("%s: %d problem(s)%s", out, len(problems), rules)}
	}
	if asJSON || a.quiet {
		return nil
	}
	n := rep.Archives()
	what := fmt.Sprintf("%d archives", n)
	if len(rep.Artifacts) != n {
		what = fmt.Sprintf(
			"%d archives (%d manifest entries: some archives are listed under several platforms)",
			n,
			len(rep.Artifacts),
		)
	}
	fmt.Fprintf(a.stdout, "%s in %d manifests: all ok\n", what, len(rep.Manifests))
	if nrep != nil {
		// The closing line says what the per-archive lines said: "hold"
		// only when every archive read is plain ok.
		count := map[string]int{}
		for _, c := range nrep.Components {
			count[strings.TrimSpace(nixStatus(c))]++
		}
		if count["ok"] == len(nrep.Components) {
			fmt.Fprintf(a.stdout, "nixpkgs' buildRedist rules hold for %d archives", len(nrep.Components))
		} else {
			parts := []string{fmt.Sprintf("%d ok", count["ok"])}
			for _, st := range []string{"override", "insecure", "nixpkgs-broken"} {
				if count[st] > 0 {
					parts = append(parts, fmt.Sprintf("%d %s", count[st], st))
				}
			}
			fmt.Fprintf(
				a.stdout,
				"nixpkgs' buildRedist rules for %d archives: %s (see the lines above)",
				len(nrep.Components),
				strings.Join(parts, ", "),
			)
		}
		if len(nrep.Excluded) > 0 {
			fmt.Fprintf(a.stdout, "; %d not read by nixpkgs (skip lines above)", len(nrep.Excluded))
		}
		fmt.Fprintln(a.stdout)
	}
	return nil
}

// printNixReport prints one line per archive (and its findings below it).
func printNixReport(a *app, nrep *verify.NixpkgsReport) {
	for _, c := range nrep.Components {
		p := path.Join(path.Dir(c.Manifest), c.Path)
		var outs []string
		for o, n := range c.Outputs {
			outs = append(outs, fmt.Sprintf("%s:%d", o, n))
		}
		sort.Strings(outs)
		status := nixStatus(c)
		known := ""
		if !c.Known {
			known = " (no package rules: generic checks only)"
		}
		rules := ""
		if c.Source != "" {
			rules = " rules " + shortSource(c.Source)
		}
		fmt.Fprintf(a.stdout, "%s %s [%s]%s%s\n", status, p, strings.Join(outs, " "), known, rules)
		for _, f := range c.Failures {
			fmt.Fprintf(a.stdout, "        %s\n", f)
		}
		for _, o := range c.EmptyOutputs {
			fmt.Fprintf(
				a.stdout,
				"        declared output %q would be empty: the debs carry nothing for it; the overlay of `debredist nix` "+
					"removes it from outputs\n",
				o,
			)
		}
		for _, f := range c.NixpkgsOwn {
			fmt.Fprintf(a.stdout, "        nixpkgs: %s\n", f)
		}
		if c.Broken != "" {
			fmt.Fprintf(a.stdout, "        nixpkgs: %s\n", c.Broken)
		}
		for _, v := range c.Insecure {
			fmt.Fprintf(
				a.stdout,
				"        insecure: %s (meta.knownVulnerabilities: evaluates only where permitted; see 'debredist nix')\n",
				v,
			)
		}
		for _, d := range c.Devices {
			if !strings.HasSuffix(d, ": evaluates") {
				fmt.Fprintf(a.stdout, "        device %s\n", d)
			}
		}
		if a.verbose && c.Source != "" {
			fmt.Fprintf(a.stdout, "        rules: %s\n", c.Source)
		}
		for _, g := range c.Generations {
			fmt.Fprintf(a.stdout, "        revisions differ: %s\n", g)
		}
	}
	for _, x := range nrep.Excluded {
		fmt.Fprintf(a.stdout, "skip  %s: %s\n", path.Join(path.Dir(x.Manifest), x.Path), x.Reason)
	}
	for _, pb := range nrep.Problems {
		fmt.Fprintf(a.stdout, "FAIL  %s\n", pb)
	}
}

// shortSource is a rule's source without its note: the file and the
// revision's first 8 hex digits (packages/tensorrt/package.nix@1ac181a1).
func shortSource(s string) string {
	if strings.HasPrefix(s, "not re-read") {
		return "(not re-read)"
	}
	s, _, _ = strings.Cut(s, " ")
	if file, rev, ok := strings.Cut(s, "@"); ok && len(rev) > 8 {
		return file + "@" + rev[:8]
	}
	return s
}

// nixStatus is the word an archive's line of verify --nixpkgs starts with.
func nixStatus(c verify.NixpkgsArchive) string {
	switch {
	case c.Broken != "":
		return "nixpkgs-broken"
	case len(c.Failures) > 0:
		return "FAIL "
	case len(c.EmptyOutputs) > 0:
		return "override"
	case len(c.Insecure) > 0:
		return "insecure"
	}
	return "ok   "
}

// problemsInFlags words each problem whose message names a library option
// or function in the CLI's flags and commands (inFlags), in place.
func problemsInFlags(ps []verify.Problem) {
	for i, p := range ps {
		if msg := inFlags(p); msg != p.Error() {
			ps[i] = verify.Problem{Err: inFlagsError{msg, p}}
		}
	}
}

// inFlagsError is a problem worded in the CLI's flags; it unwraps to the
// library's.
type inFlagsError struct {
	msg string
	err error
}

func (e inFlagsError) Error() string { return e.msg }
func (e inFlagsError) Unwrap() error { return e.err }

// joinProblems lists an archive's problems on one line.
func joinProblems(ps []verify.Problem) string {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "; ")
}

// namedDir checks that the output directory the command line names is
// one: a missing OUT, or a file, is a usage error naming it (exit 2).
func namedDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return &fault.UsageError{Msg: "output directory " + dir + ": " + errors.Unwrap(err).Error(), Err: err, File: dir}
	case !st.IsDir():
		return &fault.UsageError{Msg: "output directory " + dir + " is not a directory", File: dir}
	}
	return nil
}
