package main

import (
	"bytes"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/redist"
)

var inventoryCmd = &command{
	name:    "inventory",
	args:    "(--l4t rXX.Y | --jetpack N | --lock FILE) [--mirror M] [--format jetpack-nixos|lock] [-o FILE]",
	summary: "write a release's package inventory (jetpack-nixos sourceinfo or lock format)",
	help: `Reads the release's apt indexes and writes its package inventory: in jetpack-nixos'
sourceinfo/<suite>-debs.json format (the default; byte-compatible with the files
jetpack-nixos commits: newest version of every package of every repo, meta-packages
left out, keys sorted, two-space indent) or in debredist's lock format (every
package, meta-packages included). Either file read back with --lock gives the same
plan and conversion (a jetpack-nixos file does not name its suite: add --l4t).
With --lock the inventory is the lock's packages (a lock keeps no descriptions, so
no meta-package is left out).
With --json the inventory is one object for scripts (schema debredist.inventory/v1):
the suite, the indexes read and every package as a Deb (docs/json.md).`,
	example: `debredist inventory --l4t r36.5 > r36.5-debs.json
debredist inventory --l4t r36.5 --format lock -o r36.5.lock.json
debredist plan --lock r36.5-debs.json --l4t r36.5
debredist inventory --l4t r36.5 --json | jq -r '.packages[] | .package + " " + .version'`,
	verbose: "log a line per index read",
	quiet:   "no progress on stderr: only warnings and errors",
	flags: func(a *app, fs *flagSet) func([]string) error {
		var sel selection
		sel.register(fs)
		format := fs.String("format", debredist.InventoryJetPackNixos, "output `format`: jetpack-nixos or lock")
		out := fs.String("out", "", "write to `file` instead of stdout (written whole, or not at all)")
		fs.alias("o", "out")
		asJSON := fs.Bool(
			"json",
			false,
			"print the inventory as a debredist.inventory/v1 JSON object (every package as a Deb) instead of --format",
		)
		return func(args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			switch *format {
			case debredist.InventoryJetPackNixos, debredist.InventoryLock:
			default:
				return usagef("--format %q: want jetpack-nixos or lock", *format)
			}
			if *asJSON && *format != debredist.InventoryJetPackNixos {
				return usagef("give --json or --format, not both")
			}
			o, pr, err := sel.start(a, nil, nil)
			if err != nil {
				return err
			}
			var b bytes.Buffer
			if *asJSON {
				o.Build.Only = nil
				var pl *plan.Plan
				if pl, err = debredist.PlanCached(a.ctx, o); err == nil {
					err = writeDoc(&b, "inventory", struct {
						Suite    string         `json:"suite"`
						Indexes  []redist.Index `json:"indexes"`
						Packages []apt.Package  `json:"packages"`
					}{pl.Profile.L4T, pl.Indexes, pl.Inputs})
				}
			} else {
				err = debredist.Inventory(a.ctx, o, &b, *format)
			}
			pr.close(err)
			if err != nil {
				return err
			}
			if *out != "" {
				return writeFile(*out, b.Bytes())
			}
			_, err = a.stdout.Write(b.Bytes())
			return err
		}
	},
}
