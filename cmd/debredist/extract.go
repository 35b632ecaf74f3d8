package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/fault"
)

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
	quiet: "print nothing on success (warnings still)",
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
			switch {
			case errors.As(err, &de) && (de.Kind == fault.DebFormat || de.Kind == fault.DebTruncated):
				return &fault.UsageError{Msg: err.Error(), Err: err, File: args[0]} // not a deb
			case errors.As(err, &de) && de.Kind == fault.DebExists:
				return &fault.UsageError{Msg: err.Error(), Err: err, File: args[1]} // an output it would replace
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
