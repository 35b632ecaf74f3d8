package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/fault"
)

var nixCmd = &command{
	name:    "nix",
	args:    "OUT [--derivations [--mirror URL]] [--json] | --add-to-store OUT",
	summary: "print a Nix overlay that uses an output directory's manifests (or the derivations that build them)",
	help: `Prints a Nix overlay for the output directory OUT, to use unedited after
jetpack-nixos' overlay (its NixOS module adds its overlays first; in a flake, list
this one after jetpack-nixos.overlays.default). It hands OUT's redistrib_*.json
manifests to the cudaPackages set of their CUDA version (.override), makes
_cuda.lib.mkRedistUrl return file:// URLs into OUT for exactly OUT's archives
(tensorrt included), states each package's archive (passthru.supportedReleases, so
no revision's cuda_variant or platform rule decides it), builds with nixpkgs'
buildRedist the packages nixpkgs has no file for (cudnn_jit), and adds an extension
to _cuda.extensions for that CUDA release with what the debs cannot provide (it runs
the checks of verify --nixpkgs, decoding every archive once).

The printed Nix is the same code for every OUT; everything read from OUT is one JSON
string in it, read with builtins.fromJSON (schema debredist.nix/v1, docs/json.md):
no manifest, provenance or profile string is ever Nix syntax or a comment. What
needs your decision (the insecure TensorRT) is printed on standard error. --json
prints that data instead of the Nix.

--add-to-store puts every archive of OUT into the Nix store (nix-store
--add-fixed sha256, one call), those of manifests the overlay leaves out (the l4t
DLA compiler) included, and prints their store paths: fetchurl then finds each one
by name and sha256 without reading OUT.

JetPack 5 (CUDA 11.4): cudaPackages_11_4 comes from cuda-legacy; jetpack-nixos'
11.4 extension would rebuild its packages from jetpack-nixos' own debs, so the
overlay drops that extension's result for every package OUT provides, keeping
cuda_compat = null, and drops libcusparse's libnvjitlink input (CUDA 11.4 has
none). TensorRT below 10.16.1 is marked insecure by nixpkgs (CVE-2026-24188): the
overlay offers an explicit choice (acceptInsecureTensorRT, or
permittedInsecurePackages), off by default. scripts/nixpkgs-eval.sh instantiates
every package of the overlay, each in its own evaluation, against checkouts of
nixpkgs, jetpack-nixos and cuda-legacy.

With --derivations it prints instead a Nix file (a function of debredist, fetchurl
and system) whose "archives" attribute builds every archive of OUT as a
fixed-output derivation: its hash is the manifest's sha256, Nix fetches the debs the
provenance pins (from --mirror, default $DEBREDIST_MIRROR, else the mirror the
conversion read, else NVIDIA's; a mirror directory must hold the indexes the
conversion read) and runs "debredist build-archive" on exactly one archive's debs. Its
"overlay" attribute is the overlay above, taking each archive from its
derivation. Manifests and provenance are embedded: that file is all a user keeps,
and any Nix machine, remote builder or binary cache builds or substitutes the
archives. nix/package.nix builds debredist itself for the debredist argument: the
example's nix-build runs in a clone of debredist and needs a nixpkgs on NIX_PATH
for <nixpkgs> (offline, the tests' stand-in:
NIX_PATH=nixpkgs=$PWD/debredist/testdata/nixstandin/nixpkgs, with sandbox = false
in NIX_CONFIG).`,
	example: `debredist nix ./redist > redist-overlay.nix
debredist nix --add-to-store ./redist
debredist nix --derivations ./redist > redist.nix
nix-build redist.nix -A archives --arg debredist '(import <nixpkgs> { }).callPackage ./nix/package.nix { }'`,
	flags: func(a *app, fs *flagSet) func([]string) error {
		derivations := fs.Bool(
			"derivations",
			false,
			"print the Nix file that builds every archive as a fixed-output derivation",
		)
		mirror := fs.String(
			"mirror",
			"",
			"with --derivations: fetch the debs from this base `URL` or directory (default $DEBREDIST_MIRROR, else the mirror "+
				"the conversion read, else NVIDIA's)",
		)
		addToStore := fs.Bool(
			"add-to-store",
			false,
			"add every archive of OUT to the Nix store (nix-store --add-fixed sha256) instead of printing the overlay",
		)
		jsonOut := fs.Bool("json", false, "print the data the Nix reads (schema debredist.nix/v1) instead of the Nix")
		return func(args []string) error {
			if *mirror != "" && !*derivations {
				return usagef("--mirror goes with --derivations")
			}
			if *addToStore && (*derivations || *jsonOut) {
				return usagef("give only one of --add-to-store, --derivations and --json")
			}
			if len(args) != 1 {
				return usagef("want 1 argument, the output directory; got %d", len(args))
			}
			if err := namedDir(args[0]); err != nil {
				return err
			}
			m := *mirror
			if m == "" && *derivations {
				if m = a.getenv("DEBREDIST_MIRROR"); m != "" { // as the other commands
					a.tookEnv(fault.RefNixMirror, "DEBREDIST_MIRROR")
				}
			}
			o := debredist.NixOptions{Derivations: *derivations, Mirror: m}
			if *addToStore {
				// nix-store gets copies read through one generation of OUT
				// (their sha256 checked), never OUT's paths to open again.
				tmp, err := os.MkdirTemp("", "debredist-nix-")
				if err != nil {
					return err
				}
				defer func() { _ = os.RemoveAll(tmp) }()
				o.CopyArchivesTo = tmp
			}
			r, err := debredist.Nix(a.ctx, args[0], o)
			if err != nil {
				return err
			}
			for _, n := range r.Notes {
				fmt.Fprintf(a.stderr, "debredist nix: %s\n", n)
			}
			if *addToStore {
				return addToNixStore(a, r.Archives)
			}
			if *jsonOut {
				var b bytes.Buffer
				if err := json.Indent(&b, r.Data, "", "  "); err != nil {
					return err
				}
				b.WriteByte('\n')
				_, err = a.stdout.Write(b.Bytes())
				return err
			}
			_, err = io.WriteString(a.stdout, r.Text)
			return err
		}
	},
}

// addToNixStore runs nix-store --add-fixed sha256 on the archives (no
// shell: the paths are arguments) and prints the store paths.
func addToNixStore(a *app, archives []string) error {
	if len(archives) == 0 {
		return fmt.Errorf("no archive to add")
	}
	c := exec.CommandContext(a.ctx, "nix-store", append([]string{"--add-fixed", "sha256"}, archives...)...)
	c.Stdout, c.Stderr = a.stdout, a.stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("nix-store --add-fixed sha256 (%d archives): %w", len(archives), err)
	}
	return nil
}
