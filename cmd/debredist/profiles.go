package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/fault"
)

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
			switch {
			case len(args) > 1:
				return usagef("--json NAME prints one profile: give one NAME, not %d (%s)", len(args), strings.Join(args, " "))
			case len(args) == 1 && !*asJSON:
				return usagef(
					"a NAME argument needs --json: 'debredist profiles --json %s' prints that profile in --profile format; "+
						"'debredist profiles' lists them all",
					args[0],
				)
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
				fmt.Fprintf(
					tw,
					"%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
					p.Name,
					orDash(strings.Join(p.Aliases, ",")),
					orDash(p.JetPack),
					p.L4T,
					orDash(p.CUDA),
					p.Platform,
					p.Target,
					strings.Join(p.Repos, ","),
					orDash(p.ReleaseDate),
					p.Description,
				)
			}
			return tw.Flush()
		}
	},
}
