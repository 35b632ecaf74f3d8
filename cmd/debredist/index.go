package main

import (
	"fmt"

	"github.com/debredist/debredist/debredist"

	"github.com/debredist/debredist/debredist/apt"
)

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
			pkgs, problems, err := debredist.ReadIndex(*file) // a named pipe is refused, never waited on
			if err != nil {
				return err
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
					fmt.Fprintf(
						a.stdout,
						"%s %s %s %s %d %s %s\n",
						p.Name,
						p.Version,
						orDash(p.Architecture),
						p.Filename,
						p.Size,
						p.SHA256,
						orDash(p.Source),
					)
				}
			}
			if len(problems) > 0 {
				return &exitError{
					code: exitFailure,
					msg:  fmt.Sprintf("%s: %d stanza(s) could not be read and are left out", *file, len(problems)),
				}
			}
			return nil
		}
	},
}
