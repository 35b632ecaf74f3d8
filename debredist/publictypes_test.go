package debredist

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/reldiff"
	"github.com/debredist/debredist/internal/deb"
)

// TestDebLimitsMirrorsDeb: every bound of the deb reader is settable
// through DebLimits, and the conversion carries each field.
func TestDebLimitsMirrorsDeb(t *testing.T) {
	t.Parallel()
	pub, in := reflect.TypeOf(DebLimits{}), reflect.TypeOf(deb.Limits{})
	if pub.NumField() != in.NumField() {
		t.Fatalf("DebLimits has %d fields, deb.Limits %d", pub.NumField(), in.NumField())
	}
	var l DebLimits
	v := reflect.ValueOf(&l).Elem()
	for i := 0; i < v.NumField(); i++ {
		v.Field(i).SetInt(int64(i + 1))
	}
	got := reflect.ValueOf(l.deb())
	for i := 0; i < pub.NumField(); i++ {
		f := pub.Field(i)
		if g := got.FieldByName(f.Name); !g.IsValid() || g.Int() != int64(i+1) {
			t.Errorf("DebLimits.%s is not carried to deb.Limits", f.Name)
		}
	}
}

// TestPublicTypesMirrorInternal: the public Diff, Plan and index types have
// every field (name and JSON key) of the internal ones, so the conversion
// drops nothing and the JSON keeps its keys.
func TestPublicTypesMirrorInternal(t *testing.T) {
	t.Parallel()
	pairs := []struct{ pub, in any }{
		{reldiff.Result{}, reldiff.Result{}}, {reldiff.Side{}, reldiff.Side{}}, {reldiff.Product{}, reldiff.Product{}},
		{reldiff.Component{}, reldiff.Component{}}, {reldiff.Deb{}, reldiff.Deb{}}, {reldiff.DebRename{}, reldiff.DebRename{}},
		{reldiff.DebChange{}, reldiff.DebChange{}}, {reldiff.Files{}, reldiff.Files{}}, {reldiff.TypeChange{}, reldiff.TypeChange{}},
		{reldiff.LinkChange{}, reldiff.LinkChange{}}, {reldiff.Unplaced{}, reldiff.Unplaced{}}, {reldiff.Others{}, reldiff.Others{}},
		{plan.Package{}, plan.Package{}}, {plan.Skipped{}, plan.Skipped{}}, {plan.ProductLabel{}, plan.ProductLabel{}},
		{apt.Package{}, apt.Package{}}, {apt.Problem{}, apt.Problem{}},
	}
	for _, p := range pairs {
		pub, in := reflect.TypeOf(p.pub), reflect.TypeOf(p.in)
		if pub.NumField() != in.NumField() {
			t.Errorf("%s has %d fields, %s %d", pub, pub.NumField(), in, in.NumField())
			continue
		}
		for i := 0; i < in.NumField(); i++ {
			f, g := in.Field(i), pub.Field(i)
			if f.Name != g.Name || f.Tag.Get("json") != g.Tag.Get("json") {
				t.Errorf("%s.%s `%s` vs %s.%s `%s`", in, f.Name, f.Tag.Get("json"), pub, g.Name, g.Tag.Get("json"))
			}
		}
	}
}

// TestDebErrorKindsMatch: each DebErrorKind is the deb reader's kind of
// the same name (the conversion is a plain number).
func TestDebErrorKindsMatch(t *testing.T) {
	t.Parallel()
	pairs := map[DebErrorKind]deb.Kind{DebFormat: deb.KindFormat, DebUnsafePath: deb.KindUnsafePath, DebDevice: deb.KindDevice,
		DebLimit: deb.KindLimit, DebCompression: deb.KindCompression, DebTruncated: deb.KindTruncated, DebExists: deb.KindExists, DebIO: deb.KindIO}
	for pub, in := range pairs {
		if int(pub) != int(in) || pub.String() != in.String() {
			t.Errorf("DebErrorKind %d (%s) is not deb.Kind %d (%s)", pub, pub, in, in)
		}
	}
}

// TestVerifyErrorUnwraps: errors.Is and errors.As reach through a
// *VerifyError to what its problems wrap.
func TestVerifyErrorUnwraps(t *testing.T) {
	var err error = &VerifyError{Problems: []Problem{
		{Path: "a", Err: errors.New("other")},
		{Path: "cuda/x.tar.xz", Err: fmt.Errorf("open: %w", fs.ErrNotExist)},
	}}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist) = false", err)
	}
	var p Problem
	if !errors.As(err, &p) || p.Path != "a" {
		t.Errorf("errors.As to Problem: %+v", p)
	}
}
