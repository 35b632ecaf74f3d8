package debredist

import (
	"context"
	"net"
	"strings"
	"testing"
)

// TestUnreachableMirrorHint: a mirror that cannot be reached is an error
// that says what to do instead.
func TestUnreachableMirrorHint(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nothing listens there now: connection refused
	_, err = Plan(
		context.Background(),
		Options{Source: Source{Mirror: "http://" + addr, CacheDir: t.TempDir(), Retries: -1}, Release: Release{JetPack: "6"}},
	)
	if err == nil ||
		!strings.Contains(err.Error(), "cannot reach http://"+addr+": give another mirror (Source.Mirror URL or DIR)") {
		t.Errorf("unreachable mirror: %v", err)
	}
}
