package debredist

import (
	"context"
	"encoding/json"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/convert"
	"github.com/debredist/debredist/internal/deb"
	"github.com/debredist/debredist/internal/nixoverlay"
)

// DebLimits bound what one deb may make debredist consume (decompression
// bombs are stopped by expansion ratio as well as by size; a bound
// exceeded is a [*fault.DebError] of Kind DebLimit). Zero fields take the
// defaults; the fields, their defaults and the measurements behind them
// are documented on [entry.Limits], which this is.
type DebLimits = entry.Limits

// ExtractOptions are the options of ExtractDeb.
type ExtractOptions struct {
	Force  bool      // replace an existing non-empty dir (refused otherwise)
	Limits DebLimits // bounds on what the deb may expand to
	// Warn, when set, receives one line per entry written differently
	// from the deb (setuid, setgid or sticky bits stripped, write
	// permission for others cleared, absolute symlink targets re-rooted).
	Warn func(msg string)
}

// ExtractDeb safely extracts a deb's data into dir: no path or symlink may
// escape it. The extraction is written beside dir and renamed into place,
// so a failure leaves nothing half-written.
func ExtractDeb(ctx context.Context, debPath, dir string, o ExtractOptions) error {
	return deb.Extract(ctx, debPath, dir, o.Force, deb.Options{Limits: o.Limits, SystemXZ: true, Warn: o.Warn})
}

// FetchResult lists the debs a Fetch made available in the cache.
type FetchResult struct {
	Plan  *plan.Plan        `json:"plan"`
	Debs  []apt.Package     `json:"debs"`
	Paths map[string]string `json:"paths"` // sha256 -> cache file
	// CacheDir is the cache the debs are in ([Source.CacheDir] or the
	// default, $XDG_CACHE_HOME/debredist).
	CacheDir string `json:"cache_dir"`
	// Downloads counts the files this call downloaded and the debs it
	// found in the cache.
	Downloads event.Downloads `json:"downloads"`
}

// Fetch plans the release like Convert and makes sure every deb the plan
// needs is in the cache (or, with packages given, those binary packages of
// the release's repos). With [Build.LockOut] it writes the lock of the debs.
func Fetch(ctx context.Context, opts Options, packages ...string) (*FetchResult, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	comp, _ := compression(opts.Build.Compression) // checked
	r := convert.New(opts.stage(comp))
	f, err := r.Fetch(ctx, packages)
	if err != nil {
		return nil, err
	}
	return &FetchResult{Plan: f.Plan, Debs: f.Debs, Paths: f.Paths, CacheDir: f.CacheDir, Downloads: r.Downloads()}, nil
}

// NixOptions are the options of Nix.
type NixOptions struct {
	// Derivations returns, instead of an overlay that reads OUT, a Nix
	// file that builds every archive as a fixed-output derivation (its
	// hash the manifest's sha256) from the debs the provenance pins,
	// fetched by fetchurl, running `debredist build-archive` (see
	// BuildArchive); its overlay attribute takes the archives from those
	// derivations. Manifests and provenance are embedded: the file alone
	// is what a user keeps.
	Derivations bool
	// Mirror is where the derivations fetch the debs from (a base URL or
	// directory); default: the mirror the provenance records, else
	// NVIDIA's repository. One that is no mirror URL, or a directory that
	// is not there, is a [*fault.UsageError] whose Option is
	// "NixOptions.Mirror".
	Mirror string
	// CopyArchivesTo, when set, is a directory each archive is copied to
	// (read through the one generation Nix reads, its sha256 checked), and
	// [NixResult.Archives] lists the copies: the files to hand nix-store
	// --add-fixed, which would otherwise open OUT's paths again itself.
	CopyArchivesTo string
}

// NixResult is what Nix returns.
type NixResult struct {
	// Text is the Nix file: an overlay, or with [NixOptions.Derivations] the
	// file that builds the archives (its overlay one attribute).
	Text string
	// Set is the package set the overlay changes (cudaPackages_12_6).
	Set string
	// Archives are the absolute paths of every archive OUT's manifests
	// name, each once: those the overlay fetches from OUT and those of
	// manifests it leaves out (the l4t DLA compiler's, for a fetchurl of
	// its own): what `nix-store --add-fixed sha256` adds to the store.
	Archives []string
	// Notes are what the user must know or decide (the insecure TensorRT,
	// a manifest nixpkgs does not read, problems no override fixes), one
	// line each; they are never printed into Text.
	Notes []string
	// Data is everything the Nix knows about OUT: the JSON it reads with
	// builtins.fromJSON (schema debredist.nix/v1, docs/json.md).
	Data json.RawMessage
}

// Nix returns the Nix overlay that makes nixpkgs' CUDA package set of OUT's
// CUDA release use OUT's manifests and archives (applied after
// jetpack-nixos' overlay; see the README's "Consuming the output"), or
// with [NixOptions.Derivations] the file that builds them in Nix. It
// runs [verify.Nixpkgs] on OUT to know what to override. The printed Nix
// is constant code applied to one JSON string of data: nothing read from
// OUT is ever Nix syntax.
func Nix(ctx context.Context, out string, o NixOptions) (*NixResult, error) {
	if o.Derivations {
		if err := checkMirror(fault.RefNixMirror, o.Mirror, true); err != nil {
			return nil, err
		}
	}
	r, err := nixoverlay.Write(
		ctx,
		out,
		nixoverlay.Options{
			Derivations:    o.Derivations,
			Mirror:         o.Mirror,
			CopyArchivesTo: o.CopyArchivesTo,
			Nixpkgs:        nixpkgsVerdicts,
		},
	)
	if err != nil {
		return nil, err
	}
	return &NixResult{Text: r.Text, Set: r.Set, Archives: r.Archives, Notes: r.Notes, Data: r.Data}, nil
}

// nixpkgsVerdicts runs verify --nixpkgs on the snapshot nixoverlay reads and
// hands down what the overlay needs of it.
func nixpkgsVerdicts(ctx context.Context, snap *outdir.Snapshot) (*nixoverlay.Verdicts, error) {
	if err := verify.Readable(ctx, snap); err != nil {
		return nil, err
	}
	rep, err := verify.NixpkgsSnapshot(ctx, snap)
	if err != nil {
		return nil, err
	}
	v := &nixoverlay.Verdicts{Archives: make([]nixoverlay.Verdict, 0, len(rep.Components))}
	for _, c := range rep.Components {
		v.Archives = append(v.Archives, nixoverlay.Verdict{
			Component: c.Component, Path: c.Path, Version: c.Version, Source: c.Source, Broken: c.Broken,
			Fills: c.Fills, EmptyOutputs: c.EmptyOutputs, NixpkgsOwn: c.NixpkgsOwn, Insecure: c.Insecure, Failures: c.Failures,
			StubsDir: c.StubsDir,
		})
	}
	for _, p := range rep.Problems {
		v.Problems = append(v.Problems, p.Error())
	}
	return v, nil
}
