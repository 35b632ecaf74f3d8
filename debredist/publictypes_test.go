package debredist

import (
	"reflect"
	"testing"

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
