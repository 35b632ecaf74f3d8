package apt_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/internal/deb"
	"github.com/debredist/debredist/internal/deb/debtest"
)

// TestSyntaxErrorOfDebControl: apt.SyntaxError is deb822's error, so
// errors.As finds it in a deb's control-file error as in an index's.
func TestSyntaxErrorOfDebControl(t *testing.T) {
	b, err := debtest.Build(debtest.Deb{Control: "Package: a\nVersion: 1\nArchitecture: arm64\n\nPackage: b\n"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = deb.NewReader(context.Background(), bytes.NewReader(b), deb.Options{})
	var se *apt.SyntaxError
	if !errors.As(err, &se) || se.Line != 5 || se.Msg != "more than one stanza (a second stanza starts here)" {
		t.Fatalf("err = %v, want an *apt.SyntaxError at line 5", err)
	}
}
