package entry

import "testing"

func TestParseString(t *testing.T) {
	for _, ty := range []Type{Regular, Dir, Symlink, Hardlink} {
		if got, ok := Parse(ty.String()); !ok || got != ty {
			t.Errorf("Parse(%q) = %v, %v; want %v", ty.String(), got, ok, ty)
		}
	}
	if Regular.String() != "file" || Hardlink.String() != "hardlink" {
		t.Errorf("names: %s %s", Regular, Hardlink)
	}
	for _, s := range []string{"", "regular", "device", "File"} {
		if ty, ok := Parse(s); ok {
			t.Errorf("Parse(%q) = %v, want no type", s, ty)
		}
	}
	if s := Type(9).String(); s != "entry.Type(9)" {
		t.Errorf("Type(9) = %q", s)
	}
}
