package redist

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/jsonpos"
)

// What a valid output directory holds, for every reader of one (verify,
// sbom, nix, diff, build-archive, convert's look at its previous output):
// ReadManifest and ReadProvenance refuse a file that breaks these rules,
// and Compare tells a manifest entry that disagrees with its provenance
// record. Every string is bounded and printable ([profile.TextProblem]), so
// that no reader cuts, folds or shows it differently from another.
const (
	MaxTextLen    = 256  // a component's name and license
	MaxPathLen    = 1024 // a relative_path, license_path or deb filename
	MaxLineLen    = 4096 // a line of the provenance (changes, warnings, URLs)
	MaxDebVersion = 128  // a Debian version recorded in the provenance
)

var (
	dateRE    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	hex64RE   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	hex32RE   = regexp.MustCompile(`^[0-9a-f]{32}$`)
	variantRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	debNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.+-]*$`)
	debVerRE  = regexp.MustCompile(`^[A-Za-z0-9.+~:_-]+$`)
	sizeRE    = regexp.MustCompile(`^[1-9][0-9]{0,17}$`)
	narRE     = regexp.MustCompile(`^sha256-[A-Za-z0-9+/]{43}=$`)
	// platformRE is a manifest's platform key as NVIDIA's manifests have
	// them (linux-x86_64, windows-x86_64, linux-sbsa, source).
	platformRE = regexp.MustCompile(`^(source|[a-z0-9]+-[a-z0-9_]+)$`)
)

// problems collects what is wrong, each naming its field.
type problems []error

func (ps *problems) add(field, format string, a ...any) {
	*ps = append(*ps, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, a...)))
}

// text checks a printable value of at most max bytes.
func (ps *problems) text(field, s string, max int, required bool) {
	switch {
	case s == "" && required:
		ps.add(field, "empty")
	case profile.TextProblem(s, max) != "":
		ps.add(field, "%s %s", jsonpos.Quote(s), profile.TextProblem(s, max))
	}
}

// match checks s against a grammar (in words: want).
func (ps *problems) match(field, s string, ok bool, want string) {
	if !ok {
		ps.add(field, "%s is not %s", jsonpos.Quote(s), want)
	}
}

// relPath checks a path relative to the manifest's directory.
func (ps *problems) relPath(field, p string) {
	if c, ok := CleanRelativePath(p); !ok || len(p) > MaxPathLen || path.Clean(p) != p ||
		profile.TextProblem(p, MaxPathLen) != "" ||
		c == "" {
		ps.add(field, "%s is not a relative path below the manifest's directory", jsonpos.Quote(p))
	}
}

// err is every problem in one line ("; " between them).
func (ps *problems) err() error {
	if len(*ps) == 0 {
		return nil
	}
	msgs := make([]string, len(*ps))
	for i, p := range *ps {
		msgs[i] = p.Error()
	}
	return errors.New(strings.Join(msgs, "; "))
}

// Check reports what makes m no valid manifest of an output directory,
// every problem naming its field (nil when none): release_product a name,
// release_label dotted numbers, release_date a date; each component key a
// redist package name ([profile.ValidPName]: none nixpkgs' CUDA package set
// uses for itself), its name and license printable text of at most
// MaxTextLen bytes, its version dotted numbers, its license_path and each
// artifact's relative_path a path below the manifest's directory, each
// sha256 and md5 hex, each size a positive number of bytes, each platform
// a platform and each cuda_variant a CUDA version.
func (m *Manifest) Check() error {
	var ps problems
	ps.match("release_product", m.ReleaseProduct, profile.ValidName(m.ReleaseProduct), "a product name ([a-z0-9_]+)")
	ps.match("release_label", m.ReleaseLabel, profile.ValidVersion(m.ReleaseLabel), "dotted numbers")
	ps.match("release_date", m.ReleaseDate, m.ReleaseDate == "" || dateRE.MatchString(m.ReleaseDate), "a date YYYY-MM-DD")
	for _, name := range slices.Sorted(maps.Keys(m.Components)) {
		c := m.Components[name]
		if !profile.ValidPName(name) {
			ps.add("component "+jsonpos.Quote(name), "not %s", profile.PNameWant)
			continue
		}
		c.check(&ps, name)
	}
	return ps.err()
}

func (c *Component) check(ps *problems, name string) {
	ps.text(name+".name", c.Name, MaxTextLen, false)
	ps.text(name+".license", c.License, MaxTextLen, false)
	if c.LicensePath != "" {
		ps.relPath(name+".license_path", c.LicensePath)
	}
	ps.match(name+".version", c.Version, profile.ValidVersion(c.Version), "dotted numbers (at most 64 bytes)")
	for _, v := range c.CUDAVariant {
		ps.match(name+".cuda_variant", v, variantRE.MatchString(v), "a CUDA version (12, 13.2)")
	}
	for _, k := range slices.Sorted(maps.Keys(c.Extra)) {
		ps.match(name+" key", k, profile.ValidName(k), "a field name ([a-z0-9_]+)")
		var v any
		if err := jsonpos.Unmarshal(c.Extra[k], &v); err == nil {
			walkStrings(v, func(s string) { ps.text(name+"."+k, s, MaxLineLen, false) })
		}
	}
	for _, p := range slices.Sorted(maps.Keys(c.Platforms)) {
		ps.match(
			name+" platform",
			p,
			len(p) <= profile.MaxNameLen && platformRE.MatchString(p),
			"a platform (linux-aarch64, linux-x86_64, …, or source)",
		)
	}
	for _, pa := range c.Artifacts() {
		where := name + "." + pa.Platform
		if pa.CUDAVariant != "" {
			where += "." + VariantKey(pa.CUDAVariant)
		}
		a := pa.Artifact
		ps.relPath(where+".relative_path", a.RelativePath)
		ps.match(where+".sha256", a.SHA256, hex64RE.MatchString(a.SHA256), "64 lower-case hex digits")
		ps.match(where+".md5", a.MD5, a.MD5 == "" || hex32RE.MatchString(a.MD5), "32 lower-case hex digits")
		ps.match(where+".size", a.Size, sizeRE.MatchString(a.Size), "a positive number of bytes")
	}
}

// walkStrings calls fn with every string in a decoded JSON value.
func walkStrings(v any, fn func(string)) {
	switch v := v.(type) {
	case string:
		fn(v)
	case []any:
		for _, e := range v {
			walkStrings(e, fn)
		}
	case map[string]any:
		for k, e := range v {
			fn(k)
			walkStrings(e, fn)
		}
	}
}

// Check reports what makes p no valid provenance sidecar, every problem
// naming its field (nil when none): the profile it records valid as a
// profile file is ([profile.Profile.Validate]), and each archive's product,
// pname (not empty: [profile.ValidPName]), platform, cuda_variant, version,
// relative_path, size, hashes, debs and stubs within the same grammars as
// the manifest's, every other string printable and bounded.
func (p *Provenance) Check() error {
	var ps problems
	ps.text("tool", p.Tool, MaxTextLen, false)
	ps.match(
		"encoder.format",
		p.Encoder.Format,
		p.Encoder.Format == "" ||
			strings.HasPrefix(p.Encoder.Format, ".tar.") && profile.ValidName(strings.TrimPrefix(p.Encoder.Format, ".tar.")),
		"an archive extension (.tar.xz, .tar.zst)",
	)
	ps.text("mirror", p.Mirror, MaxLineLen, false)
	pr := p.Profile
	ps.text("profile.name", pr.Name, profile.MaxNameLen, false)
	ps.text("profile.description", pr.Description, 1024, false)
	ps.match("profile.l4t", pr.L4T, pr.L4T == "" || profile.ValidSuite(pr.L4T), "an L4T suite (r36.5)")
	ps.match("profile.cuda", pr.CUDA, pr.CUDA == "" || profile.ValidVersion(pr.CUDA), "a CUDA version (12.6)")
	ps.match(
		"profile.jetpack",
		pr.JetPack,
		pr.JetPack == "" || profile.ValidVersion(pr.JetPack),
		"a JetPack version (6.2.2)",
	)
	ps.match(
		"profile.release_date",
		pr.ReleaseDate,
		pr.ReleaseDate == "" || dateRE.MatchString(pr.ReleaseDate),
		"a date YYYY-MM-DD",
	)
	if pr.Name != "" { // a recorded profile: whole, as a profile file is checked
		if err := pr.Validate("(recorded)"); err != nil {
			ps.add("profile", "%v", err)
		}
	}
	for i, ix := range p.Indexes {
		f := fmt.Sprintf("indexes[%d]", i)
		ps.text(f+".repo", ix.Repo, profile.MaxNameLen, true)
		ps.text(f+".url", ix.URL, MaxLineLen, true)
		ps.match(f+".sha256", ix.SHA256, hex64RE.MatchString(ix.SHA256), "64 lower-case hex digits")
	}
	for i, a := range p.Archives {
		f := fmt.Sprintf("archives[%d]", i)
		ps.match(f+".product", a.Product, profile.ValidName(a.Product), "a product name ([a-z0-9_]+)")
		ps.match(f+".pname", a.PName, profile.ValidPName(a.PName), profile.PNameWant)
		ps.match(f+".platform", a.Platform, profile.ValidPlatform(a.Platform), "a platform (linux-[a-z0-9]+)")
		ps.match(
			f+".cuda_variant",
			a.CUDAVariant,
			a.CUDAVariant == "" || variantRE.MatchString(a.CUDAVariant),
			"a CUDA version (12, 13.2)",
		)
		ps.match(f+".version", a.Version, profile.ValidVersion(a.Version), "dotted numbers (at most 64 bytes)")
		ps.relPath(f+".relative_path", a.RelativePath)
		ps.match(f+".size", strconv.FormatInt(a.Size, 10), a.Size > 0, "a positive number of bytes")
		ps.match(f+".sha256", a.SHA256, hex64RE.MatchString(a.SHA256), "64 lower-case hex digits")
		ps.match(f+".md5", a.MD5, a.MD5 == "" || hex32RE.MatchString(a.MD5), "32 lower-case hex digits")
		ps.match(f+".nar_hash", a.NAR, a.NAR == "" || narRE.MatchString(a.NAR), "an SRI sha256 (sha256-…)")
		ps.text(f+".input_key", a.InputKey, MaxTextLen, false)
		for j, d := range a.Debs {
			g := fmt.Sprintf("%s.debs[%d]", f, j)
			ps.text(g+".repo", d.Repo, profile.MaxNameLen, true)
			ps.match(
				g+".package",
				d.Package,
				len(d.Package) <= MaxTextLen && debNameRE.MatchString(d.Package),
				"a Debian package name",
			)
			ps.match(
				g+".version",
				d.Version,
				len(d.Version) <= MaxDebVersion && debVerRE.MatchString(d.Version),
				"a Debian version",
			)
			ps.relPath(g+".filename", d.Filename)
			ps.match(g+".sha256", d.SHA256, hex64RE.MatchString(d.SHA256), "64 lower-case hex digits")
		}
		for j, s := range a.Stubs {
			g := fmt.Sprintf("%s.stubs[%d]", f, j)
			ps.relPath(g+".path", s.Path)
			ps.relPath(g+".from", s.From)
			ps.text(g+".from_deb", s.FromDeb, MaxPathLen, false)
			ps.text(g+".soname", s.SOName, MaxTextLen, false)
			ps.match(g+".sha256", s.SHA256, hex64RE.MatchString(s.SHA256), "64 lower-case hex digits")
		}
		for j, c := range a.Changes {
			ps.text(fmt.Sprintf("%s.changes[%d]", f, j), c, MaxLineLen, false)
		}
		for j, w := range a.Warnings {
			ps.text(fmt.Sprintf("%s.warnings[%d].code", f, j), w.Code, MaxTextLen, false)
			ps.text(fmt.Sprintf("%s.warnings[%d].package", f, j), w.Package, MaxTextLen, false)
			ps.text(fmt.Sprintf("%s.warnings[%d].message", f, j), w.Message, MaxLineLen, false)
		}
		for j, r := range a.ProfileRules {
			ps.text(fmt.Sprintf("%s.profile_rules[%d]", f, j), r, MaxLineLen, false)
		}
	}
	return ps.err()
}

// Compare compares what a manifest says of one artifact of its component
// name with the provenance record of the archive, field by field: pname,
// version, platform (one of platforms, the keys the manifest lists the
// archive under), cuda_variant, size, sha256 and md5. It returns one
// message per field that differs (none when they agree): every reader
// takes a manifest entry only with a record that agrees.
func Compare(name string, c *Component, pa PlatformArtifact, rec Archive, platforms []string) []string {
	var out []string
	differ := func(field, manifest, recorded string) {
		out = append(
			out,
			fmt.Sprintf(
				"field %s: the manifest says %s, the provenance sidecar records %s",
				field,
				jsonpos.Quote(manifest),
				jsonpos.Quote(recorded),
			),
		)
	}
	if name != rec.PName {
		differ("pname (the component's key)", name, rec.PName)
	}
	if c.Version != rec.Version {
		differ("version", c.Version, rec.Version)
	}
	if !slices.Contains(platforms, rec.Platform) {
		differ("platform", pa.Platform, rec.Platform)
	}
	if pa.CUDAVariant != rec.CUDAVariant {
		differ("cuda_variant", pa.CUDAVariant, rec.CUDAVariant)
	}
	if pa.Artifact.Size != strconv.FormatInt(rec.Size, 10) {
		differ("size", pa.Artifact.Size, strconv.FormatInt(rec.Size, 10))
	}
	if pa.Artifact.SHA256 != rec.SHA256 {
		differ("sha256", pa.Artifact.SHA256, rec.SHA256)
	}
	if rec.MD5 != "" && pa.Artifact.MD5 != rec.MD5 {
		differ("md5", pa.Artifact.MD5, rec.MD5)
	}
	return out
}

// CompareAll compares every artifact of m with p's record of it (Compare)
// and checks that each archive m names is recorded and each archive p
// records is named: one message per disagreement, none when m and p
// describe the same archives alike.
func CompareAll(m *Manifest, p *Provenance) []string {
	recs := map[string]Archive{}
	for _, a := range p.Archives {
		recs[a.RelativePath] = a
	}
	platforms := map[string][]string{}
	for _, c := range m.Components {
		for _, pa := range c.Artifacts() {
			platforms[pa.Artifact.RelativePath] = append(platforms[pa.Artifact.RelativePath], pa.Platform)
		}
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(m.Components)) {
		c := m.Components[name]
		for _, pa := range c.Artifacts() {
			rec, ok := recs[pa.Artifact.RelativePath]
			if !ok {
				out = append(
					out,
					fmt.Sprintf(
						"%s: archive %s: not recorded in the provenance sidecar",
						name,
						jsonpos.Quote(pa.Artifact.RelativePath),
					),
				)
				continue
			}
			for _, d := range Compare(name, c, pa, rec, platforms[pa.Artifact.RelativePath]) {
				out = append(out, fmt.Sprintf("%s: archive %s: %s", name, pa.Artifact.RelativePath, d))
			}
		}
	}
	for _, rp := range slices.Sorted(maps.Keys(recs)) {
		if _, ok := platforms[rp]; !ok {
			out = append(
				out,
				fmt.Sprintf("the provenance sidecar records %s, which the manifest does not name", jsonpos.Quote(rp)),
			)
		}
	}
	return out
}
