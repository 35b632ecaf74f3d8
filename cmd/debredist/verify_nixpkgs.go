package main

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/debredist/debredist/debredist"
)

// verifyNixpkgs runs Verify and then VerifyNixpkgs on out and prints both.
func verifyNixpkgs(a *app, out string, asJSON bool) error {
	rep, err := debredist.Verify(a.ctx, out)
	if err != nil {
		return err
	}
	nrep, err := debredist.VerifyNixpkgs(a.ctx, out)
	if err != nil {
		return err
	}
	if asJSON {
		if err := writeJSON(a.stdout, struct {
			Verify  *debredist.Report    `json:"verify"`
			Nixpkgs *debredist.NixReport `json:"nixpkgs"`
		}{rep, nrep}); err != nil {
			return err
		}
	} else {
		for _, ar := range rep.Artifacts {
			if len(ar.Problems) > 0 {
				fmt.Fprintf(a.stdout, "FAIL  %s: %s\n", path.Join(path.Dir(ar.Manifest), ar.Path), joinProblems(ar.Problems))
			}
		}
		for _, pb := range rep.Problems {
			fmt.Fprintf(a.stdout, "FAIL  %s\n", pb)
		}
		for _, c := range nrep.Components {
			p := path.Join(path.Dir(c.Manifest), c.Path)
			var outs []string
			for o, n := range c.Outputs {
				outs = append(outs, fmt.Sprintf("%s:%d", o, n))
			}
			sort.Strings(outs)
			status := "ok   "
			switch {
			case c.Broken != "":
				status = "nixpkgs-broken"
			case len(c.Failures) > 0:
				status = "FAIL "
			case len(c.EmptyOutputs) > 0:
				status = "override"
			}
			known := ""
			if !c.Known {
				known = " (no package rules: generic checks only)"
			}
			fmt.Fprintf(a.stdout, "%s %s [%s]%s\n", status, p, strings.Join(outs, " "), known)
			for _, f := range c.Failures {
				fmt.Fprintf(a.stdout, "        %s\n", f)
			}
			for _, o := range c.EmptyOutputs {
				fmt.Fprintf(a.stdout, "        declared output %q would be empty: the debs carry nothing for it; the overlay of `debredist nix` removes it from outputs\n", o)
			}
			for _, f := range c.NixpkgsOwn {
				fmt.Fprintf(a.stdout, "        nixpkgs: %s\n", f)
			}
			if c.Broken != "" {
				fmt.Fprintf(a.stdout, "        nixpkgs: %s\n", c.Broken)
			}
		}
		for _, pb := range nrep.Problems {
			fmt.Fprintf(a.stdout, "FAIL  %s\n", pb)
		}
	}
	var problems []debredist.Problem
	for _, e := range []error{rep.Err(), nrep.Err()} {
		var ve *debredist.VerifyError
		if errors.As(e, &ve) {
			problems = append(problems, ve.Problems...)
		} else if e != nil {
			return e
		}
	}
	if len(problems) > 0 {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("verify --nixpkgs %s: %d problem(s)", out, len(problems))}
	}
	if !asJSON && !a.quiet {
		fmt.Fprintf(a.stdout, "%d archives: nixpkgs' buildRedist rules hold\n", len(nrep.Components))
	}
	return nil
}

// joinProblems lists an archive's problems on one line.
func joinProblems(ps []debredist.Problem) string {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "; ")
}
