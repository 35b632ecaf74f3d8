package nixcheck

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/safepath"
)

//go:embed nixpkgs.json
var tableJSON []byte

// Table is nixpkgs' per-package knowledge: the outputs each package file
// declares, how buildRedist splits an archive into them, and what each
// package's hooks need.
type Table struct {
	// Sources are the revisions the rules were read from, by key ("pin",
	// "read", "newest", "jetpack-nixos", "cuda-legacy").
	Sources map[string]Source `json:"sources"`
	// NewestDiffers says what the newest readable nixpkgs does differently.
	NewestDiffers []string `json:"newest_differs"`
	// Redists are the manifests (release_product) nixpkgs' CUDA package
	// set reads; others (the l4t DLA compiler) are left out of its overlay.
	Redists []string `json:"redists"`
	// CUDAMin is the oldest CUDA release nixpkgs has a package set of its
	// own for; an older release's set must be built from nixpkgs' CUDA
	// modules the way jetpack-nixos builds its CUDA 11.4 set.
	CUDAMin         string              `json:"cuda_min"`
	ExpectedOutputs []string            `json:"expected_outputs"`
	Patterns        map[string][]string `json:"output_patterns"`
	Exempt          []string            `json:"exempt_from_nonempty"`
	// StubsFallbacks is outputNameVarFallbacks.outputStubs: the output
	// that gets the stubs hook is the first of these the package declares,
	// else out.
	StubsFallbacks []string           `json:"stubs_output_fallbacks"`
	Packages       map[string]Package `json:"packages"`
	// NoPackageFile names the packages a manifest may have that nixpkgs
	// has no package file for at some revisions, with which.
	NoPackageFile map[string]string `json:"no_package_file"`
}

// Source is a revision of a repository the rules were read from.
type Source struct {
	Repo string `json:"repo"`
	Rev  string `json:"rev"`
	Note string `json:"note"`
}

// Package is one nixpkgs package file's rules.
type Package struct {
	Outputs      []string      `json:"outputs"`
	ExtraOutputs []ExtraOutput `json:"extra_outputs,omitempty"`
	AllowFHS     bool          `json:"allow_fhs_references,omitempty"`
	Broken       string        `json:"broken,omitempty"`
	Requires     []Require     `json:"requires,omitempty"`
	// NixpkgsOwn are empty outputs that are nixpkgs' own problem (its
	// package file does not match what NVIDIA ships either).
	NixpkgsOwn []OwnGap `json:"nixpkgs_own,omitempty"`
	// StubsHook is includeRemoveStubsFromRunpathHook; nil means the
	// default, whether "stubs" is a declared output.
	StubsHook *bool `json:"stubs_hook,omitempty"`
	// Removes are globs postInstall deletes before the checks of
	// postFixup (tensorrt: rm python/*.whl, rm -r lib/stubs).
	Removes []string `json:"removes,omitempty"`
	// Assertions are platformAssertions on cudaConfig (capabilities,
	// platform, CUDA): a false one makes the package unavailable.
	Assertions []Assertion `json:"assertions,omitempty"`
	// KnownVulnerabilities are meta.knownVulnerabilities by version: an
	// insecure package does not evaluate unless the user permits it.
	KnownVulnerabilities []Vulnerability `json:"known_vulnerabilities,omitempty"`
	// StateStubsHook says the revisions differ on
	// includeRemoveStubsFromRunpathHook for this package (libnvfatbin sets
	// it at b18526a2, not at 6a088f5b): debredist nix states it, true
	// exactly when the archive holds a stubs directory after install.
	StateStubsHook bool `json:"state_stubs_hook,omitempty"`
	// Inputs are package-set members the package file takes as inputs
	// that older CUDA releases lack (libcusparse's libnvjitlink before CUDA
	// 12.0): debredist nix drops such an input where OUT's release has none.
	Inputs []Input `json:"inputs,omitempty"`
	// Generations say what differs between the revisions of nixpkgs
	// users have, each "revision: what it does", and what debredist nix
	// states because of it.
	Generations []string `json:"generations,omitempty"`
	// Source is the file and revision the rules were read from.
	Source string `json:"source"`
}

// Input is a package-set member a package file takes as an input, which
// exists from CUDAMin on.
type Input struct {
	PName   string `json:"pname"`
	CUDAMin string `json:"cuda_min"`
	Source  string `json:"source"`
}

// DropInputs returns the inputs of pname that a CUDA release cuda lacks.
func (t *Table) DropInputs(pname, cuda string) []string {
	var drop []string
	for _, in := range t.Packages[pname].Inputs {
		if !versionAtLeast(cuda, in.CUDAMin) {
			drop = append(drop, in.PName)
		}
	}
	return drop
}

// Assertion is one platformAssertion; the When fields (version_min,
// platform) say when it applies.
type Assertion struct {
	VersionMin        string   `json:"version_min,omitempty"`
	Platform          string   `json:"platform,omitempty"`
	CapabilitiesMin   string   `json:"capabilities_min,omitempty"`   // every capability at least this
	CapabilitiesEqual []string `json:"capabilities_equal,omitempty"` // cudaCapabilities exactly this
	CapabilitiesIn    []string `json:"capabilities_subset,omitempty"`
	CUDAMin           string   `json:"cuda_min,omitempty"`
	Message           string   `json:"message"`
}

// Vulnerability marks versions below VersionBelow insecure.
type Vulnerability struct {
	VersionBelow string `json:"version_below"`
	Text         string `json:"text"`
}

// OwnGap is a declared output nixpkgs' package file gets wrong.
type OwnGap struct {
	Output  string `json:"output"`
	CUDAMin string `json:"cuda_min,omitempty"`
	Reason  string `json:"reason"`
}

// ExtraOutput is an output declared only on some platforms or versions.
type ExtraOutput struct {
	Output       string `json:"output"`
	Platform     string `json:"platform,omitempty"`
	CUDAMin      string `json:"cuda_min,omitempty"`
	VersionBelow string `json:"version_below,omitempty"` // of the package
}

// Require is a path that must exist (at least one match of Glob, "**/"
// matching any depth), optionally with content every match must have
// (after the pkg-config rewrite for .pc files).
type Require struct {
	// Glob may hold {cuda}, the set's CUDA major.minor.
	Glob      string `json:"glob"`
	Contains  string `json:"contains,omitempty"`
	Line      string `json:"line,omitempty"` // regexp one line must match
	CUDABelow string `json:"cuda_below,omitempty"`
	CUDAMin   string `json:"cuda_min,omitempty"`
	// VersionBelow limits the requirement to package versions below it.
	VersionBelow string `json:"version_below,omitempty"`
	Why          string `json:"why"`
}

// Shared is Default, parsed once.
var Shared = sync.OnceValue(Default)

// Default returns the built-in table.
func Default() *Table {
	var t Table
	if err := json.Unmarshal(tableJSON, &t); err != nil {
		panic("nixcheck: nixpkgs.json: " + err.Error())
	}
	return &t
}

// Target is the archive a Checker looks at, and the devices it is for.
type Target struct {
	PName    string
	Platform string // linux-aarch64, linux-sbsa, ...
	CUDA     string // the package set's CUDA, MAJOR.MINOR[.PATCH]
	Version  string // the component's version
	// Capabilities are the CUDA capabilities of the release's devices
	// ("7.2" Xavier, "8.7" Orin, "11.0" Thor); a user builds for one of
	// them (cudaCapabilities = [ cap ]). Empty: assertions not checked.
	Capabilities []string
	// Platforms are every platform key the archive is listed under (the
	// manifest may list one archive under linux-aarch64 and linux-sbsa);
	// nil means Platform alone.
	Platforms []string
}

// DevicePlatform is the redist system nixpkgs picks for a Jetson of CUDA
// capability cap at the pinned revision: linux-sbsa when every capability
// is at least 10.1 (Thor), else linux-aarch64 (_cuda/lib/redist.nix
// getRedistSystem@3f99d36bbf69b8ea60f637a7841f8d24f3ff0ff9; from 1dbbce67
// on, Orin on CUDA >= 13 gets linux-sbsa too).
func DevicePlatform(cap string) string {
	if versionAtLeast(cap, "10.1") {
		return "linux-sbsa"
	}
	return "linux-aarch64"
}

// IsRedist reports whether nixpkgs' CUDA package set reads the manifest
// of product.
func (t *Table) IsRedist(product string) bool { return slices.Contains(t.Redists, product) }

// HasPackageSet reports whether nixpkgs has a CUDA package set of its own
// for CUDA release cuda (major.minor), i.e. it is not older than CUDAMin.
func (t *Table) HasPackageSet(cuda string) bool { return versionAtLeast(cuda, t.CUDAMin) }

// Outputs returns the outputs nixpkgs declares for pname on a platform,
// CUDA version and package version, and whether the table knows the
// package.
func (t *Table) Outputs(pname, platform, cuda, version string) ([]string, bool) {
	p, ok := t.Packages[pname]
	if !ok {
		return []string{"out"}, false
	}
	outs := append([]string(nil), p.Outputs...)
	for _, x := range p.ExtraOutputs {
		if (x.Platform == "" || x.Platform == platform) && (x.CUDAMin == "" || versionAtLeast(cuda, x.CUDAMin)) &&
			(x.VersionBelow == "" || !versionAtLeast(version, x.VersionBelow)) {
			outs = append(outs, x.Output)
		}
	}
	// nixpkgs keeps only the expected outputs, in their order.
	var kept []string
	for _, o := range t.ExpectedOutputs {
		for _, d := range outs {
			if d == o {
				kept = append(kept, o)
				break
			}
		}
	}
	return kept, true
}

// Result is the outcome for one archive.
type Result struct {
	PName string `json:"pname"`
	Known bool   `json:"known"` // the table has the package
	// Outputs counts the entries each declared output ends up with.
	Outputs map[string]int `json:"outputs"`
	// Failures would fail nixpkgs' build of this archive.
	Failures []string `json:"failures,omitempty"`
	// Broken is set when nixpkgs marks the package broken itself: its
	// failures are nixpkgs' own.
	Broken string `json:"broken,omitempty"`
	// NixpkgsOwn are failures that are nixpkgs' own (see Package.NixpkgsOwn).
	NixpkgsOwn []string `json:"nixpkgs_own,omitempty"`
	// EmptyOutputs are the declared outputs that would be empty, other
	// than nixpkgs' own (each is also in Failures).
	EmptyOutputs []string `json:"empty_outputs,omitempty"`
	// Insecure are the package's meta.knownVulnerabilities at this
	// version: it evaluates only where the user permits it.
	Insecure []string `json:"insecure,omitempty"`
	// Devices says, per capability of Target.Capabilities, which
	// platformAssertions fail ("8.7: ok", "7.2: Only Xavier ...").
	Devices []string `json:"devices,omitempty"`
	// Source is the package rule's file@revision.
	Source string `json:"source,omitempty"`
	// Fills are the outputs the archive would fill if the package declared
	// every expected output, in nixpkgs' order ("out" first): what a
	// package nixpkgs has no file for (cudnn_jit) declares.
	Fills []string `json:"fills,omitempty"`
	// StubsDir says an output would hold a stubs directory after install
	// (what includeRemoveStubsFromRunpathHook must agree with).
	StubsDir bool `json:"stubs_dir,omitempty"`
	// Generations say where the revisions users have differ on this
	// package (Package.Generations, Table.NoPackageFile).
	Generations []string `json:"generations,omitempty"`
}

// Checker emulates buildRedist on one archive. Feed every entry with Add
// (regular files with their content), then call Finish.
type Checker struct {
	t        *Table
	target   Target
	pkg      Package
	known    bool
	entries  []entry.Header
	usr      map[string]bool   // files that mention /usr/ (after rewrite)
	pc       map[string][]byte // .pc contents after the rewrite
	contains map[string]map[string]bool
}

// NewChecker starts checking one archive.
func (t *Table) NewChecker(tg Target) *Checker {
	p, ok := t.Packages[tg.PName]
	p.Requires = slices.Clone(p.Requires) // the table is shared: never edit it
	for i, r := range p.Requires {        // {cuda} is the set's major.minor
		p.Requires[i].Glob = strings.ReplaceAll(r.Glob, "{cuda}", majorMinor(tg.CUDA))
	}
	c := &Checker{t: t, target: tg, pkg: p, known: ok,
		usr: map[string]bool{}, pc: map[string][]byte{}, contains: map[string]map[string]bool{}}
	return c
}

var usrNeedle = []byte("/usr/")

// Add records one entry; content is read for regular files (nil otherwise).
func (c *Checker) Add(e entry.Header, content io.Reader) error {
	e.Path = strings.TrimSuffix(e.Path, "/")
	c.entries = append(c.entries, e)
	if e.Type != entry.Regular || content == nil {
		return nil
	}
	var needles []string
	for _, r := range c.pkg.Requires {
		if r.Contains != "" && globMatch(r.Glob, e.Path) {
			needles = append(needles, r.Contains)
		}
	}
	if isPkgConfig(e.Path) || len(needles) > 0 {
		b, err := io.ReadAll(io.LimitReader(content, 16<<20))
		if err != nil {
			return err
		}
		if isPkgConfig(e.Path) {
			b = rewritePC(b)
			c.pc[e.Path] = b
		}
		for _, n := range needles {
			if c.contains[e.Path] == nil {
				c.contains[e.Path] = map[string]bool{}
			}
			c.contains[e.Path][n] = bytes.Contains(b, []byte(n))
		}
		if path.Base(e.Path) != "LICENSE" && bytes.Contains(b, usrNeedle) {
			c.usr[e.Path] = true
		}
		return nil
	}
	if path.Base(e.Path) == "LICENSE" {
		_, err := io.Copy(io.Discard, content)
		return err
	}
	found, err := scan(content, usrNeedle)
	if found {
		c.usr[e.Path] = true
	}
	return err
}

// scan reports whether r contains needle, streaming.
func scan(r io.Reader, needle []byte) (bool, error) {
	buf := make([]byte, 64<<10)
	var carry []byte
	found := false
	for {
		n, err := r.Read(buf)
		if n > 0 && !found {
			chunk := append(carry, buf[:n]...)
			if bytes.Contains(chunk, needle) {
				found = true
			}
			k := len(needle) - 1
			if len(chunk) < k {
				k = len(chunk)
			}
			carry = append([]byte(nil), chunk[len(chunk)-k:]...)
		}
		if err == io.EOF {
			return found, nil
		}
		if err != nil {
			return found, err
		}
	}
}

func isPkgConfig(p string) bool {
	return strings.HasSuffix(p, ".pc") && (strings.HasPrefix(p, "pkg-config/") || strings.HasPrefix(p, "pkgconfig/"))
}

var (
	cudarootRE = regexp.MustCompile(`(?m)^cudaroot\s*=.*$`)
	libdirRE   = regexp.MustCompile(`(?m)^libdir\s*=.*/lib$`)
	incdirRE   = regexp.MustCompile(`(?m)^includedir\s*=.*/include$`)
)

// rewritePC does what patchCudaPkgConfig's sed does (store paths stand in
// as /nix/store/…).
func rewritePC(b []byte) []byte {
	b = cudarootRE.ReplaceAll(b, []byte("cudaroot=/nix/store/dev"))
	b = libdirRE.ReplaceAll(b, []byte("libdir=/nix/store/lib/lib"))
	return incdirRE.ReplaceAll(b, []byte("includedir=/nix/store/include/include"))
}

// globMatch matches a slash path against a glob whose leading "**/"
// matches any number of directories.
func globMatch(glob, p string) bool {
	if rest, ok := strings.CutPrefix(glob, "**/"); ok {
		for {
			if m, _ := path.Match(rest, p); m {
				return true
			}
			i := strings.IndexByte(p, '/')
			if i < 0 {
				return false
			}
			p = p[i+1:]
		}
	}
	m, _ := path.Match(glob, p)
	return m
}

// underPattern reports whether moveToOutput pattern pat moves p: p matches
// it, or one of p's parent directories does.
func underPattern(pat, p string) bool {
	if strings.HasPrefix(pat, "**/") {
		return globMatch(pat, p)
	}
	for q := p; q != "."; q = path.Dir(q) {
		if m, _ := path.Match(pat, q); m {
			return true
		}
	}
	return false
}

// Finish runs the emulation and returns the result: the archive's
// requirements, buildRedist's unpack and its split into outputs, then the
// checks of postFixup on every output.
func (c *Checker) Finish() *Result {
	res := &Result{
		PName:       c.target.PName,
		Known:       c.known,
		Outputs:     map[string]int{},
		Broken:      c.pkg.Broken,
		Source:      c.pkg.Source,
		Generations: slices.Clone(c.pkg.Generations),
	}
	if note, ok := c.t.NoPackageFile[c.target.PName]; ok {
		res.Generations = append(res.Generations, note)
	}
	fail := func(format string, a ...any) { res.Failures = append(res.Failures, fmt.Sprintf(format, a...)) }
	outputs, _ := c.t.Outputs(c.target.PName, c.target.Platform, c.target.CUDA, c.target.Version)
	c.evaluate(res)
	c.checkRequirements(fail)
	tree := c.unpack(c.afterRemoves(), fail)
	c.linkUnversionedPC(tree, fail)
	paths, owner := c.splitOutputs(tree, outputs)
	c.checkNonEmptyOutputs(res, outputs, paths, owner, fail)
	c.checkStubsHook(outputs, paths, owner, fail)
	c.checkFHSRefs(fail)
	c.checkDanglingLinks(tree, paths, owner, fail)
	c.fills(res, tree, paths)
	return res
}

// fills sets res.Fills and res.StubsDir from the unpacked tree.
func (c *Checker) fills(res *Result, tree map[string]entry.Header, paths []string) {
	_, owner := c.splitOutputs(tree, c.t.ExpectedOutputs)
	filled := map[string]bool{"out": true}
	for _, p := range paths {
		filled[owner[p]] = true
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if path.Base(d) == "stubs" {
				res.StubsDir = true
			}
		}
	}
	for _, o := range c.t.ExpectedOutputs {
		if filled[o] {
			res.Fills = append(res.Fills, o)
		}
	}
}

// checkRequirements checks the package's requirements that apply to this
// CUDA and package version on the archive as shipped: each must match an
// entry, and every match must hold the required content and line.
func (c *Checker) checkRequirements(fail func(string, ...any)) {
	for _, r := range c.pkg.Requires {
		if r.CUDABelow != "" && versionAtLeast(c.target.CUDA, r.CUDABelow) ||
			r.CUDAMin != "" && !versionAtLeast(c.target.CUDA, r.CUDAMin) ||
			r.VersionBelow != "" && versionAtLeast(c.target.Version, r.VersionBelow) {
			continue
		}
		matches := c.matches(r.Glob)
		if len(matches) == 0 {
			fail("no %s: %s", r.Glob, r.Why)
			continue
		}
		for _, m := range matches {
			if r.Contains != "" && !c.contains[m][r.Contains] {
				fail("%s lacks %q: %s", m, r.Contains, r.Why)
			}
			if r.Line != "" {
				if b, ok := c.pc[m]; ok && !regexp.MustCompile("(?m)"+r.Line).Match(b) {
					fail("%s has no line matching %s after the pkg-config rewrite: %s", m, r.Line, r.Why)
				}
			}
		}
	}
}

// matches returns the paths of the entries that glob matches; a glob
// without wildcards also matches a directory that is only implicit (lib/stubs
// when only its files are listed).
func (c *Checker) matches(glob string) []string {
	var matches []string
	for _, e := range c.entries {
		if globMatch(glob, e.Path) {
			matches = append(matches, e.Path)
		}
	}
	if len(matches) == 0 && !strings.ContainsAny(glob, "*?[") {
		for _, e := range c.entries {
			if strings.HasPrefix(e.Path, glob+"/") {
				return []string{glob}
			}
		}
	}
	return matches
}

// afterRemoves returns the entries that postInstall does not delete: what
// it deletes is gone before the output checks.
func (c *Checker) afterRemoves() []entry.Header {
	var kept []entry.Header
	for _, e := range c.entries {
		if !slices.ContainsFunc(c.pkg.Removes, func(g string) bool { return underPattern(g, e.Path) }) {
			kept = append(kept, e)
		}
	}
	return kept
}

// unpack returns entries by path as buildRedist's unpack leaves them:
// lib/<cudaMajor>/ is promoted to lib/ (and the rest of lib/ dropped);
// pkg-config/ and pkgconfig/ move to share/pkgconfig/, where mv
// --no-clobber fails on a file already there.
func (c *Checker) unpack(entries []entry.Header, fail func(string, ...any)) map[string]entry.Header {
	major := strings.SplitN(c.target.CUDA, ".", 2)[0]
	promote := false
	for _, e := range entries {
		if strings.HasPrefix(e.Path+"/", "lib/"+major+"/") {
			promote = true
		}
	}
	tree := map[string]entry.Header{}
	for _, e := range entries {
		p := e.Path
		if promote && (p == "lib" || strings.HasPrefix(p, "lib/")) {
			rest, ok := strings.CutPrefix(p, "lib/"+major)
			if !ok {
				continue
			}
			p = "lib" + rest
		}
		for _, d := range []string{"pkg-config", "pkgconfig"} {
			if rest, ok := strings.CutPrefix(p, d+"/"); ok {
				np := "share/pkgconfig/" + rest
				if _, dup := tree[np]; dup && e.Type != entry.Dir {
					fail("%s: mv --no-clobber into share/pkgconfig finds %s already there (the unpack hook then fails)", p, np)
				}
				p = np
			} else if p == d {
				p = "share/pkgconfig"
			}
		}
		if e.Type == entry.Dir {
			if _, ok := tree[p]; ok {
				continue
			}
		}
		e.Path = p
		tree[p] = e
	}
	return tree
}

// linkUnversionedPC adds to tree the unversioned link that buildRedist
// makes for each share/pkgconfig/*-<cudaMajorMinor>.pc; ln -s fails where
// the unversioned name exists.
func (c *Checker) linkUnversionedPC(tree map[string]entry.Header, fail func(string, ...any)) {
	mm := majorMinor(c.target.CUDA)
	if mm == "" {
		return
	}
	for p := range tree {
		if dir, base := path.Split(p); dir == "share/pkgconfig/" && strings.HasSuffix(base, "-"+mm+".pc") {
			link := dir + strings.TrimSuffix(base, "-"+mm+".pc") + ".pc"
			if _, exists := tree[link]; exists {
				fail("%s exists: ln -s for the unversioned link of %s fails", link, p)
				continue
			}
			tree[link] = entry.Header{Path: link, Type: entry.Symlink, Link: base}
		}
	}
}

// splitOutputs returns the sorted paths of tree's non-directories and the
// output each path of tree goes to: out, unless a pattern of another
// output moves it (moveToOutput, in expected order, each pattern taking
// from all outputs).
func (c *Checker) splitOutputs(
	tree map[string]entry.Header,
	outputs []string,
) (paths []string, owner map[string]string) {
	owner = map[string]string{}
	paths = make([]string, 0, len(tree))
	for p, e := range tree {
		if e.Type != entry.Dir {
			paths = append(paths, p)
		}
		owner[p] = "out"
	}
	sort.Strings(paths)
	for _, o := range outputs {
		if o == "out" {
			continue
		}
		for _, pat := range c.t.Patterns[o] {
			for _, p := range paths {
				if underPattern(pat, p) {
					owner[p] = o
				}
			}
		}
	}
	return paths, owner
}

// checkNonEmptyOutputs counts the entries of each output into
// res.Outputs and is checkCudaNonEmptyOutputs: a declared output that is
// not exempt must not be empty (unless that is nixpkgs' own gap).
func (c *Checker) checkNonEmptyOutputs(
	res *Result,
	outputs, paths []string,
	owner map[string]string,
	fail func(string, ...any),
) {
	for _, p := range paths {
		res.Outputs[owner[p]]++
	}
	for _, o := range outputs {
		if res.Outputs[o] == 0 && !slices.Contains(c.t.Exempt, o) {
			msg := fmt.Sprintf(emptyOutputFormat, o)
			if g := c.ownGap(o); g != nil {
				res.NixpkgsOwn = append(res.NixpkgsOwn, msg+": "+g.Reason)
				continue
			}
			res.EmptyOutputs = append(res.EmptyOutputs, o)
			fail("%s", msg)
		}
	}
}

// checkStubsHook is checkCudaHasStubsIffIncludeRemoveStubsFromRunpathHook
// (postFixup): for every output, "has stubs" (it is named stubs, or holds
// a directory named stubs at any depth) must equal "has the hook", which
// buildRedist writes to outputStubs alone, when includeRemoveStubsFromRunpathHook.
func (c *Checker) checkStubsHook(outputs, paths []string, owner map[string]string, fail func(string, ...any)) {
	hook := slices.Contains(outputs, "stubs")
	if c.pkg.StubsHook != nil {
		hook = *c.pkg.StubsHook
	}
	stubsOut := "out"
	for _, o := range c.t.StubsFallbacks {
		if slices.Contains(outputs, o) {
			stubsOut = o
			break
		}
	}
	hasStubs := map[string]bool{}
	for _, p := range paths {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if path.Base(d) == "stubs" {
				hasStubs[owner[p]] = true
			}
		}
	}
	for _, o := range outputs {
		stubs := o == "stubs" || hasStubs[o]
		withHook := hook && o == stubsOut
		switch {
		case stubs && !withHook && hook:
			fail(
				"output %q holds a stubs directory but the stubs hook goes to output %q "+
					"(checkCudaHasStubsIffIncludeRemoveStubsFromRunpathHook)",
				o,
				stubsOut,
			)
		case stubs && !withHook:
			fail(
				"output %q holds a stubs directory but nixpkgs' %s does not set includeRemoveStubsFromRunpathHook "+
					"(checkCudaHasStubsIffIncludeRemoveStubsFromRunpathHook)",
				o,
				c.target.PName,
			)
		case !stubs && withHook:
			fail(
				"output %q gets the stubs hook (includeRemoveStubsFromRunpathHook) but holds no stubs directory "+
					"(checkCudaHasStubsIffIncludeRemoveStubsFromRunpathHook)",
				o,
			)
		}
	}
}

// checkFHSRefs is checkCudaFhsRefs: unless the package allows FHS
// references, no file may mention /usr/ (the first five are named).
func (c *Checker) checkFHSRefs(fail func(string, ...any)) {
	if c.pkg.AllowFHS {
		return
	}
	var refs []string
	for p := range c.usr {
		refs = append(refs, p)
	}
	sort.Strings(refs)
	if len(refs) > 5 {
		refs = append(refs[:5], "… ("+strconv.Itoa(len(refs))+" files)")
	}
	if len(refs) > 0 {
		fail(
			"files mention /usr/ and the package does not allow FHS references (checkCudaFhsRefs): %s",
			strings.Join(refs, ", "),
		)
	}
}

// checkDanglingLinks is noBrokenSymlinks, per output: every symlink of
// paths must be relative and resolve inside its own output.
func (c *Checker) checkDanglingLinks(
	tree map[string]entry.Header,
	paths []string,
	owner map[string]string,
	fail func(string, ...any),
) {
	dirs := map[string]bool{} // "<output>\x00<dir>" holding something
	for _, p := range paths {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			dirs[owner[p]+"\x00"+d] = true
		}
	}
	for _, p := range paths {
		e := tree[p]
		if e.Type != entry.Symlink {
			continue
		}
		if strings.HasPrefix(e.Link, "/") {
			fail("%s -> %s: absolute link, dangling in the Nix store (noBrokenSymlinks)", p, e.Link)
			continue
		}
		if !resolve(tree, owner, dirs, owner[p], path.Dir(p), e.Link) {
			fail("%s -> %s: dangling in output %q (noBrokenSymlinks)", p, e.Link, owner[p])
		}
	}
}

// evaluate applies meta.knownVulnerabilities and platformAssertions: the
// package evaluates for a device only where every assertion holds; one
// that holds for no device of the release is a failure.
func (c *Checker) evaluate(res *Result) {
	v := c.target.Version
	for _, k := range c.pkg.KnownVulnerabilities {
		if v != "" && !versionAtLeast(v, k.VersionBelow) {
			res.Insecure = append(res.Insecure, fmt.Sprintf("%s %s is below %s: %s", c.target.PName, v, k.VersionBelow, k.Text))
		}
	}
	if len(c.target.Capabilities) == 0 {
		return
	}
	platforms := c.target.Platforms
	if platforms == nil {
		platforms = []string{c.target.Platform}
	}
	ok, listed := 0, 0
	for _, cap := range c.target.Capabilities {
		plat := DevicePlatform(cap)
		if slices.Contains(platforms, "source") || slices.Contains(platforms, "linux-all") {
			plat = c.target.Platform // taken for every system (getPreferredRelease)
		}
		if !slices.Contains(platforms, plat) {
			res.Devices = append(res.Devices, cap+": not listed for it (nixpkgs looks under "+plat+")")
			continue
		}
		listed++
		var why []string
		for _, a := range c.pkg.Assertions {
			if a.VersionMin != "" && (v == "" || !versionAtLeast(v, a.VersionMin)) || a.Platform != "" && a.Platform != plat {
				continue
			}
			holds := true
			switch {
			case a.CapabilitiesMin != "":
				holds = versionAtLeast(cap, a.CapabilitiesMin)
			case a.CapabilitiesEqual != nil:
				holds = slices.Equal([]string{cap}, a.CapabilitiesEqual)
			case a.CapabilitiesIn != nil:
				holds = slices.Contains(a.CapabilitiesIn, cap)
			case a.CUDAMin != "":
				holds = versionAtLeast(c.target.CUDA, a.CUDAMin)
			}
			if !holds {
				why = append(why, a.Message)
			}
		}
		if len(why) == 0 {
			ok++
			res.Devices = append(res.Devices, cap+": evaluates")
		} else {
			res.Devices = append(res.Devices, cap+": unavailable (platformAssertions: "+strings.Join(why, "; ")+")")
		}
	}
	if ok == 0 && listed > 0 {
		res.Failures = append(
			res.Failures,
			fmt.Sprintf(
				"unavailable for every device of the release (%s): platformAssertions fail",
				strings.Join(c.target.Capabilities, ", "),
			),
		)
	}
}

func (c *Checker) ownGap(output string) *OwnGap {
	for i, g := range c.pkg.NixpkgsOwn {
		if g.Output == output && (g.CUDAMin == "" || versionAtLeast(c.target.CUDA, g.CUDAMin)) {
			return &c.pkg.NixpkgsOwn[i]
		}
	}
	return nil
}

// resolve follows a relative link target inside one output (safepath's
// rules: never out of the root, never through an absolute link, symlinks
// of this output followed on the way); it reports whether the target
// exists in that output.
func resolve(tree map[string]entry.Header, owner map[string]string, dirs map[string]bool, out, dir, link string) bool {
	final, err := safepath.ResolvePath(dir, link, func(p string) (string, bool) {
		if e, ok := tree[p]; ok && e.Type == entry.Symlink && owner[p] == out {
			return e.Link, true
		}
		return "", false
	})
	if err != nil {
		return false
	}
	if e, ok := tree[final]; ok && e.Type != entry.Dir {
		return owner[final] == out
	}
	return final == "" || dirs[out+"\x00"+final] // a directory of this output (or an implicit one)
}

func majorMinor(v string) string {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return ""
	}
	return parts[0] + "." + parts[1]
}

// versionAtLeast reports v >= min (dotted numbers).
func versionAtLeast(v, min string) bool { return profile.CompareDotted(v, min) >= 0 }

const emptyOutputFormat = "declared output %q would be empty (checkCudaNonEmptyOutputs)"

// IsEmptyOutput reports whether a failure of Finish is a declared output
// that would be empty (one of Result.EmptyOutputs).
func IsEmptyOutput(failure string) bool {
	var o string
	n, err := fmt.Sscanf(failure, emptyOutputFormat, &o)
	return err == nil && n == 1
}
