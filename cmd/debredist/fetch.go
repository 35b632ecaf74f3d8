package main

import (
	"fmt"

	"github.com/debredist/debredist/debredist"
)

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
	verbose: "log a line per deb: downloaded, read from a mirror directory, or found in the cache",
	quiet:   "no progress on stderr: only warnings and errors",
	flags: func(a *app, fs *flagSet) func([]string) error {
		var sel selection
		var pkgs listFlag
		sel.register(fs)
		downloads := downloadsFlag(fs)
		verifyCache := fs.Bool("verify-cache", false, "re-hash debs already in the cache")
		lockOut := fs.String("lock-out", "", "write the lock of the debs used to `file`")
		fs.Var(&pkgs, "package", "fetch only these binary `packages` (comma-separated or repeated)")
		asJSON := fs.Bool("json", false, "print the result as JSON on stdout")
		return func(args []string) error {
			o, pr, err := sel.start(a, args, func(o *debredist.Options) error {
				o.Source.ParallelDownloads, o.Source.VerifyCache, o.Build.LockOut = *downloads, *verifyCache, *lockOut
				return o.Check()
			})
			if err != nil {
				return err
			}
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
