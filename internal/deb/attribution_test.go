package deb

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/testutil"
)

// TestErrorAttribution: a member cut short is reported as truncated even
// when the system xz decodes it (xz's own exit status used to hide the
// cause behind KindCompression), and a bad tar header is not blamed on the
// entry before it.
func TestErrorAttribution(t *testing.T) {
	ok := mini(debtest.File{Name: "usr/a", Body: bytes.Repeat([]byte("payload "), 4000)})
	full := mustBuild(t, ok)
	badHeader := func() []byte {
		d := ok
		dt, err := d.BuildDataTar()
		if err != nil {
			t.Fatal(err)
		}
		dt = append(dt[:len(dt)-1024:len(dt)-1024], bytes.Repeat([]byte("not a header "), 80)...)
		d.DataTar = dt
		return mustBuild(t, d)
	}
	cases := []struct {
		name     string
		deb      []byte
		systemXZ bool
		kind     fault.DebKind
		entry    string
		errText  string
	}{
		{"cut short, Go xz", setArSize(t, full, "data.tar.xz", "999999"), false, fault.DebTruncated, "", "cut short"},
		{"cut short, system xz", setArSize(t, full, "data.tar.xz", "999999"), true, fault.DebTruncated, "", "cut short"},
		{"deb truncated, system xz", full[:len(full)-20], true, fault.DebTruncated, "", ""},
		{"bad header after an entry", badHeader(), false, fault.DebFormat, "", "header after entry ./usr/a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.systemXZ {
				testutil.RequireTool(t, "xz")
			}
			err := drain(
				context.Background(),
				io.MultiReader(bytes.NewReader(c.deb)),
				Options{Name: "x.deb", SystemXZ: c.systemXZ, systemXZMin: 1},
			)
			var e *fault.DebError
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not a *fault.DebError", err)
			}
			if e.Kind != c.kind || e.Entry != c.entry || e.Member != "data.tar.xz" || e.Deb != "x.deb" {
				t.Errorf(
					"got kind %v member %q entry %q, want %v data.tar.xz %q: %v",
					e.Kind,
					e.Member,
					e.Entry,
					c.kind,
					c.entry,
					err,
				)
			}
			if !strings.Contains(err.Error(), c.errText) {
				t.Errorf("%q does not say %q", err, c.errText)
			}
		})
	}
}
