package deb

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/testutil"
)

func TestSystemXZCloseKillsChild(t *testing.T) {
	testutil.RequireTool(t, "xz")
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(i * 7 / 5)
	}
	d := mini(debtest.File{Name: "a", Body: []byte("a")}, debtest.File{Name: "big", Body: big})
	rd, err := NewReader(context.Background(), bytes.NewReader(mustBuild(t, d)), Options{SystemXZ: true, systemXZMin: 1})
	if err != nil {
		t.Fatal(err)
	}
	sx, ok := rd.dec.r.(*systemXZ)
	if !ok {
		t.Fatalf("decoder is %T, want *systemXZ", rd.dec.r)
	}
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	// Stop half-way: the child is still running (blocked on its output pipe).
	if err := rd.Close(); err != nil {
		t.Fatal(err)
	}
	if sx.cmd.ProcessState == nil {
		t.Fatal("xz child was not waited for")
	}
	if _, err := rd.Next(); err == nil || err == io.EOF {
		t.Errorf("Next after Close = %v, want an error", err)
	}
	if err := rd.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestEntryModTime(t *testing.T) {
	mt := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	d := mini(debtest.File{Name: "a"})
	d.MTime = mt
	rd, err := NewReader(context.Background(), bytes.NewReader(mustBuild(t, d)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rd.Close() }()
	e, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	if !e.ModTime.Equal(mt) {
		t.Errorf("ModTime = %v, want %v", e.ModTime, mt)
	}
}

type panicReader struct{ after []byte }

func (p *panicReader) Read(b []byte) (int, error) {
	if len(p.after) == 0 {
		panic("boom")
	}
	n := copy(b, p.after)
	p.after = p.after[n:]
	return n, nil
}

func TestArPanicBecomesError(t *testing.T) {
	_, err := NewReader(context.Background(), &panicReader{after: []byte("!<arch>\n")}, Options{Name: "p.deb"})
	var e *fault.DebError
	if !errors.As(err, &e) || e.Kind != fault.DebFormat || e.Deb != "p.deb" {
		t.Fatalf("err = %v, want KindFormat *Error", err)
	}
}

// TestSystemXZOnlyForLargeMembers: with SystemXZ, a member smaller than
// systemXZMin is decoded in process (the error is the Go decoder's), a
// larger one by the child xz.
func TestSystemXZOnlyForLargeMembers(t *testing.T) {
	testutil.RequireTool(t, "xz")
	var deb []byte
	for _, tc := range hostileCases() {
		if tc.name == "corrupt xz" {
			deb = tc.deb(t)
		}
	}
	if len(deb) == 0 || len(deb) >= systemXZMin {
		t.Fatalf("fixture of %d bytes: want a small corrupt xz deb", len(deb))
	}
	for _, c := range []struct {
		min   int64
		child bool
	}{{0, false}, {1, true}} {
		err := drain(context.Background(), bytes.NewReader(deb), Options{SystemXZ: true, systemXZMin: c.min})
		if err == nil {
			t.Fatalf("threshold %d: corrupt member accepted", c.min)
		}
		if got := strings.Contains(err.Error(), "xz -dc"); got != c.child {
			t.Errorf("threshold %d: decoded by the child xz %v, want %v: %v", c.min, got, c.child, err)
		}
	}
}
