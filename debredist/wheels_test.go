package debredist

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/testutil"
)

// TestTensorRTWheels: the tensorrt archive of every JetPack has NVIDIA's
// python/*.whl (tensorrt, and lean/dispatch where the debs have them) built
// from the python3-libnvinfer* debs, no installed dist-packages tree of
// those debs, bin/trtexec, and samples/ where the debs carry samples; pip
// installs each wheel for the Python version the debs were built for.
// JetPack 6 always; 5 and 7, a sweep, with DEBREDIST_LONG_TESTS=1 (CI).
func TestTensorRTWheels(t *testing.T) {
	t.Parallel()
	pip := testutil.RequireTool(t, "pip3")
	cache := t.TempDir()
	for _, tc := range []struct {
		jp, py  string
		wheels  []string
		samples bool
	}{
		{"5", "3.8", []string{"tensorrt-8.5.2-cp38-none-linux_aarch64.whl"}, true},
		{
			"6",
			"3.10",
			[]string{
				"tensorrt-10.3.0-cp310-none-linux_aarch64.whl",
				"tensorrt_dispatch-10.3.0-cp310-none-linux_aarch64.whl",
				"tensorrt_lean-10.3.0-cp310-none-linux_aarch64.whl",
			},
			true,
		},
		{
			"7",
			"3.12",
			[]string{
				"tensorrt-10.16.2-cp312-none-linux_aarch64.whl",
				"tensorrt_dispatch-10.16.2-cp312-none-linux_aarch64.whl",
				"tensorrt_lean-10.16.2-cp312-none-linux_aarch64.whl",
			},
			false,
		},
	} {
		t.Run("jetpack"+tc.jp, func(t *testing.T) {
			if tc.jp != "6" && !testutil.Long() {
				t.Skip("the sweep over JetPack 5 and 7 runs with DEBREDIST_LONG_TESTS=1, as CI does")
			}
			out := t.TempDir()
			res := mustConvert(
				t,
				Options{
					Source:  Source{Mirror: filepath.Join("..", "testdata", "sample-mirror"), CacheDir: cache},
					Release: Release{JetPack: tc.jp},
					Build:   Build{Out: out, Only: []string{"tensorrt"}},
				},
			)
			file := filepath.Join(out, filepath.FromSlash(res.Packages[0].Archive))
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			dir := t.TempDir()
			var wheels []string
			var trtexec, samples bool
			err = archive.Walk(context.Background(), f, "", func(h entry.Header, r io.Reader) error {
				switch {
				case path.Dir(h.Path) == "python" && strings.HasSuffix(h.Path, ".whl"):
					wheels = append(wheels, path.Base(h.Path))
					b, err := io.ReadAll(r)
					if err != nil {
						return err
					}
					return os.WriteFile(filepath.Join(dir, path.Base(h.Path)), b, 0o644)
				case h.Path == "bin/trtexec":
					trtexec = true
				case strings.HasPrefix(h.Path, "samples/"):
					samples = true
				case strings.Contains(h.Path, "-packages/tensorrt"):
					t.Errorf("%s: the installed tree of a wheeled deb is left in the archive", h.Path)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(wheels, " ") != strings.Join(tc.wheels, " ") {
				t.Errorf("wheels %v, want %v", wheels, tc.wheels)
			}
			if !trtexec || samples != tc.samples {
				t.Errorf("bin/trtexec %v (want true), samples %v (want %v)", trtexec, samples, tc.samples)
			}
			target := filepath.Join(dir, "site")
			args := []string{"install", "--no-deps", "--no-index", "--target", target, "--platform", "linux_aarch64",
				"--only-binary=:all:", "--python-version", tc.py, "--disable-pip-version-check"}
			for _, w := range wheels {
				args = append(args, filepath.Join(dir, w))
			}
			if b, err := exec.Command(pip, args...).CombinedOutput(); err != nil {
				t.Errorf("pip install %v: %v\n%s", wheels, err, b)
			}
			for _, w := range wheels { // each wheel installed as its own distribution
				dist := strings.Join(strings.SplitN(w, "-", 3)[:2], "-") + ".dist-info/RECORD"
				if _, err := os.Stat(filepath.Join(target, dist)); err != nil {
					t.Errorf("%s: not installed: %v", w, err)
				}
			}
			for _, p := range []string{"tensorrt/__init__.py", "tensorrt/tensorrt.so", "tensorrt/plugin/__init__.py"} {
				if _, err := os.Stat(filepath.Join(target, p)); err != nil {
					t.Errorf("not installed: %v", err)
				}
			}
		})
	}
}
