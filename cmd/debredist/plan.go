package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/plan"
)

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
	verbose: "list each source deb with its version and every deb not converted with its reason; log a line per index " +
		"read",
	quiet: "no progress on stderr: only warnings and errors",
	flags: func(a *app, fs *flagSet) func([]string) error {
		var sel selection
		var only listFlag
		sel.register(fs)
		fs.Var(&only, "only", "plan only these redist packages (`pnames`, comma-separated or repeated)")
		asJSON := fs.Bool("json", false, "print the plan as JSON on stdout")
		return func(args []string) error {
			o, pr, err := sel.start(a, args, func(o *debredist.Options) error {
				o.Build.Only = only
				return nil
			})
			if err != nil {
				return err
			}
			pl, err := debredist.PlanCached(a.ctx, o)
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

func printPlan(a *app, pl *plan.Plan) error {
	w := a.stdout
	p := pl.Profile
	fmt.Fprintf(
		w,
		"%s: L4T %s, CUDA %s, platform %s, release date %s\n",
		p.Name,
		p.L4T,
		orDash(p.CUDA),
		p.Platform,
		orDash(p.ReleaseDate),
	)
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
		fmt.Fprintf(
			tw,
			"  %s\t%s\t%s\t%s\t%s\t%s\n",
			pkg.Product,
			pkg.PName,
			pkg.Version,
			pkg.Platform,
			orDash(pkg.CUDAVariant),
			strings.Join(debs, " "),
		)
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
