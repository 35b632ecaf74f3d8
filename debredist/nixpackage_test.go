package debredist

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

// TestNixPackage: nix/package.nix builds this version, and its vendorHash
// is the NAR hash of `go mod vendor` (what buildGoModule checks), so that
// the package stays buildable as go.mod changes.
func TestNixPackage(t *testing.T) {
	nixHash := testutil.RequireTool(t, "nix-hash")
	src, err := os.ReadFile(filepath.Join("..", "nix", "package.nix"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `version = "`+Version+`";`) {
		t.Errorf("nix/package.nix does not say version %s", Version)
	}
	m := regexp.MustCompile(`vendorHash = "sha256-([A-Za-z0-9+/=]+)";`).FindSubmatch(src)
	if m == nil {
		t.Fatal("nix/package.nix has no vendorHash")
	}
	raw, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	vendor := filepath.Join(t.TempDir(), "vendor")
	c := exec.Command("go", "mod", "vendor", "-o", vendor)
	c.Dir = ".."
	if o, err := c.CombinedOutput(); err != nil {
		t.Fatalf("go mod vendor: %v\n%s", err, o)
	}
	o, err := exec.Command(nixHash, "--type", "sha256", vendor).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(o)); got != hex.EncodeToString(raw) {
		t.Errorf("nix/package.nix vendorHash is sha256 %s, go mod vendor's NAR hash is %s: update it (sha256-%s)", hex.EncodeToString(raw), got, base64.StdEncoding.EncodeToString(mustHex(got)))
	}
}

func mustHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}
