package entry

import (
	"archive/tar"
	"errors"
	"testing"
)

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

// TestFromTarSparse: a GNU sparse file, as PAX records on a regular file or
// as type 'S', is refused with ErrSparse (an ErrUnsupported); other PAX
// records are not.
func TestFromTarSparse(t *testing.T) {
	pax := map[string]string{"GNU.sparse.major": "1", "GNU.sparse.minor": "0", "GNU.sparse.realsize": "100000000000"}
	for _, tt := range []struct {
		h    tar.Header
		want string
	}{
		{
			tar.Header{Name: "./usr/s", Typeflag: tar.TypeReg, Size: 512, PAXRecords: pax},
			"unsupported entry type: sparse file (GNU.sparse PAX records)",
		},
		{
			tar.Header{Name: "./usr/s", Typeflag: tar.TypeGNUSparse, Size: 512},
			"unsupported entry type: sparse file (tar type 'S')",
		},
	} {
		_, err := FromTar(&tt.h)
		if !errors.Is(err, ErrSparse) || !errors.Is(err, ErrUnsupported) || err.Error() != tt.want {
			t.Errorf("type %q: err = %v, want %q (ErrSparse)", tt.h.Typeflag, err, tt.want)
		}
	}
	h := tar.Header{
		Name:       "./usr/a",
		Typeflag:   tar.TypeReg,
		Size:       3,
		PAXRecords: map[string]string{"path": "./usr/a", "SCHILY.xattr.user.x": "y"},
	}
	if e, err := FromTar(&h); err != nil || e.Type != Regular || e.Size != 3 {
		t.Errorf("plain PAX file: %+v, %v", e, err)
	}
}
