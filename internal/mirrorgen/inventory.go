package mirrorgen

import (
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The inventories are copies of real NVIDIA Jetson apt repository listings
// (newest version per package; name, version, Filename, SHA256 of the real
// deb, Source), one file per L4T suite (data/r<major>.<minor>.json).
//
//go:embed data/*.json
var dataFS embed.FS

// invEntry is one package of an embedded inventory.
type invEntry struct {
	Filename string `json:"filename"`
	SHA256   string `json:"sha256"` // of the REAL deb; never of ours
	Version  string `json:"version"`
	Source   string `json:"source,omitempty"`

	// synthetic marks meta-packages that the real repository has but the
	// inventory dropped; mirrorgen adds them back.
	synthetic bool
}

// sourceName returns the Source name without a "(version)" part, or "".
func (e invEntry) sourceName() string {
	s, _, _ := strings.Cut(e.Source, " ")
	return s
}

// suite is everything the generator knows about one L4T suite.
type suite struct {
	name  string
	repos map[string]map[string]invEntry // repo -> package -> entry
	socs  string                         // name of the SoC repo ("t234", "som")

	cudaXY    string // "12.6"
	cudaDash  string // "12-6"
	cudaMajor int
	target    string // "aarch64-linux" or "sbsa-linux"
	l4tMajor  int    // 35, 36, 38, 39
	python    string // "3.10": python3.X for TensorRT bindings
	cupti     string // CUPTI library version, e.g. "2024.3.1"
}

var (
	cudartRE = regexp.MustCompile(`^cuda-cudart-(\d+)-(\d+)$`)
	vpiPyRE  = regexp.MustCompile(`^python(3\.\d+)-vpi\d+$`)
	ncuRE    = regexp.MustCompile(`^nsight-compute-(\d{4}\.\d+\.\d+)$`)
	suiteRE  = regexp.MustCompile(`^r(\d+)\.(\d+)$`)
)

// Suites returns the L4T suites mirrorgen has inventories for, sorted.
func Suites() []string {
	ents, err := dataFS.ReadDir("data")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok && suiteRE.MatchString(n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// SampleSuites returns the suites of the committed sample mirror
// (testdata/sample-mirror): one per CUDA generation (11.4, 12.6, 13.2),
// plus r36.4 so that a release-to-release diff (r36.4 -> r36.5) can be
// tried on it.
func SampleSuites() []string { return []string{"r35.6", "r36.4", "r36.5", "r39.2"} }

// loadSuite parses an embedded inventory and derives the suite facts
// (CUDA version, target dir, Python version, ...) from its package names.
func loadSuite(name string) (*suite, error) {
	m := suiteRE.FindStringSubmatch(name)
	raw, err := dataFS.ReadFile(path.Join("data", name+".json"))
	if m == nil || err != nil {
		return nil, &UnknownSuiteError{Suite: name, Known: Suites()}
	}
	s := &suite{name: name}
	if err := json.Unmarshal(raw, &s.repos); err != nil {
		return nil, fmt.Errorf("mirrorgen: inventory %s: %w", name, err)
	}
	s.l4tMajor, _ = strconv.Atoi(m[1])
	common, ok := s.repos["common"]
	if !ok {
		return nil, fmt.Errorf("mirrorgen: inventory %s: no common repo", name)
	}
	for repo := range s.repos {
		if repo != "common" {
			s.socs = repo
		}
	}
	for pkg := range common {
		if cm := cudartRE.FindStringSubmatch(pkg); cm != nil {
			s.cudaXY = cm[1] + "." + cm[2]
			s.cudaDash = cm[1] + "-" + cm[2]
			s.cudaMajor, _ = strconv.Atoi(cm[1])
		}
		// r35 ships vpi bindings for 3.8 and 3.9; TensorRT uses the
		// distribution's default, the oldest one.
		if pm := vpiPyRE.FindStringSubmatch(pkg); pm != nil && (s.python == "" || pyMinor(pm[1]) < pyMinor(s.python)) {
			s.python = pm[1]
		}
		if nm := ncuRE.FindStringSubmatch(pkg); nm != nil && nm[1] > s.cupti {
			s.cupti = nm[1]
		}
	}
	if s.cudaXY == "" {
		return nil, fmt.Errorf("mirrorgen: inventory %s: no cuda-cudart-X-Y package", name)
	}
	if s.python == "" {
		s.python = "3"
	}
	if s.cupti == "" {
		s.cupti = "2024.1.0"
	}
	s.target = "aarch64-linux"
	if s.cudaMajor >= 13 {
		s.target = "sbsa-linux"
	}
	s.addSyntheticMetas()
	return s, nil
}

// addSyntheticMetas adds the CUDA meta-packages that the real repository
// carries but the inventories dropped (cuda-toolkit-X-Y, ...), versioned
// like their sibling meta-packages (cuda-compiler-X-Y).
func (s *suite) addSyntheticMetas() {
	common := s.repos["common"]
	sib, ok := common["cuda-compiler-"+s.cudaDash]
	if !ok {
		return
	}
	for _, base := range []string{"cuda", "cuda-toolkit", "cuda-libraries", "cuda-libraries-dev", "cuda-runtime",
		"cuda-tools"} {
		name := base + "-" + s.cudaDash
		if _, ok := common[name]; ok {
			continue
		}
		common[name] = invEntry{
			Filename:  fmt.Sprintf("pool/main/c/%s/%s_%s_arm64.deb", name, name, sib.Version),
			Version:   sib.Version,
			synthetic: true,
		}
	}
}

func pyMinor(v string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(v, "3."))
	return n
}

// has reports whether the suite's repo has a package.
func (s *suite) has(repo, pkg string) bool {
	_, ok := s.repos[repo][pkg]
	return ok
}

// upstream returns the upstream part of a Debian version: no epoch, no
// revision, no "+cudaX.Y" suffix ("1:10.3.0.30-1+cuda12.5" -> "10.3.0.30").
func upstream(v string) string {
	if _, after, ok := strings.Cut(v, ":"); ok {
		v = after
	}
	if i := strings.LastIndex(v, "-"); i > 0 {
		v = v[:i]
	}
	if i := strings.Index(v, "+"); i > 0 {
		v = v[:i]
	}
	return v
}

// firstN returns the first n dot-separated components of v.
func firstN(v string, n int) string {
	parts := strings.Split(v, ".")
	if len(parts) > n {
		parts = parts[:n]
	}
	return strings.Join(parts, ".")
}
