package redist

import "testing"

// TestArtifactBytes: the manifest's string size as a number, and an error
// naming the artifact for anything else.
func TestArtifactBytes(t *testing.T) {
	for size, want := range map[string]int64{"0": 0, "2048": 2048, "25165824": 25165824} {
		if n, err := (&Artifact{Size: size}).Bytes(); err != nil || n != want {
			t.Errorf("Bytes(%q) = %d, %v", size, n, err)
		}
	}
	for _, bad := range []string{"", "-1", "12 KiB", "0x10"} {
		if _, err := (&Artifact{RelativePath: "a/b.tar.xz", Size: bad}).Bytes(); err == nil {
			t.Errorf("Bytes(%q): no error", bad)
		}
	}
}
