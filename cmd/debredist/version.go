package main

import (
	"fmt"
	"runtime"

	"github.com/debredist/debredist/debredist"
)

var versionCmd = &command{
	name:    "version",
	summary: "print debredist's version",
	help:    "Prints debredist's version (part of every archive's input key) and the Go toolchain.",
	example: "debredist version",
	flags: func(a *app, fs *flagSet) func([]string) error {
		return func(args []string) error {
			if len(args) > 0 {
				return usagef("unexpected argument %q", args[0])
			}
			fmt.Fprintf(
				a.stdout,
				"debredist %s (%s %s/%s)\n",
				debredist.Version,
				runtime.Version(),
				runtime.GOOS,
				runtime.GOARCH,
			)
			return nil
		}
	},
}
