package debredist_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/hostile"
	"github.com/debredist/debredist/internal/publish"
)

// TestWaitingRunNeverUndoesAnother: a conversion that waits for OUT while
// another process holds it, and then fails (or is cancelled while
// waiting), never removes that process's output, though OUT did not exist
// when it started; when the holder removed OUT (its own first conversion
// failed), the waiter claims OUT anew and removes only what it made.
func TestWaitingRunNeverUndoesAnother(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler()) // every deb fails, after OUT is claimed
	defer srv.Close()
	o := world(
		t,
		lockDeb{pkg: hostile.Package, version: hostile.Version, filename: hostile.Filename, sha: strings.Repeat("0", 64)},
	)
	o.Source.Mirror = srv.URL
	busy := make(chan struct{}, 8)
	o.OnEvent = func(e event.Event) {
		if e.Kind == event.OutBusy {
			busy <- struct{}{}
		}
	}
	// start runs Convert on out while the test holds it; it returns once
	// the conversion says it waits.
	start := func(ctx context.Context, out string) <-chan error {
		oo := o
		oo.Build.Out = out
		errc := make(chan error, 1)
		go func() { _, err := debredist.Convert(ctx, oo); errc <- err }()
		select {
		case <-busy:
		case err := <-errc:
			t.Fatalf("Convert returned without waiting for OUT: %v", err)
		case <-time.After(60 * time.Second):
			t.Fatal("Convert did not report waiting for OUT")
		}
		return errc
	}
	take := func(out string) *publish.Claim {
		c, err := publish.Take(context.Background(), out, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	wantHTTP := func(err error) {
		t.Helper()
		var he *fault.HTTPError
		if !errors.As(err, &he) {
			t.Fatalf("Convert: %v, want the deb's *HTTPError", err)
		}
	}

	// The holder publishes its output, then the waiter fails.
	out := filepath.Join(t.TempDir(), "out")
	holder := take(out) // creates OUT, as a first conversion does
	errc := start(context.Background(), out)
	if err := os.WriteFile(filepath.Join(out, "theirs"), []byte("output"), 0o644); err != nil {
		t.Fatal(err)
	}
	holder.Release()
	wantHTTP(<-errc)
	if _, err := os.Stat(filepath.Join(out, "theirs")); err != nil {
		t.Fatalf("the other process's output is gone after a waiting run failed: %v", err)
	}

	// Cancelled while waiting.
	holder = take(out)
	ctx, cancel := context.WithCancel(context.Background())
	errc = start(ctx, out)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while waiting: %v", err)
	}
	holder.Release()
	if _, err := os.Stat(filepath.Join(out, "theirs")); err != nil {
		t.Fatalf("the other process's output is gone after a waiting run was cancelled: %v", err)
	}

	// The holder's first conversion fails and removes OUT: the waiter
	// claims it anew, fails too, and removes what it made.
	out2 := filepath.Join(t.TempDir(), "out2")
	holder = take(out2)
	errc = start(context.Background(), out2)
	holder.Undo()
	holder.Release()
	wantHTTP(<-errc)
	if _, err := os.Lstat(out2); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed first conversion left %s behind: %v", out2, err)
	}
}
