package debredist

import (
	"reflect"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/verify"
)

// TestRefsNameTheAPI: every fault.Ref the library's messages name is an
// option field of this package's options, or one of its calls, spelled as
// the Go API spells it (a renamed field fails here, not in a user's face).
func TestRefsNameTheAPI(t *testing.T) {
	structs := map[string]reflect.Type{
		"Source": reflect.TypeFor[Source](), "Release": reflect.TypeFor[Release](), "Build": reflect.TypeFor[Build](),
		"NixOptions": reflect.TypeFor[NixOptions](), "ExtractOptions": reflect.TypeFor[ExtractOptions](),
	}
	calls := map[fault.Ref]any{
		fault.RefProfiles: Profiles, fault.RefFetch: Fetch, fault.RefConvert: Convert,
		fault.RefVerify: verify.Dir, fault.RefNixpkgs: verify.Nixpkgs, fault.RefProfile: Profiles,
	}
	for _, r := range fault.Refs {
		if _, ok := calls[r]; ok {
			continue
		}
		typ, field, ok := strings.Cut(string(r), ".")
		st, known := structs[typ]
		if !ok || !known {
			t.Errorf("fault.Refs: %q is no option of this package's options and no known call", r)
			continue
		}
		if _, ok := st.FieldByName(field); !ok {
			t.Errorf("fault.Refs: %q: %s has no field %s", r, typ, field)
		}
	}
}
