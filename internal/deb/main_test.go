package deb

import (
	"testing"
	"time"

	"github.com/debredist/debredist/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// timeZero is the mtime of the raw tar headers and control members the
// tests write by hand.
var timeZero = time.Unix(0, 0)
