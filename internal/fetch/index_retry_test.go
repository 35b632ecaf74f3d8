package fetch

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
)

// TestIndexRetriesCorruptResponse: a Packages.xz response that does not
// match the Release is retried like a deb with wrong bytes; one bad
// response is survived, a file that stays wrong fails after the same
// attempt budget with a message saying which attempt.
func TestIndexRetriesCorruptResponse(t *testing.T) {
	plain := packagesText()
	good := xzed(t, plain)
	bad := xzed(t, append(bytes.Clone(plain), "\nPackage: evil\n"...))
	rel := releaseText(map[string][]byte{"main/binary-arm64/Packages.xz": good})

	s := newServer(t)
	s.put("/"+distDir+"Release", rel)
	s.put("/"+indexDir+"Packages.xz", good, serveBytes(bad))
	log := &eventLog{}
	f := mustNew(t, testOptions(t, s.URL, log))
	pkgs, info, err := f.Index(context.Background(), apt.NewRepo("", "common", testSuite))
	if err != nil {
		t.Fatalf("one corrupt response: %v", err)
	}
	if len(pkgs) != len(testDebs()) || info.SHA256 != sha256Hex(good) || !info.Release {
		t.Errorf("got %d packages, info %+v", len(pkgs), info)
	}
	if n := s.requests("/" + indexDir + "Packages.xz"); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if log.count(Retried) != 1 {
		t.Errorf("%d retry events, want 1", log.count(Retried))
	}

	// Wrong every time: the deb budget (Retries+1 attempts), then an error.
	s.put("/"+indexDir+"Packages.xz", bad)
	o := testOptions(t, s.URL, nil)
	o.Retries = 2
	_, _, err = mustNew(t, o).Index(context.Background(), apt.NewRepo("", "common", testSuite))
	var me *apt.MismatchError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "(attempt 3)") ||
		!strings.Contains(err.Error(), "gave up after 3 attempts") {
		t.Fatalf("got %v, want a mismatch on attempt 3 of 3", err)
	}
	if n := s.requests("/" + indexDir + "Packages.xz"); n != 2+3 {
		t.Errorf("%d requests, want 3 more", n-2)
	}
}

// TestIndexRetriesUndecodableResponse: with no Release to check it, an
// index from a remote mirror that does not decode is retried too.
func TestIndexRetriesUndecodableResponse(t *testing.T) {
	good := xzed(t, packagesText())
	bad := bytes.Clone(good)
	bad[len(bad)/2] ^= 0xff
	s := newServer(t)
	s.put("/"+indexDir+"Packages.xz", good, serveBytes(bad))
	o := testOptions(t, s.URL, nil)
	o.AllowUnverified = true
	pkgs, info, err := mustNew(t, o).Index(context.Background(), apt.NewRepo("", "common", testSuite))
	if err != nil {
		t.Fatalf("one undecodable response: %v", err)
	}
	if len(pkgs) != len(testDebs()) || info.SHA256 != sha256Hex(good) || info.Release {
		t.Errorf("got %d packages, info %+v", len(pkgs), info)
	}
	if n := s.requests("/" + indexDir + "Packages.xz"); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}
