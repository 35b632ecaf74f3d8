package hostile

import (
	"encoding/json"
	"strings"
)

// KindProfile is a --profile file whose names try to reach paths outside
// OUT (or outside an archive's top directory).
const KindProfile = "profile"

// ErrProfileInvalid is the error kind of a refused profile: a
// *profile.InvalidError naming Case.Field, before anything is written.
const ErrProfileInvalid = "profile:invalid"

// profileCases are hostile --profile files for the libcublas deb of the
// corpus (L4T r36.5): each puts one hostile value into one field.
func profileCases() []Case {
	var cs []Case
	// comp is the component rule that maps the corpus deb to a redist package.
	comp := func(edit func(c map[string]any)) map[string]any {
		c := map[string]any{"source": Source, "product": "cuda", "name": "CUDA cuBLAS", "license": "CUDA Toolkit"}
		edit(c)
		return map[string]any{"l4t": Suite, "rules": map[string]any{"components": []any{c}}}
	}
	set := func(k string, v any) func(map[string]any) { return func(c map[string]any) { c[k] = v } }
	add := func(name, field, reason string, profile map[string]any) {
		cs = append(cs, Case{Name: name, File: name + ".json", Kind: KindProfile, Expect: Reject, Error: ErrProfileInvalid, Field: field, Reason: reason,
			build: func() ([]byte, error) {
				b, err := json.MarshalIndent(profile, "", "  ")
				return append(b, '\n'), err
			}})
	}
	const up4 = "../../../../"
	add("profile-product-traversal", "rules.components[0].product", "product "+up4+"x: manifest, provenance, archive and LICENSE.txt four levels above OUT",
		comp(set("product", up4+Escape)))
	add("profile-pname-traversal", "rules.components[0].pname", "pname ../../../../../x: archive and LICENSE.txt outside OUT",
		comp(set("pname", "../"+up4+Escape)))
	add("profile-pname-absolute", "rules.components[0].pname", "absolute pname /tmp/x",
		comp(set("pname", "/tmp/"+Escape)))
	add("profile-pname-nul", "rules.components[0].pname", "NUL byte inside a pname",
		comp(set("pname", "libcublas\x00"+Escape)))
	add("profile-pname-long", "rules.components[0].pname", "a 300-byte pname (longer than a file name may be)",
		comp(set("pname", strings.Repeat("a", 300))))
	add("profile-pname-lookalike", "rules.components[0].pname", "pname with a Cyrillic а that looks like libcublas",
		comp(set("pname", "libcubl\u0430s")))
	add("profile-platform-traversal", "rules.components[0].platform", "component platform linux-aarch64/../../../x",
		comp(set("platform", "linux-aarch64/"+up4+Escape)))
	add("profile-top-platform-absolute", "platform", "profile platform /tmp/x",
		map[string]any{"l4t": Suite, "platform": "/tmp/" + Escape})
	add("profile-label-from-traversal", "rules.products.cuda.label_from", "label_from ../x",
		map[string]any{"l4t": Suite, "rules": map[string]any{"products": map[string]any{"cuda": map[string]any{"label_from": up4 + Escape}}}})
	add("profile-product-key-traversal", "rules.products key", "a product named ../x in the products table",
		map[string]any{"l4t": Suite, "rules": map[string]any{"products": map[string]any{up4 + Escape: map[string]any{"label_from": "x"}}}})
	add("profile-rule-to-traversal", "rules.rules[0].to", "a path rule placing files at ../../x inside the archive",
		map[string]any{"l4t": Suite, "rules": map[string]any{"rules": []any{map[string]any{"match": "usr/**", "to": up4 + Escape}}}})
	add("profile-link-name-absolute", "rules.links[0].name", "a link rule adding /tmp/x",
		map[string]any{"l4t": Suite, "rules": map[string]any{"links": []any{map[string]any{"match": "^lib/(.*)$", "name": "/tmp/" + Escape}}}})
	return cs
}
