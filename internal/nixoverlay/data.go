package nixoverlay

import (
	"context"
	sha256h "crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/files"
)

// Schema names the format of Data (docs/json.md).
const Schema = "debredist.nix/v1"

// Data is everything the printed Nix knows about an output directory: the
// JSON that overlay.nix and archives.nix read with builtins.fromJSON.
type Data struct {
	Schema string `json:"schema"`
	// CUDA is the release's major.minor ("12.6"); Set and MajorSet the
	// package sets it names (cudaPackages_12_6, cudaPackages_12).
	CUDA     string `json:"cuda"`
	Set      string `json:"set"`
	MajorSet string `json:"major_set"`
	// OwnSet is true where nixpkgs has no package set of this release
	// (JetPack 5's CUDA 11.4: cuda-legacy's, and jetpack-nixos' 11.4
	// extension is filtered).
	OwnSet bool `json:"own_set"`
	// BaseURL is the file:// URL of the output directory (the plain
	// overlay; empty for --derivations, which embeds what it needs).
	BaseURL string `json:"base_url"`
	// Manifests are the manifests of nixpkgs' CUDA redists, by product, as
	// debredist parsed them (re-encoded: only fields it understood).
	Manifests map[string]json.RawMessage `json:"manifests"`
	// Archives are the relative paths of each product's archives.
	Archives map[string][]string `json:"archives"`
	// Packages are the packages the manifests provide, by pname.
	Packages map[string]Package `json:"packages"`
	// NullPackages are set to null (cuda_compat on JetPack 5: the L4T r35
	// driver already is CUDA 11.4).
	NullPackages []string `json:"null_packages"`

	// With --derivations (else empty): the debs by sha256, each product's
	// provenance sidecar as read, and the archives' derivations.
	Debs        map[string]Deb      `json:"debs"`
	Provenance  map[string]Sidecar  `json:"provenance"`
	Derivations []ArchiveDerivation `json:"derivations"`
}

// Package is what the overlay states about one package.
type Package struct {
	Redist string `json:"redist"`
	// Releases are the archive per redist system, the CUDA variant already
	// chosen (buildRedist's passthru.supportedReleases).
	Releases map[string]Release `json:"releases"`
	// Outputs are the outputs the archive fills: declared where nixpkgs
	// has no package file for it.
	Outputs []string `json:"outputs"`
	// DropOutputs are declared outputs the archive leaves empty.
	DropOutputs []string `json:"drop_outputs"`
	// DropInputs are inputs the package file takes that this CUDA release
	// lacks (libcusparse's libnvjitlink on CUDA 11.4).
	DropInputs []string `json:"drop_inputs"`
	// StubsHook, when not null, is includeRemoveStubsFromRunpathHook
	// (stated where revisions differ: libnvfatbin).
	StubsHook *bool `json:"stubs_hook"`
}

// Release is one archive as buildRedist reads it from a manifest.
type Release struct {
	RelativePath string `json:"relative_path"`
	SHA256       string `json:"sha256"`
	MD5          string `json:"md5,omitempty"`
	Size         string `json:"size,omitempty"`
}

// collect reads one generation of OUT (abs, read through snap) into Data,
// and what the user is told beside the Nix.
func collect(
	ctx context.Context,
	snap *outdir.Snapshot,
	abs string,
	derivations bool,
	copyTo string,
	nixpkgs NixpkgsFunc,
) (*Data, *Result, error) {
	if len(snap.Foreign) > 0 { // what they stand for would be left out silently
		return nil, nil, fault.Errorf(
			"%d symbolic link(s) debredist did not write, not followed: %s (%s lists them)",
			len(snap.Foreign),
			strings.Join(snap.Paths(snap.Foreign), ", "),
			fault.RefVerify,
		)
	}
	type manifest struct {
		file, rel string // as OUT shows it, and relative to OUT
		m         *redist.Manifest
	}
	byProduct := map[string]manifest{}
	cudaFromProvenance := ""
	for _, p := range snap.Manifests {
		rel, err := snap.ReadProduct(p) // valid, and agreeing with its provenance (outdir)
		if err != nil {
			return nil, nil, err
		}
		m := rel.M
		if !nameRE.MatchString(m.ReleaseProduct) {
			return nil, nil, fmt.Errorf(
				"manifest %s: release_product %q is not a product name ([a-z0-9][a-z0-9_]*)",
				snap.Path(p),
				m.ReleaseProduct,
			)
		}
		if prev, ok := byProduct[m.ReleaseProduct]; ok {
			return nil, nil, fmt.Errorf(
				"two %s manifests: %s and %s (convert into separate directories)",
				m.ReleaseProduct,
				prev.file,
				snap.Path(p),
			)
		}
		byProduct[m.ReleaseProduct] = manifest{snap.Path(p), p, m}
		if pv := rel.Prov; pv.Profile.CUDA != "" && cudaFromProvenance == "" {
			cudaFromProvenance = pv.Profile.CUDA
		}
	}
	if len(byProduct) == 0 {
		return nil, nil, fmt.Errorf("no redistrib_*.json manifest found")
	}
	label, where := cudaFromProvenance, "provenance CUDA version"
	if c, ok := byProduct["cuda"]; ok {
		label, where = c.m.ReleaseLabel, "manifest "+c.file
	}
	if label == "" {
		return nil, nil, fmt.Errorf(
			"no cuda manifest and no provenance sidecar naming the CUDA version: cannot name the cudaPackages set",
		)
	}
	mm, err := cudaMajorMinor(label)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", where, err)
	}
	major, _, _ := strings.Cut(mm, ".")
	d := &Data{
		Schema: Schema, CUDA: mm, Set: "cudaPackages_" + strings.ReplaceAll(mm, ".", "_"), MajorSet: "cudaPackages_" + major,
		OwnSet: !nixTable().HasPackageSet(mm), Manifests: map[string]json.RawMessage{}, Archives: map[string][]string{},
		Packages: map[string]Package{}, NullPackages: []string{},
		Debs: map[string]Deb{}, Provenance: map[string]Sidecar{}, Derivations: []ArchiveDerivation{},
	}
	if !derivations {
		d.BaseURL = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	}
	res := &Result{Set: d.Set}

	// What nixpkgs' builder would do with each archive.
	if nixpkgs == nil {
		return nil, nil, fmt.Errorf("nixoverlay: Options.Nixpkgs is required")
	}
	rep, err := nixpkgs(ctx, snap)
	if err != nil {
		return nil, nil, err
	}
	checked := map[string]Verdict{} // pname NUL relative_path
	for _, c := range rep.Archives {
		checked[c.Component+"\x00"+c.Path] = c
	}
	for _, prod := range slices.Sorted(maps.Keys(byProduct)) {
		mf := byProduct[prod]
		base := path.Dir(mf.rel)
		if !nixTable().IsRedist(prod) {
			res.Notes = append(
				res.Notes,
				fmt.Sprintf(
					"%s (%s) is not one of nixpkgs' CUDA redists and is left out of the overlay: use its archives directly "+
						"(fetchurl with the manifest's sha256)",
					prod,
					mf.file,
				),
			)
			// Still one of OUT's archives: Result.Archives lists it, so
			// that the store gets it for that fetchurl.
			for _, name := range slices.Sorted(maps.Keys(mf.m.Components)) {
				seen := map[string]bool{}
				for _, pa := range mf.m.Components[name].Artifacts() {
					if seen[pa.Artifact.RelativePath] {
						continue
					}
					seen[pa.Artifact.RelativePath] = true
					if err := res.addArchive(ctx, snap, base, pa.Artifact, copyTo); err != nil {
						return nil, nil, fmt.Errorf("manifest %s: %s: %w", mf.file, name, err)
					}
				}
			}
			continue
		}
		raw, err := json.Marshal(mf.m)
		if err != nil {
			return nil, nil, fmt.Errorf("manifest %s: %w", mf.file, err)
		}
		d.Manifests[prod] = raw
		seen := map[string]bool{}
		for _, name := range slices.Sorted(maps.Keys(mf.m.Components)) {
			if !nameRE.MatchString(name) {
				return nil, nil, fmt.Errorf("manifest %s: component %q is not a package name ([a-z0-9][a-z0-9_]*)", mf.file, name)
			}
			if _, dup := d.Packages[name]; dup {
				return nil, nil, fmt.Errorf("manifest %s: component %s is in two manifests", mf.file, name)
			}
			pkg := Package{Redist: prod, Releases: map[string]Release{}, DropOutputs: []string{}, DropInputs: []string{}}
			for _, pa := range mf.m.Components[name].Artifacts() {
				rel, err := safeRel(pa.Artifact)
				if err != nil {
					return nil, nil, fmt.Errorf("manifest %s: %s: %w", mf.file, name, err)
				}
				pkg.Releases[pa.Platform] = Release{
					RelativePath: rel,
					SHA256:       pa.Artifact.SHA256,
					MD5:          pa.Artifact.MD5,
					Size:         pa.Artifact.Size,
				}
				if seen[rel] {
					continue
				}
				seen[rel] = true
				if err := res.addArchive(ctx, snap, base, pa.Artifact, copyTo); err != nil {
					return nil, nil, fmt.Errorf("manifest %s: %s: %w", mf.file, name, err)
				}
				d.Archives[prod] = append(d.Archives[prod], rel)
				c, ok := checked[name+"\x00"+rel]
				if !ok {
					continue
				}
				addVerdict(&pkg, c, mm, res)
			}
			if pkg.Outputs == nil {
				pkg.Outputs = []string{"out"}
			}
			if d.OwnSet && name == "cuda_compat" {
				d.NullPackages = append(d.NullPackages, name)
				continue
			}
			d.Packages[name] = pkg
		}
	}
	if d.OwnSet && !slices.Contains(d.NullPackages, "cuda_compat") {
		d.NullPackages = append(d.NullPackages, "cuda_compat")
	}
	for _, p := range rep.Problems {
		res.Notes = append(res.Notes, "nixpkgs' rules: "+p)
	}
	if len(d.Manifests) == 0 {
		return nil, nil, fmt.Errorf("no manifest of nixpkgs' CUDA redists (%s)", strings.Join(nixTable().Redists, ", "))
	}
	return d, res, nil
}

// addArchive appends the archive a of the manifest in directory base to
// res.Archives once it is readable (archiveReadable): its path in OUT, or
// with copyTo its copy there.
func (res *Result) addArchive(
	ctx context.Context,
	snap *outdir.Snapshot,
	base string,
	a *redist.Artifact,
	copyTo string,
) error {
	rel, err := safeRel(a)
	if err != nil {
		return err
	}
	src := path.Join(base, rel)
	if err := archiveReadable(snap, src, a.Size); err != nil {
		return err
	}
	file := snap.Path(src)
	if copyTo != "" {
		file, err = copyArchive(ctx, snap, src, filepath.Join(copyTo, strconv.Itoa(len(res.Archives))), a.SHA256)
		if err != nil {
			return err
		}
	}
	res.Archives = append(res.Archives, file)
	return nil
}

// safeRel is a's relative_path when it is a clean path below the manifest.
func safeRel(a *redist.Artifact) (string, error) {
	rel, ok := redist.CleanRelativePath(a.RelativePath)
	if !ok || rel != a.RelativePath {
		return "", fmt.Errorf("unsafe relative_path %q", a.RelativePath)
	}
	return rel, nil
}

// archiveReadable checks, before the Nix names an archive, that it is a
// regular file of the generation with the manifest's size: what the
// overlay states of a package (its outputs, its stubs) is read from it, and
// the plain overlay points Nix at it. Anything else is an error.
func archiveReadable(snap *outdir.Snapshot, p, size string) error {
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil {
		return fmt.Errorf("archive %s: size %q is not a number of bytes", snap.Path(p), size)
	}
	f, err := snap.OpenArchive(p, n) // outdir: a regular file of that size, no hard link outside OUT
	if err != nil {
		return fault.Errorf("archive %s: %w (%s tells more)", snap.Path(p), err, fault.RefVerify)
	}
	return f.Close()
}

// copyArchive copies the archive at p, read through snap, to a new file of
// its name in dir, checking the copy's sha256 against the manifest's: what
// is then added to the Nix store is those bytes, whatever happens to OUT.
func copyArchive(ctx context.Context, snap *outdir.Snapshot, p, dir, sha256 string) (string, error) {
	f, err := snap.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, filepath.Base(p))
	w, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return "", err
	}
	h := sha256h.New()
	_, err = io.Copy(io.MultiWriter(w, h), files.ContextReader(ctx, f))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("copying archive %s: %w", snap.Path(p), err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sha256 {
		return "", fault.Errorf(
			"archive %s has sha256 %s, the manifest says %s (%s tells more)",
			snap.Path(p),
			got,
			sha256,
			fault.RefVerify,
		)
	}
	return dst, nil
}

// addVerdict adds what verify --nixpkgs says of one archive of a package.
func addVerdict(pkg *Package, c Verdict, cuda string, res *Result) {
	pkg.Outputs = c.Fills
	if c.Broken != "" {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: does not evaluate, nixpkgs' own problem: %s", c.Component, c.Broken))
		return
	}
	drop := append([]string(nil), c.EmptyOutputs...)
	for _, own := range c.NixpkgsOwn {
		if o, ok := ownOutput(own); ok {
			drop = append(drop, o)
		}
	}
	for _, o := range drop {
		if !slices.Contains(pkg.DropOutputs, o) {
			pkg.DropOutputs = append(pkg.DropOutputs, o)
		}
	}
	pkg.DropInputs = append([]string{}, nixTable().DropInputs(c.Component, cuda)...)
	if nixTable().Packages[c.Component].StateStubsHook {
		h := c.StubsDir
		pkg.StubsHook = &h
	}
	for _, v := range c.Insecure {
		src, _, _ := strings.Cut(c.Source, " ")
		res.Notes = append(
			res.Notes,
			fmt.Sprintf(
				"INSECURE: %s. nixpkgs marks it insecure (meta.knownVulnerabilities in %s), so it does not evaluate until you "+
					"accept that: set acceptInsecureTensorRT = true in the printed file, or add \"cuda%s-%s-%s\" to your nixpkgs "+
					"config's permittedInsecurePackages",
				v,
				src,
				cuda,
				c.Component,
				c.Version,
			),
		)
	}
	for _, f := range c.Failures {
		res.Notes = append(res.Notes, fmt.Sprintf("nixpkgs' rules find a problem no override fixes: %s: %s", c.Component, f))
	}
}

// ownOutput returns the output a nixpkgs-own empty-output finding names.
func ownOutput(finding string) (string, bool) {
	rest, ok := strings.CutPrefix(finding, "declared output \"")
	if !ok {
		return "", false
	}
	o, _, ok := strings.Cut(rest, "\"")
	return o, ok
}
