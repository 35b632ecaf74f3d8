package layout

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/profile"
)

// rule is a compiled profile.PathRule.
type rule struct {
	src      profile.PathRule
	segs     []string // pattern segments (each a path.Match pattern)
	prefix   bool     // pattern ended in "/**"
	to       string
	packages []string
	types    []entry.Type
	own      bool // a rule of the profile itself, not of the built-in defaults
}

type linkRule struct {
	packages []string
	re       *regexp.Regexp
	name     string
}

func compileRules(p profile.Profile, rs []profile.PathRule) ([]rule, error) {
	repl := strings.NewReplacer("{cuda}", p.CUDA, "{target}", p.Target, "{triple}", p.Triple)
	var out []rule
	for i, r := range rs {
		pat := repl.Replace(r.Match)
		if strings.Contains(pat, "{") {
			return nil, fmt.Errorf("layout rule %q: unknown placeholder", r.Match)
		}
		segs := strings.Split(pat, "/")
		c := rule{src: r, packages: r.Packages, own: i < len(p.Rules.Paths)}
		if segs[len(segs)-1] == "**" {
			c.prefix = true
			segs = segs[:len(segs)-1]
		}
		for _, s := range segs {
			if s == "" || s == "." || s == ".." || s == "**" {
				return nil, fmt.Errorf("layout rule %q: bad segment %q", r.Match, s)
			}
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("layout rule %q: %v", r.Match, err)
			}
		}
		c.segs = segs
		n := 0
		if r.To != nil {
			n++
			c.to = strings.Trim(repl.Replace(*r.To), "/")
			if c.to != "" && (path.Clean(c.to) != c.to || strings.HasPrefix(c.to, "..")) {
				return nil, fmt.Errorf("layout rule %q: bad target %q", r.Match, *r.To)
			}
		}
		if r.Drop != "" {
			n++
		}
		if r.License {
			n++
		}
		if n != 1 {
			return nil, fmt.Errorf("layout rule %q: exactly one of to, drop, license is required", r.Match)
		}
		for _, t := range r.Types {
			ty, ok := entry.Parse(t)
			if !ok {
				return nil, fmt.Errorf("layout rule %q: unknown type %q", r.Match, t)
			}
			c.types = append(c.types, ty)
		}
		out = append(out, c)
	}
	return out, nil
}

func compileLinks(ls []profile.LinkRule) ([]linkRule, error) {
	var out []linkRule
	for _, l := range ls {
		re, err := regexp.Compile(l.Match)
		if err != nil {
			return nil, fmt.Errorf("link rule %q: %v", l.Match, err)
		}
		out = append(out, linkRule{packages: l.Packages, re: re, name: l.Name})
	}
	return out, nil
}

// match reports whether the rule applies to p (a clean deb path) and, for
// placing rules, where it goes.
// A prefix rule matching the path itself (nothing after the prefix) reports
// whole=true: the entry is the directory being flattened.
func (r *rule) match(pname string, t entry.Type, p string) (dest string, whole, ok bool) {
	if len(r.packages) > 0 && !slices.Contains(r.packages, pname) {
		return "", false, false
	}
	if len(r.types) > 0 && !slices.Contains(r.types, t) {
		return "", false, false
	}
	segs := strings.Split(p, "/")
	if r.prefix {
		if len(segs) < len(r.segs) {
			return "", false, false
		}
	} else if len(segs) != len(r.segs) {
		return "", false, false
	}
	for i, s := range r.segs {
		if ok, _ := path.Match(s, segs[i]); !ok {
			return "", false, false
		}
	}
	if r.prefix {
		return path.Join(r.to, strings.Join(segs[len(r.segs):], "/")), len(segs) == len(r.segs), true
	}
	return r.to, false, true
}
