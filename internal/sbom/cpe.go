package sbom

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// cpeData maps each redist product to the CPE of the product NVIDIA's
// security bulletins name, with the evidence for the name (cpe.json).
//
//go:embed cpe.json
var cpeData []byte

// cpeRule is one product's entry of cpe.json.
type cpeRule struct {
	CPE       string `json:"cpe"`     // part:vendor:product, cpe:2.3:a:nvidia:cuda_toolkit
	Version   string `json:"version"` // release or release-major-minor
	Bulletins string `json:"bulletins"`
	Evidence  string `json:"evidence"`
}

var cpeRules = loadCPERules(cpeData)

var cpePrefixRE = regexp.MustCompile(`^cpe:2\.3:[aho]:[a-z0-9_]+:[a-z0-9_]+$`)

// loadCPERules reads cpe.json; a malformed table is a programming error.
func loadCPERules(b []byte) map[string]cpeRule {
	var d struct {
		Products map[string]cpeRule `json:"products"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		panic(fmt.Sprintf("sbom: cpe.json: %v", err))
	}
	for p, r := range d.Products {
		if !cpePrefixRE.MatchString(r.CPE) || (r.Version != "release" && r.Version != "release-major-minor") ||
			r.Evidence == "" {
			panic(fmt.Sprintf("sbom: cpe.json: product %s: cpe %q, version %q or evidence missing", p, r.CPE, r.Version))
		}
	}
	return d.Products
}

// releaseCPE is the CPE 2.3 formatted string that every component and
// deb of release r carries: its product's, at the version NVD compares
// for that product; "" for a product cpe.json does not list.
func releaseCPE(r *Release) string {
	rule, ok := cpeRules[r.Product]
	if !ok {
		return ""
	}
	v := r.Label
	if rule.Version == "release-major-minor" {
		if f := strings.SplitN(v, ".", 3); len(f) >= 2 {
			v = f[0] + "." + f[1]
		}
	}
	return rule.CPE + ":" + cpeEsc(strings.ToLower(v)) + ":*:*:*:*:*:*:*"
}

// cpeEsc quotes a value for the CPE 2.3 formatted string binding: every
// character other than a letter, a digit, '_', '-' and '.' is escaped by a
// backslash.
func cpeEsc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-', c == '.':
		default:
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}
