package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSBOMCommand: convert --sbom writes both documents beside the
// manifest; debredist sbom prints the SPDX document (the same bytes twice),
// writes the CycloneDX one with -o, and a bad --format is a usage error.
func TestSBOMCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, _, stderr := cli(t, "convert", "--quiet", "--mirror", sampleMirror, "--cache", filepath.Join(dir, "cache"),
		"--jetpack", "6", "--only", "cuda_cudart", "--out", out, "--sbom")
	if code != 0 {
		t.Fatalf("convert --sbom: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"debredist-sbom_12.6.68.spdx.json", "debredist-sbom_12.6.68.cdx.json"} {
		if _, err := os.Stat(filepath.Join(out, "cuda", "redist", f)); err != nil {
			t.Errorf("convert --sbom: %v", err)
		}
	}
	code, stdout, stderr := cli(t, "sbom", out)
	_, again, _ := cli(t, "sbom", out)
	if code != 0 || !strings.Contains(stdout, `"spdxVersion": "SPDX-2.3"`) ||
		!strings.Contains(stdout, "pkg:deb/nvidia/cuda-cudart-12-6@12.6.68-1?arch=arm64") ||
		stdout != again {
		t.Errorf("sbom: exit %d, %d bytes (same twice: %v): %s", code, len(stdout), stdout == again, stderr)
	}
	cdx := filepath.Join(dir, "out.cdx.json")
	if code, stdout, stderr := cli(t, "sbom", out, "--format", "cyclonedx", "-o", cdx); code != 0 || stdout != "" {
		t.Errorf("sbom --format cyclonedx -o: exit %d: %s%s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(cdx); err != nil || !bytes.Contains(b, []byte(`"specVersion": "1.6"`)) {
		t.Errorf("sbom -o: %v %.100s", err, b)
	}
	if code, _, stderr := cli(t, "sbom", out, "--format", "xml"); code != 2 || !strings.Contains(stderr, "--format") {
		t.Errorf("sbom --format xml: exit %d: %s", code, stderr)
	}
	if code, _, stderr := cli(t, "verify", out); code != 0 {
		t.Errorf("verify: exit %d: %s", code, stderr)
	}
}
