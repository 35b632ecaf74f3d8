package fault_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/fault"
)

// Every failure a caller may branch on is a type of this package, found
// with errors.As whatever wraps it. Here the deb reader's: a file that is
// not a deb is a *fault.DebError of Kind DebFormat, which errors.Is also
// matches with its sentinel.
func ExampleDebError() {
	dir, _ := os.MkdirTemp("", "debredist-fault")
	defer func() { _ = os.RemoveAll(dir) }()
	notADeb := filepath.Join(dir, "notes.deb")
	if err := os.WriteFile(notADeb, []byte("hello, not an ar archive\n"), 0o644); err != nil {
		panic(err)
	}

	err := debredist.ExtractDeb(context.Background(), notADeb, filepath.Join(dir, "x"), debredist.ExtractOptions{})
	var de *fault.DebError
	if errors.As(err, &de) {
		fmt.Println("kind:", de.Kind)
		fmt.Println("deb:", filepath.Base(de.Deb))
		fmt.Println("cause:", de.Err)
	}
	fmt.Println(errors.Is(err, fault.ErrDebFormat), errors.Is(err, fault.ErrDebLimit))
	// Output:
	// kind: malformed deb
	// deb: notes.deb
	// cause: not an ar archive (magic "hello, n")
	// true false
}

// Options that cannot work together are a *fault.UsageError before
// anything runs (the CLI exits 2 on it).
func ExampleUsageError() {
	err := debredist.Options{
		Release: debredist.Release{JetPack: "6"},
		Build:   debredist.Build{Compression: "lz4"},
	}.Check()
	var ue *fault.UsageError
	if errors.As(err, &ue) {
		// The option is data: a front end names it its own way.
		fmt.Println("usage error:", ue.Option, "is", ue.Msg)
	}
	// Output:
	// usage error: Build.Compression is "lz4": want xz or zstd
}
