package verify

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/nixcheck"
)

// NixpkgsReport is the outcome of Nixpkgs.
type NixpkgsReport struct {
	Dir        string           `json:"dir"`
	Components []NixpkgsArchive `json:"components"`
	// Excluded are the archives nixpkgs' CUDA package sets do not read
	// (the l4t manifest of the DLA compiler), each with the reason: with
	// Components they are every archive the manifests name, once.
	Excluded []Excluded `json:"excluded"`
	Problems []Problem  `json:"problems"` // not tied to one archive
}

// Excluded is an archive Nixpkgs does not check, and why.
type Excluded struct {
	Manifest  string `json:"manifest"`
	Component string `json:"component"`
	Path      string `json:"path"`
	Reason    string `json:"reason"`
}

// NixpkgsArchive is nixpkgs' view of one archive.
type NixpkgsArchive struct {
	Manifest    string `json:"manifest"`
	Component   string `json:"component"`
	Platform    string `json:"platform"`
	CUDAVariant string `json:"cuda_variant,omitempty"`
	Path        string `json:"path"`
	CUDA        string `json:"cuda"`
	Version     string `json:"version"`
	// Known is false for packages nixpkgs has no rules for here: only the
	// generic checks apply (outputs: out).
	Known bool `json:"known"`
	// Outputs counts the entries each declared output would receive.
	Outputs map[string]int `json:"outputs"`
	// Failures would fail nixpkgs' build of this archive.
	Failures []string `json:"failures"`
	// Broken is set when nixpkgs marks the package broken itself: its
	// failures are not the archive's.
	Broken string `json:"nixpkgs_broken,omitempty"`
	// NixpkgsOwn are problems nixpkgs has with NVIDIA's own archives too.
	NixpkgsOwn []string `json:"nixpkgs_own"`
	// EmptyOutputs are the declared outputs that would be empty because the
	// archive has nothing for them (the release's debs carry no such
	// content, e.g. no TensorRT samples in JetPack 7). nixpkgs'
	// checkCudaNonEmptyOutputs fails on them unless the outputs override
	// that debredist nix prints is used; convert warns about each. They are not
	// in Failures and Err does not count them.
	EmptyOutputs []string `json:"empty_outputs"`
	// Insecure are nixpkgs' meta.knownVulnerabilities at this version:
	// the package evaluates only where the user permits it
	// (permittedInsecurePackages, or the choice debredist nix prints).
	Insecure []string `json:"insecure"`
	// Devices says, per CUDA capability of the release (its profile's
	// cuda_capabilities), whether nixpkgs' platformAssertions let the
	// package evaluate for it.
	Devices []string `json:"devices"`
	// Source is the nixpkgs file and revision the package's rules were
	// read from.
	Source string `json:"source"`
	// Fills are the outputs the archive fills ("out" first, nixpkgs'
	// order): what a package nixpkgs has no file for declares.
	Fills []string `json:"fills"`
	// StubsDir says an output holds a stubs directory after install.
	StubsDir bool `json:"stubs_dir"`
	// Generations say where the nixpkgs revisions users have differ on
	// this package ("revision: what it does"), and what debredist nix
	// states because of it.
	Generations []string `json:"generations"`
}

// Err lists the failures that are the output's (not nixpkgs' own).
func (r *NixpkgsReport) Err() error {
	if r == nil {
		return nil
	}
	all := append([]Problem(nil), r.Problems...)
	for _, c := range r.Components {
		if c.Broken != "" {
			continue
		}
		for _, f := range c.Failures {
			all = append(all, Problemf("", "%s (%s): %s", c.Component, c.Path, f))
		}
	}
	if len(all) == 0 {
		return nil
	}
	return &Error{Problems: all}
}

// Nixpkgs applies the rules of nixpkgs' generic CUDA builder
// (buildRedist) to every archive the manifests under dir name, as a build
// would: outputs split by pattern, every declared output non-empty, no
// /usr/ references unless the package allows them, no dangling links per
// output, the pkg-config move and rewrite, and each package's own
// requirements (the nixpkgs table debredist carries). It does not re-check
// hashes (Dir does). The error is for failures to run at all.
//
// Like Dir, it reads one generation of OUT, again when a conversion
// replaced it meanwhile.
func Nixpkgs(ctx context.Context, dir string) (*NixpkgsReport, error) {
	return reread(ctx, dir, "nixpkgs' rules for", NixpkgsSnapshot)
}

// NixpkgsSnapshot is Nixpkgs on one Snapshot of OUT.
func NixpkgsSnapshot(ctx context.Context, s *outdir.Snapshot) (*NixpkgsReport, error) {
	dir := s.Out
	rep := &NixpkgsReport{Dir: dir}
	table := nixcheck.Shared()
	manifests := s.Manifests
	if len(manifests) == 0 {
		rep.Problems = append(rep.Problems, Problemf("", "no redistrib_*.json manifest under %s", dir))
	}
	type loaded struct {
		file, rel string
		m         *redist.Manifest
	}
	var ms []loaded
	cudaLabel := ""
	for _, mf := range manifests {
		rel := mf
		f, err := s.Open(mf)
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Path: rel, Err: err})
			continue
		}
		m, err := redist.ReadManifest(f)
		f.Close()
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Path: rel, Err: err})
			continue
		}
		if m.ReleaseProduct == "cuda" {
			cudaLabel = m.ReleaseLabel
		}
		ms = append(ms, loaded{mf, rel, m})
	}
	for _, l := range ms {
		if !table.IsRedist(l.m.ReleaseProduct) {
			// not one of nixpkgs' CUDA redists (the l4t DLA compiler)
			seen := map[string]bool{}
			for _, name := range slices.Sorted(maps.Keys(l.m.Components)) {
				for _, pa := range l.m.Components[name].Artifacts() {
					if !seen[pa.Artifact.RelativePath] {
						seen[pa.Artifact.RelativePath] = true
						rep.Excluded = append(rep.Excluded, Excluded{Manifest: l.rel, Component: name, Path: pa.Artifact.RelativePath,
							Reason: fmt.Sprintf(
								"%s is not one of nixpkgs' CUDA redists: use the archive directly (fetchurl with the manifest's sha256)",
								l.m.ReleaseProduct,
							)})
					}
				}
			}
			continue
		}
		prof := sidecarProfile(s, l.file)
		cuda := prof.CUDA
		if cuda == "" {
			cuda = cudaLabel
		}
		if cuda == "" {
			rep.Problems = append(
				rep.Problems,
				Problemf(l.rel, "no provenance sidecar and no cuda manifest name the CUDA version of the package set"),
			)
			continue
		}
		base := filepath.Dir(l.file)
		seen := map[string]bool{} // one archive listed under several platform keys is checked once
		platforms := map[string][]string{}
		for _, c := range l.m.Components {
			for _, pa := range c.Artifacts() {
				platforms[pa.Artifact.RelativePath] = append(platforms[pa.Artifact.RelativePath], pa.Platform)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(l.m.Components)) {
			for _, pa := range l.m.Components[name].Artifacts() {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				if seen[pa.Artifact.RelativePath] {
					continue
				}
				seen[pa.Artifact.RelativePath] = true
				nc := NixpkgsArchive{
					Manifest:    l.rel,
					Component:   name,
					Platform:    pa.Platform,
					CUDAVariant: pa.CUDAVariant,
					Path:        pa.Artifact.RelativePath,
					CUDA:        cuda,
					Version:     l.m.Components[name].Version,
				}
				p, ok := redist.CleanRelativePath(pa.Artifact.RelativePath)
				if !ok {
					nc.Failures = append(nc.Failures, "unsafe relative_path")
					rep.Components = append(rep.Components, nc)
					continue
				}
				err := checkNixpkgs(
					ctx,
					s,
					table,
					&nc,
					filepath.Join(base, p),
					prof.Capabilities,
					platforms[pa.Artifact.RelativePath],
				)
				if err != nil {
					nc.Failures = append(nc.Failures, err.Error())
				}
				rep.Components = append(rep.Components, nc)
			}
		}
	}
	return rep, ctx.Err()
}

func checkNixpkgs(
	ctx context.Context,
	s *outdir.Snapshot,
	table *nixcheck.Table,
	nc *NixpkgsArchive,
	file string,
	caps, platforms []string,
) error {
	f, err := s.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	c := table.NewChecker(
		nixcheck.Target{
			PName:        nc.Component,
			Platform:     nc.Platform,
			CUDA:         nc.CUDA,
			Version:      nc.Version,
			Capabilities: caps,
			Platforms:    platforms,
		},
	)
	// Known before the walk: an archive that does not decode still has its
	// package rules.
	_, nc.Known = table.Outputs(nc.Component, nc.Platform, nc.CUDA, nc.Version)
	if err := archive.Walk(ctx, f, archive.TopName(filepath.Base(file)), c.Add); err != nil {
		return err
	}
	r := c.Finish()
	nc.Known, nc.Outputs, nc.Broken = r.Known, r.Outputs, r.Broken
	nc.NixpkgsOwn, nc.EmptyOutputs = r.NixpkgsOwn, r.EmptyOutputs
	nc.Insecure, nc.Devices, nc.Source = r.Insecure, r.Devices, r.Source
	nc.Fills, nc.StubsDir, nc.Generations = r.Fills, r.StubsDir, r.Generations
	for _, f := range r.Failures {
		if !nixcheck.IsEmptyOutput(f) {
			nc.Failures = append(nc.Failures, f)
		}
	}
	return nil
}

// sidecarProfile returns the profile a manifest's provenance records (the
// zero Profile when there is none).
func sidecarProfile(s *outdir.Snapshot, manifest string) profile.Profile {
	if p, _, err := s.ReadSidecar(manifest); err == nil {
		return p.Profile
	}
	return profile.Profile{}
}
