package redist

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

// TestManifestRoundTripNVIDIA reads NVIDIA's real manifests and writes them
// back: the result must be the same JSON value, and reading it again the
// same Manifest.
func TestManifestRoundTripNVIDIA(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../testdata/nvidia/redistrib_*.json")
	if len(files) < 4 {
		t.Fatalf("want the 4 NVIDIA manifests in testdata/nvidia, found %v", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			orig, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ReadManifest(bytes.NewReader(orig))
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Components) == 0 {
				t.Fatal("no components read")
			}
			var out bytes.Buffer
			if err := WriteManifest(&out, m); err != nil {
				t.Fatal(err)
			}
			var a, b any
			if err := json.Unmarshal(orig, &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(out.Bytes(), &b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("round trip changed the JSON value")
			}
			m2, err := ReadManifest(&out)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m, m2) {
				t.Errorf("re-read manifest differs")
			}
		})
	}
	// cuDNN's nesting is read as variants.
	m, err := ReadManifest(bytes.NewReader(must(os.ReadFile("../testdata/nvidia/redistrib_cudnn_9.8.0.json"))))
	if err != nil {
		t.Fatal(err)
	}
	c := m.Components["cudnn"]
	if c == nil || !reflect.DeepEqual(c.CUDAVariant, []string{"11", "12"}) ||
		c.Platforms["linux-aarch64"].Variants["cuda12"] == nil {
		t.Fatalf("cudnn variants not read: %+v", c)
	}
	got := c.Platforms["linux-aarch64"].Variants["cuda12"].RelativePath
	if got != "cudnn/linux-aarch64/cudnn-linux-aarch64-9.8.0.87_cuda12-archive.tar.xz" {
		t.Errorf("relative_path = %s", got)
	}
}

// TestManifestLayout pins the byte layout debredist writes: NVIDIA's key
// order and 4-space indentation.
func TestManifestLayout(t *testing.T) {
	t.Parallel()
	m := &Manifest{
		ReleaseDate:    "2026-01-15",
		ReleaseLabel:   "9.3.0",
		ReleaseProduct: "cudnn",
		Components: map[string]*Component{
			"cudnn": {
				Name:        "NVIDIA CUDA Deep Neural Network library",
				License:     "cudnn",
				LicensePath: "cudnn/LICENSE.txt",
				Version:     "9.3.0.75",
				CUDAVariant: []string{
					"12",
				},
				Platforms: map[string]*Platform{"linux-aarch64": {Variants: map[string]*Artifact{"cuda12": {
					RelativePath: "cudnn/linux-aarch64/cudnn-linux-aarch64-9.3.0.75_cuda12-archive.tar.xz", SHA256: "ab", MD5: "cd",
					Size: "12"}}}},
			},
		},
	}
	var out bytes.Buffer
	if err := WriteManifest(&out, m); err != nil {
		t.Fatal(err)
	}
	want := `{
    "release_date": "2026-01-15",
    "release_label": "9.3.0",
    "release_product": "cudnn",
    "cudnn": {
        "name": "NVIDIA CUDA Deep Neural Network library",
        "license": "cudnn",
        "license_path": "cudnn/LICENSE.txt",
        "version": "9.3.0.75",
        "cuda_variant": [
            "12"
        ],
        "linux-aarch64": {
            "cuda12": {
                "relative_path": "cudnn/linux-aarch64/cudnn-linux-aarch64-9.3.0.75_cuda12-archive.tar.xz",
                "sha256": "ab",
                "md5": "cd",
                "size": "12"
            }
        }
    }
}
`
	if out.String() != want {
		t.Errorf("layout:\n%s\nwant:\n%s", out.String(), want)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestReadSidecar: the sidecar under its current name wins, the legacy name
// is read when only it exists, and a missing one wraps fs.ErrNotExist.
func TestReadSidecar(t *testing.T) {
	dir := t.TempDir()
	mf := filepath.Join(dir, "redistrib_12.6.68.json")
	cur, legacy := SidecarFor(mf)
	if _, _, err := ReadSidecar(mf); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no sidecar: %v, want fs.ErrNotExist", err)
	}
	testutil.Must(t, os.WriteFile(legacy, []byte(`{"tool": "debredist 0.0.9"}`), 0o644))
	if p, name, err := ReadSidecar(mf); err != nil || name != legacy || p.Tool != "debredist 0.0.9" {
		t.Fatalf("legacy only: %+v %s %v", p, name, err)
	}
	testutil.Must(t, os.WriteFile(cur, []byte(`{"tool": "debredist 0.1.0"}`), 0o644))
	if p, name, err := ReadSidecar(mf); err != nil || name != cur || p.Tool != "debredist 0.1.0" {
		t.Fatalf("both: %+v %s %v", p, name, err)
	}
	testutil.Must(t, os.WriteFile(cur, []byte(`{"tool": `), 0o644))
	if _, name, err := ReadSidecar(mf); err == nil || name != cur || !strings.Contains(err.Error(), cur) {
		t.Fatalf("a broken sidecar: %s %v, want an error naming it", name, err)
	}
}
