package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/reldiff"
)

// ---- diff

var diffCmd = &command{
	name:    "diff",
	args:    "FROM TO [--mirror M] [--files] [--json]",
	summary: "show what changed between two releases: components, versions, debs, paths",
	help: `Compares two releases as debredist converts them. FROM and TO are each an L4T
suite (r36.4) or JetPack release (jetpack6, 6; see 'debredist profiles') read from
the mirror, a profile file (--profile format: its suite from the mirror, grouped and
laid out with its rules), a lock file (debredist's, or jetpack-nixos'
<suite>-debs.json), or an output directory of 'debredist convert' (read through its
provenance record). PATH@rXX.Y names the suite of a jetpack-nixos file whose name
does not say it, or picks one release of an output directory that holds several
(where two releases share a manifest label, e.g. cuda 12.6.68 in r36.4 and r36.5,
the directory holds only the last conversion of that manifest).

Prints, per product (cuda, cudnn, tensorrt, l4t): the release_label change, then
each component added (+), removed (-) or changed (~) with its version change and
its debs added, removed, renamed (cuda-cudart-11-4 => cuda-cudart-12-6) or changed
(version, or re-uploaded with the same version); then the debs of every repo that no
component converts (meta-packages such as nvidia-jetpack, L4T driver debs), when
both sides know them (an output directory records only what it converted).

With --files the debs are downloaded through the cache (as fetch does) and laid
out with each release's rules, and each component also shows its in-archive paths
added, removed, changed type (dir -> symlink) or symlink target, and the deb paths
of TO that no layout rule places: a conversion of TO would fail on those until a
--profile file places or drops them (see the README's "new L4T release"). -v lists
every path; otherwise a few per kind.

Exit status 0 whatever the difference (an empty diff prints "no differences"),
1 when a release cannot be read, 2 on a usage error.`,
	example: `debredist diff r36.4 r36.5
debredist diff jetpack5 jetpack6 --files
debredist diff --mirror ./testdata/sample-mirror r35.6 r36.5 --json | jq '.products[].components[].pname'
debredist diff jetpack6.lock.json ./redist
debredist diff sourceinfo/r36.4-debs.json r36.5
debredist diff r36.5 ./my-r36.6.json --files`,
	verbose: "list every path of --files (otherwise a few per kind); log a line per index and deb",
	quiet:   "no progress on stderr: only warnings and errors",
	flags: func(a *app, fs *flagSet) func([]string) error {
		var sel selection
		sel.registerSource(fs)
		files := fs.Bool("files", false, "also compare in-archive paths and find unplaced paths (downloads the debs)")
		downloads := downloadsFlag(fs)
		asJSON := fs.Bool("json", false, "print the difference as JSON on stdout")
		return func(args []string) error {
			if len(args) != 2 {
				return usagef("want 2 arguments, FROM and TO; got %d", len(args))
			}
			so := sel.source(a)
			so.Source.ParallelDownloads = *downloads
			o := debredist.DiffOptions{Source: so.Source, Files: *files}
			if err := o.Check(); err != nil {
				return err
			}
			pr := a.newProgress()
			o.OnEvent = pr.handle
			res, err := debredist.Diff(a.ctx, o, args[0], args[1])
			pr.close(err)
			if err != nil {
				return err
			}
			if *asJSON {
				return writeDoc(a.stdout, "diff", res)
			}
			return printDiff(a.stdout, res, a.verbose)
		}
	},
}

// diffPathsShown bounds the paths listed per kind without -v.
const diffPathsShown = 5

func printDiff(w io.Writer, r *reldiff.Result, all bool) error {
	var b bytes.Buffer
	sideLine := func(s reldiff.Side) string {
		return fmt.Sprintf(
			"%s (%s: %s, L4T %s, CUDA %s, released %s)",
			s.Ref,
			s.Origin,
			s.Profile,
			s.L4T,
			orDash(s.CUDA),
			orDash(s.ReleaseDate),
		)
	}
	fmt.Fprintf(&b, "from %s\nto   %s\n\n", sideLine(r.From), sideLine(r.To))
	var added, removed, changed, debs, paths, unplaced int
	for _, p := range r.Products {
		b.WriteString(p.Product + " " + arrow(p.FromLabel, p.ToLabel))
		if p.Unchanged > 0 {
			fmt.Fprintf(&b, "  (%s unchanged)", plural(p.Unchanged, "component"))
		}
		b.WriteByte('\n')
		for _, c := range p.Components {
			mark := map[string]string{"added": "+", "removed": "-", "changed": "~", "unchanged": "="}[c.Status]
			switch c.Status {
			case "added":
				added++
			case "removed":
				removed++
			case "changed":
				changed++
			}
			fmt.Fprintf(&b, "  %s %s %s", mark, c.PName, arrow(c.FromVersion, c.ToVersion))
			if c.FromPlatform != "" {
				fmt.Fprintf(&b, "  platform %s -> %s", c.FromPlatform, c.ToPlatform)
			}
			if c.FromCUDAVariant != "" {
				fmt.Fprintf(&b, "  cuda variant %s -> %s", c.FromCUDAVariant, c.ToCUDAVariant)
			}
			b.WriteByte('\n')
			if c.Status == "added" || c.Status == "removed" {
				var names []string
				for _, d := range append(c.DebsAdded, c.DebsRemoved...) {
					names = append(names, d.Name)
				}
				fmt.Fprintf(&b, "      debs: %s\n", strings.Join(names, " "))
				continue
			}
			for _, d := range c.DebsChanged {
				debs++
				if d.Rebuilt {
					fmt.Fprintf(&b, "      ~ %s %s (same version, new bytes)\n", d.Name, d.ToVersion)
				} else {
					fmt.Fprintf(&b, "      ~ %s %s -> %s\n", d.Name, d.FromVersion, d.ToVersion)
				}
			}
			for _, d := range c.DebsRenamed {
				debs++
				fmt.Fprintf(&b, "      > %s %s => %s %s\n", d.From.Name, d.From.Version, d.To.Name, d.To.Version)
			}
			for _, d := range c.DebsAdded {
				debs++
				fmt.Fprintf(&b, "      + %s %s\n", d.Name, d.Version)
			}
			for _, d := range c.DebsRemoved {
				debs++
				fmt.Fprintf(&b, "      - %s %s\n", d.Name, d.Version)
			}
			if f := c.Files; f != nil && !f.Empty() {
				paths += len(f.Added) + len(f.Removed) + len(f.TypeChanged) + len(f.LinkChanged)
				unplaced += len(f.Unplaced)
				fmt.Fprintf(
					&b,
					"      paths: %d added, %d removed, %d changed type, %d link changed",
					len(f.Added),
					len(f.Removed),
					len(f.TypeChanged),
					len(f.LinkChanged),
				)
				if len(f.Unplaced) > 0 {
					fmt.Fprintf(&b, ", %d UNPLACED", len(f.Unplaced))
				}
				b.WriteByte('\n')
				list := func(mark string, items []string) {
					for i, s := range items {
						if !all && i == diffPathsShown {
							fmt.Fprintf(&b, "        %s … %d more (-v lists all)\n", mark, len(items)-i)
							break
						}
						fmt.Fprintf(&b, "        %s %s\n", mark, s)
					}
				}
				list("+", f.Added)
				list("-", f.Removed)
				var tc, lc, un []string
				for _, x := range f.TypeChanged {
					tc = append(tc, fmt.Sprintf("%s (%s -> %s)", x.Path, x.From, x.To))
				}
				for _, x := range f.LinkChanged {
					lc = append(lc, fmt.Sprintf("%s -> %s (was %s)", x.Path, x.To, x.From))
				}
				for _, x := range f.Unplaced {
					un = append(un, x.Deb+": "+x.Path)
				}
				list("T", tc)
				list("L", lc)
				// Unplaced paths are what the user must act on: all of them.
				for _, s := range un {
					fmt.Fprintf(&b, "        ! unplaced %s\n", s)
				}
				if f.Problem != "" {
					fmt.Fprintf(&b, "        ! layout: %s\n", f.Problem)
				}
				if f.FromProblem != "" {
					fmt.Fprintf(&b, "        ! layout of %s (paths not compared): %s\n", r.From.Ref, f.FromProblem)
				}
			}
		}
	}
	if o := r.Others; o != nil && !o.Empty() {
		fmt.Fprintf(
			&b,
			"\nother debs (not converted): %d added, %d removed, %d changed\n",
			len(o.Added),
			len(o.Removed),
			len(o.Changed),
		)
		var lines []string
		for _, d := range o.Added {
			lines = append(lines, fmt.Sprintf("+ %s/%s %s", d.Repo, d.Name, d.Version))
		}
		for _, d := range o.Removed {
			lines = append(lines, fmt.Sprintf("- %s/%s %s", d.Repo, d.Name, d.Version))
		}
		for _, d := range o.Changed {
			if d.Rebuilt {
				lines = append(lines, fmt.Sprintf("~ %s/%s %s (same version, new bytes)", d.Repo, d.Name, d.ToVersion))
			} else {
				lines = append(lines, fmt.Sprintf("~ %s/%s %s -> %s", d.Repo, d.Name, d.FromVersion, d.ToVersion))
			}
		}
		for i, l := range lines {
			if !all && i == 3*diffPathsShown {
				fmt.Fprintf(&b, "    … %d more (-v lists all)\n", len(lines)-i)
				break
			}
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	if r.Empty() {
		b.WriteString("\nno differences\n")
	} else {
		fmt.Fprintf(
			&b,
			"\n%s changed, %d added, %d removed; %s",
			plural(changed, "component"),
			added,
			removed,
			plural(debs, "deb change"),
		)
		if r.Files {
			fmt.Fprintf(&b, "; %s, %s", plural(paths, "path change"), plural(unplaced, "unplaced path"))
		}
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// arrow renders a value change: "v", "a -> b", "(new) b", "a (gone)".
func arrow(from, to string) string {
	switch {
	case from == to:
		return from
	case from == "":
		return "(new) " + to
	case to == "":
		return from + " (gone)"
	}
	return from + " -> " + to
}
