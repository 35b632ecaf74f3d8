package main

import (
	"os"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

// TestMain runs the tests, or, when DEBREDIST_TEST_AS_CLI=1, is the CLI
// itself: tests that need a separate process (signals, another user, a
// private mount namespace) run the test binary that way.
func TestMain(m *testing.M) {
	if os.Getenv("DEBREDIST_TEST_AS_CLI") == "1" {
		main()
	}
	testutil.Main(m)
}
