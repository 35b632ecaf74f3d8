package profile

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/jsonpos"
)

// Profile describes one JetPack/L4T release: where its debs are and what
// the redist output looks like. Fields left empty in a profile file are
// derived from the index (CUDA, ReleaseDate) or taken from the built-in
// profile of the same L4T major.
type Profile struct {
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases,omitempty"`
	JetPack     string   `json:"jetpack,omitempty"`
	Description string   `json:"description,omitempty"`
	// L4T is the L4T apt suite, "rMAJOR.MINOR".
	L4T   string   `json:"l4t"`
	Repos []string `json:"repos"`
	// CUDA is the CUDA major.minor of the set ("12.6").
	CUDA string `json:"cuda,omitempty"`
	// Platform is the redist platform ("linux-aarch64", "linux-sbsa").
	Platform string `json:"platform"`
	// AlsoPlatforms are further manifest keys the same archives are listed
	// under, for consumers that pick another redist system for some of the
	// release's devices (nixpkgs before 1dbbce67 maps Orin on CUDA 13 to
	// linux-aarch64, later revisions to linux-sbsa).
	AlsoPlatforms []string `json:"also_platforms,omitempty"`
	// Target is the directory below usr/local/cuda-X.Y/targets/.
	Target string `json:"target"`
	// Triple is the Debian multiarch triple ("aarch64-linux-gnu").
	Triple string `json:"triple"`
	// ReleaseDate (YYYY-MM-DD) goes into manifests and, unless
	// SOURCE_DATE_EPOCH is set, is every archive entry's mtime.
	ReleaseDate string `json:"release_date,omitempty"`
	// Expect lists the redist packages (pnames) the release must yield: a
	// plan that lacks any of them fails, naming them, so that an index cut
	// short or a deb pulled upstream never makes a partial release. A
	// profile file of a built-in profile's suite that leaves it out
	// inherits that profile's list; one of another suite, and a suite
	// derived from a built-in profile (ForSuite), expect nothing, since
	// which packages an older or newer release has is not known (the
	// Release file still guards the index's completeness).
	Expect []string `json:"expect,omitempty"`
	// Capabilities are the CUDA capabilities of the release's Jetson
	// devices ("7.2" Xavier, "8.7" Orin, "11.0" Thor): verify --nixpkgs
	// checks nixpkgs' platformAssertions for each. A profile file that
	// leaves it out inherits it like Expect.
	Capabilities []string `json:"cuda_capabilities,omitempty"`

	// Rules extends the built-in grouping and layout data; entries here
	// take precedence over the defaults.
	Rules Rules `json:"rules,omitempty"`
}

// Rules is the data the plan and layout engines run on.
type Rules struct {
	Products     map[string]Product `json:"products,omitempty"`
	MetaPackages []string           `json:"meta_packages,omitempty"`
	DropBinaries []DropBinary       `json:"drop_binaries,omitempty"`
	Components   []ComponentRule    `json:"components,omitempty"`
	Paths        []PathRule         `json:"rules,omitempty"`
	Links        []LinkRule         `json:"links,omitempty"`
	Stubs        []StubRule         `json:"stubs,omitempty"`
	Wheels       []WheelRule        `json:"wheels,omitempty"`
	// CUDAMajors is the range of numbers read as CUDA majors in package
	// name suffixes ("-12-6": built for CUDA 12.6), so that debs built for
	// another CUDA are skipped while other numeric suffixes are kept. The
	// profile's own range wins over the default; the profile's CUDA major
	// always counts.
	CUDAMajors *MajorRange `json:"cuda_majors,omitempty"`
}

// MajorRange is an inclusive range of major version numbers.
type MajorRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Contains reports whether the decimal number s (no sign, no leading
// zero) lies in the range.
func (m *MajorRange) Contains(s string) bool {
	if m == nil || s == "" || (s[0] == '0' && len(s) > 1) || len(s) > 9 {
		return false
	}
	n, err := strconv.Atoi(s)
	return err == nil && n >= m.Min && n <= m.Max
}

// Product is a manifest family (cuda, cudnn, tensorrt, l4t).
type Product struct {
	// LabelFrom names the component whose version, cut to three dotted
	// parts, is the manifest's release_label.
	LabelFrom string `json:"label_from"`
	// Order places the product's packages in a plan: products with an
	// order (1, 2, ...) come first by order, the others after them by name.
	Order int `json:"order,omitempty"`
}

// DropBinary excludes binary debs (glob on the package name) on purpose.
type DropBinary struct {
	Match  string `json:"match"`
	Reason string `json:"reason"`
}

// ComponentRule maps Debian sources (glob) to one redist package.
type ComponentRule struct {
	Source string `json:"source"`
	// Binaries restricts the entry to binary packages matching one of
	// these globs; others of the same source fall through to later entries.
	Binaries []string `json:"binaries,omitempty"`
	// PName is the redist package name; default: Source with '-' -> '_'.
	PName   string `json:"pname,omitempty"`
	Product string `json:"product"`
	Name    string `json:"name"`
	License string `json:"license"`
	// CUDAVariant nests the artifact under "cuda<MAJOR>" in the manifest.
	CUDAVariant bool `json:"cuda_variant,omitempty"`
	// CUDAVariantMinorFrom: from this CUDA release (MAJOR.MINOR) on, the
	// artifact is nested under the set's "cuda<MAJOR.MINOR>", with
	// "cuda_variant": ["MAJOR.MINOR"] and a _cudaMAJOR.MINOR file name, as
	// NVIDIA's CUDA 13 manifests give cuda_compat (a driver compatibility
	// archive is tied to a CUDA minor release).
	CUDAVariantMinorFrom string `json:"cuda_variant_minor_from,omitempty"`
	// Platform overrides the profile platform ("source" for samples).
	Platform string `json:"platform,omitempty"`
}

// PathRule places (or drops) deb paths. Match is a slash-separated
// pattern: '*' matches one path segment, a trailing "/**" matches any
// rest (which is appended to To); {cuda}, {target} and {triple} are
// replaced with the profile's values.
type PathRule struct {
	Match    string   `json:"match"`
	To       *string  `json:"to,omitempty"`
	Drop     string   `json:"drop,omitempty"`
	License  bool     `json:"license,omitempty"`
	Packages []string `json:"packages,omitempty"`
	// Types restricts the rule to entry types: "file", "dir", "symlink", "hardlink".
	Types []string `json:"types,omitempty"`
}

// LinkRule adds a symlink, like update-alternatives would, next to every
// tree path matching the regular expression Match: Name (with $1…
// expanded) points at the matched path. Existing paths are never replaced.
type LinkRule struct {
	Packages []string `json:"packages,omitempty"`
	Match    string   `json:"match"`
	Name     string   `json:"name"`
}

// StubRule synthesizes stub libraries (lib/stubs/libX.so, what NVIDIA's
// archives ship and the debs lack) from the real shared libraries of a
// package: every regular file whose tree path matches the regular
// expression Match gets a stub at Name ($1… expanded), exporting the same
// SONAME and symbol@version set. A path the debs already carry is kept.
type StubRule struct {
	Packages []string `json:"packages,omitempty"`
	Match    string   `json:"match"`
	Name     string   `json:"name"`
}

// WheelRule packs the Python modules some debs install under
// lib/python3.X/dist-packages/ into one wheel in python/ of the archive
// (what NVIDIA's TensorRT tarballs ship), named
// <name>-<version>-cp3X-none-linux_<arch>.whl; the installed tree is then
// left out of the archive. Version is the package version cut to
// VersionParts dotted parts (3 when unset).
type WheelRule struct {
	Packages     []string `json:"packages,omitempty"`
	Debs         []string `json:"debs"`
	Name         string   `json:"name"`
	Summary      string   `json:"summary,omitempty"`
	VersionParts int      `json:"version_parts,omitempty"`
}

//go:embed profiles/*.json defaults.json
var embedded embed.FS

// Defaults returns the built-in grouping and layout data.
func Defaults() Rules {
	var r Rules
	b, err := embedded.ReadFile("defaults.json")
	if err != nil {
		panic(err) // embedded at build time
	}
	if err := jsonpos.Decode("defaults.json", b, &r); err != nil {
		panic(fmt.Sprintf("profile: embedded %v", err))
	}
	return r
}

// Builtin returns the embedded profiles, sorted by suite.
func Builtin() []Profile {
	entries, err := embedded.ReadDir("profiles")
	if err != nil {
		panic(err)
	}
	var out []Profile
	for _, e := range entries {
		b, err := embedded.ReadFile("profiles/" + e.Name())
		if err != nil {
			panic(err)
		}
		var p Profile
		if err := jsonpos.Decode(e.Name(), b, &p); err != nil {
			panic(fmt.Sprintf("profile: embedded %v", err))
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return suiteLess(out[i].L4T, out[j].L4T) })
	return out
}

var suiteRE = regexp.MustCompile(`^r([0-9]{1,9})\.([0-9]{1,9})$`)

// ValidSuite reports whether s is an L4T apt suite name, "r<MAJOR>.<MINOR>"
// ("r36.5"), each number at most 9 digits.
func ValidSuite(s string) bool { return suiteRE.MatchString(s) }

// Major returns the L4T major of a suite ("r36.5" -> "36").
func Major(suite string) string {
	m := suiteRE.FindStringSubmatch(suite)
	if m == nil {
		return ""
	}
	return m[1]
}

func suiteLess(a, b string) bool {
	ma, mb := suiteRE.FindStringSubmatch(a), suiteRE.FindStringSubmatch(b)
	if ma == nil || mb == nil {
		return a < b
	}
	var x, y [2]int
	for i := range x { // at most 9 digits each (suiteRE): Atoi cannot fail
		x[i], _ = strconv.Atoi(ma[i+1])
		y[i], _ = strconv.Atoi(mb[i+1])
	}
	if x[0] != y[0] {
		return x[0] < y[0]
	}
	return x[1] < y[1]
}

// ForJetPack finds a built-in profile by JetPack version or alias
// ("6", "6.2", "jetpack6", "7.0").
func ForJetPack(v string) (Profile, error) {
	v = strings.TrimPrefix(strings.ToLower(v), "jetpack")
	var names []string
	for _, p := range Builtin() {
		names = append(names, strings.TrimPrefix(p.Name, "jetpack"))
		if strings.TrimPrefix(p.Name, "jetpack") == v || p.JetPack == v || slices.Contains(p.Aliases, v) {
			return p, nil
		}
	}
	return Profile{}, fault.Errorf(
		"no built-in profile for JetPack %s (known: %s; see %s)",
		jsonpos.Quote(v),
		strings.Join(names, ", "),
		fault.RefProfiles,
	)
}

// SupportedMajors lists the L4T majors ("r36") of the built-in profiles,
// sorted by number.
func SupportedMajors() []string {
	var ms []string
	for _, p := range Builtin() {
		if m := "r" + Major(p.L4T); !slices.Contains(ms, m) {
			ms = append(ms, m)
		}
	}
	slices.SortFunc(ms, func(a, b string) int {
		x, _ := strconv.Atoi(strings.TrimPrefix(a, "r"))
		y, _ := strconv.Atoi(strings.TrimPrefix(b, "r"))
		return x - y
	})
	return ms
}

// ForSuite returns the built-in profile of an L4T suite, or one derived
// from the built-in profile of the same L4T major with CUDA and the release
// date left to be derived from the index (see Resolve).
func ForSuite(suite string) (Profile, error) {
	if !ValidSuite(suite) {
		return Profile{}, fmt.Errorf("invalid L4T suite %s: want rMAJOR.MINOR, e.g. r36.5", jsonpos.Quote(suite))
	}
	var template *Profile
	for _, p := range Builtin() {
		if p.L4T == suite {
			return p, nil
		}
		if Major(p.L4T) == Major(suite) {
			p := p
			template = &p
		}
	}
	if template == nil {
		return Profile{}, fault.Errorf(
			"L4T %s: no built-in profile for L4T major %s (supported: %s); write a profile file and pass %s",
			suite,
			Major(suite),
			strings.Join(SupportedMajors(), ", "),
			fault.RefProfileFile,
		)
	}
	p := *template
	p.Name = "l4t-" + suite
	p.Aliases = nil
	p.JetPack = ""
	p.Description = fmt.Sprintf("L4T %s (derived from %s)", suite, template.Name)
	p.L4T = suite
	p.CUDA = ""
	p.ReleaseDate = ""
	p.Expect = nil // which packages another release has is not known
	return p, nil
}

// Load reads a user's profile file. Fields it leaves empty are filled from
// the built-in profile of the same L4T major.
func Load(r io.Reader, name string) (Profile, error) {
	data, err := jsonpos.ReadAll(name, r, maxFileBytes)
	if err != nil {
		return Profile{}, &InvalidError{File: name, Err: err}
	}
	if err := notAList(name, data); err != nil {
		return Profile{}, &InvalidError{File: name, Err: err}
	}
	var doc struct {
		// Schema is optional in a profile file; 'debredist profiles
		// --json NAME' writes it.
		Schema string `json:"schema,omitempty"`
		Profile
	}
	if err := jsonpos.Decode(name, data, &doc); err != nil {
		return Profile{}, &InvalidError{File: name, Err: err}
	}
	if doc.Schema != "" && doc.Schema != Schema {
		return Profile{}, &InvalidError{
			File:  name,
			Field: "schema",
			Value: doc.Schema,
			Want:  fmt.Sprintf("%q (the profile format this debredist reads)", Schema),
		}
	}
	p := doc.Profile
	if !ValidSuite(p.L4T) {
		return Profile{}, &InvalidError{File: name, Field: "l4t", Value: p.L4T, Want: "an L4T suite like r36.5"}
	}
	base, err := ForSuite(p.L4T)
	if err == nil {
		if p.Name == "" {
			p.Name = base.Name
		}
		if len(p.Repos) == 0 {
			p.Repos = base.Repos
		}
		if p.Platform == "" {
			p.Platform = base.Platform
			if p.AlsoPlatforms == nil {
				p.AlsoPlatforms = base.AlsoPlatforms
			}
		}
		if p.Target == "" {
			p.Target = base.Target
		}
		if p.Triple == "" {
			p.Triple = base.Triple
		}
		if p.CUDA == "" && base.L4T == p.L4T {
			p.CUDA = base.CUDA
		}
		if p.ReleaseDate == "" && base.L4T == p.L4T {
			p.ReleaseDate = base.ReleaseDate
		}
		if p.Expect == nil && base.L4T == p.L4T {
			p.Expect = base.Expect
		}
		if p.Capabilities == nil {
			p.Capabilities = base.Capabilities
		}
	}
	if p.Name == "" {
		p.Name = "l4t-" + p.L4T
	}
	if p.Platform == "" || p.Target == "" || p.Triple == "" || len(p.Repos) == 0 {
		return Profile{}, &InvalidError{
			File: name,
			Err: fmt.Errorf(
				"platform, target, triple and repos are required for L4T %s (no built-in profile of that major to inherit from)",
				p.L4T,
			),
		}
	}
	return p, p.validate(name)
}

// Schema names the profile file format; 'debredist profiles --json NAME'
// writes it as the file's "schema" key, and Load accepts it.
const Schema = "debredist.profile/v1"

// ListSchema is the schema of the list of profiles 'debredist profiles
// --json' prints (a "profiles" key holding them): not a profile file.
const ListSchema = "debredist.profiles/v1"

// notAList refuses a list of profiles where one profile is expected:
// 'debredist profiles --json' (an object with schema ListSchema and a
// "profiles" key; an array in older versions), with the command that
// prints one.
func notAList(name string, data []byte) error {
	hint := func(err error) error {
		return fault.Errorf("%w; a profile file holds one profile: %s", err, fault.RefProfile)
	}
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) > 0 && t[0] == '[' {
		return hint(jsonpos.At(name, data, int64(len(data)-len(t)), "an array of profiles, not a profile"))
	}
	var list struct {
		Schema   string          `json:"schema"`
		Profiles json.RawMessage `json:"profiles"`
	}
	if jsonpos.Decode(name, data, &list, jsonpos.AllowUnknown) != nil ||
		list.Schema != ListSchema && list.Profiles == nil {
		return nil // the strict decoding says what else is wrong
	}
	if list.Schema == ListSchema {
		return hint(jsonpos.At(name, data, max(jsonpos.KeyOffset(data, "schema"), 0),
			"the list of profiles (schema %s), not a profile", ListSchema))
	}
	return hint(jsonpos.At(name, data, max(jsonpos.KeyOffset(data, "profiles"), 0),
		"unknown field \"profiles\" (a list of profiles holds its profiles there)"))
}

// maxFileBytes bounds a profile file.
const maxFileBytes = 16 << 20

// LoadFile reads a profile file from disk: a regular file (a named pipe or
// a device is refused, never waited on). A file that cannot be opened is
// an *InvalidError too: it is the user's input either way.
func LoadFile(path string) (Profile, error) {
	f, err := files.OpenRegular(path)
	if err != nil {
		return Profile{}, &InvalidError{File: path, Err: err}
	}
	defer f.Close()
	return Load(f, path)
}

var cudaRE = regexp.MustCompile(`^[0-9]+\.[0-9]+$`)
var dateRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// Validate checks p as Load checks a profile file named name: every
// value that reaches a path, a name or a command against its grammar.
// Readers of a profile recorded elsewhere (a provenance sidecar) run it too.
func (p Profile) Validate(name string) error { return p.validate(name) }

func (p Profile) validate(name string) error {
	if p.CUDA != "" && !cudaRE.MatchString(p.CUDA) {
		return &InvalidError{File: name, Field: "cuda", Value: p.CUDA, Want: "MAJOR.MINOR"}
	}
	if p.ReleaseDate != "" && !dateRE.MatchString(p.ReleaseDate) {
		return &InvalidError{File: name, Field: "release_date", Value: p.ReleaseDate, Want: "a date YYYY-MM-DD"}
	}
	if err := p.checkNames(name); err != nil {
		return err
	}
	for i, l := range p.Rules.Links {
		if _, err := regexp.Compile(l.Match); err != nil {
			return &InvalidError{
				File:  name,
				Field: fmt.Sprintf("rules.links[%d].match", i),
				Value: l.Match,
				Want:  "a regular expression (" + err.Error() + ")",
			}
		}
	}
	for _, s := range p.Rules.Stubs {
		if _, err := regexp.Compile(s.Match); err != nil {
			return fmt.Errorf("profile %s: stub rule %s: %v", name, jsonpos.Quote(s.Match), err)
		}
		if s.Name == "" {
			return fmt.Errorf("profile %s: stub rule %s has no name", name, jsonpos.Quote(s.Match))
		}
	}
	for _, w := range p.Rules.Wheels {
		if w.Name == "" || len(w.Debs) == 0 {
			return fmt.Errorf("profile %s: wheel rule needs a name and debs: %+v", name, w)
		}
	}
	return nil
}

// Merged returns the profile's rules in front of the defaults (profile
// entries win: they are matched first).
func (p Profile) Merged() Rules {
	d := Defaults()
	r := p.Rules
	out := Rules{
		Products:     map[string]Product{},
		MetaPackages: append(slices.Clone(r.MetaPackages), d.MetaPackages...),
		DropBinaries: append(slices.Clone(r.DropBinaries), d.DropBinaries...),
		Components:   append(slices.Clone(r.Components), d.Components...),
		Paths:        append(slices.Clone(r.Paths), d.Paths...),
		Links:        append(slices.Clone(r.Links), d.Links...),
		Stubs:        append(slices.Clone(r.Stubs), d.Stubs...),
		Wheels:       append(slices.Clone(r.Wheels), d.Wheels...),
	}
	out.CUDAMajors = d.CUDAMajors
	if r.CUDAMajors != nil {
		out.CUDAMajors = r.CUDAMajors
	}
	for k, v := range d.Products {
		out.Products[k] = v
	}
	for k, v := range r.Products {
		out.Products[k] = v
	}
	return out
}

// CUDAMajor returns the major of the profile's CUDA version ("12").
func (p Profile) CUDAMajor() string {
	major, _, _ := strings.Cut(p.CUDA, ".")
	return major
}

// CUDADashed returns the CUDA version as Debian package names carry it ("12-6").
func (p Profile) CUDADashed() string { return strings.ReplaceAll(p.CUDA, ".", "-") }
