package publish

import (
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }
