package wheel

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

func files(m map[string]string) []File {
	var fs []File
	for p, c := range m {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".so") {
			mode = 0o755
		}
		fs = append(
			fs,
			File{Path: p, Mode: mode, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(c)), nil }},
		)
	}
	return fs
}

var meta = Meta{
	Name:        "tensorrt_lean",
	Version:     "10.3.0",
	PythonTag:   "cp310",
	ABITag:      "none",
	PlatformTag: "linux_aarch64",
	Summary:     "TensorRT lean runtime",
}

var content = map[string]string{
	"tensorrt_lean/__init__.py":        "from .tensorrt_lean import *\n",
	"tensorrt_lean/tensorrt_lean.so":   "\x7fELF not really",
	"tensorrt_lean/sub/helper, odd.py": "x = 1\n",
}

func build(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, meta, files(content)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWheel(t *testing.T) {
	if got := meta.FileName(); got != "tensorrt_lean-10.3.0-cp310-none-linux_aarch64.whl" {
		t.Errorf("file name %s", got)
	}
	a, b := build(t), build(t)
	if !bytes.Equal(a, b) {
		t.Fatal("two builds differ")
	}
	zr, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	got := map[string][]byte{}
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, _ := f.Open()
		got[f.Name], _ = io.ReadAll(rc)
		_ = rc.Close()
		if !f.Modified.Equal(MTime) {
			t.Errorf("%s: mtime %v", f.Name, f.Modified)
		}
		want := os.FileMode(0o644)
		if strings.HasSuffix(f.Name, ".so") {
			want = 0o755
		}
		if f.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", f.Name, f.Mode(), want)
		}
	}
	wantNames := []string{
		"tensorrt_lean/__init__.py",
		"tensorrt_lean/sub/helper, odd.py",
		"tensorrt_lean/tensorrt_lean.so",
		"tensorrt_lean-10.3.0.dist-info/METADATA",
		"tensorrt_lean-10.3.0.dist-info/WHEEL",
		"tensorrt_lean-10.3.0.dist-info/RECORD",
	}
	if strings.Join(names, "|") != strings.Join(wantNames, "|") {
		t.Errorf("entries %q, want %q", names, wantNames)
	}
	if !strings.Contains(string(got["tensorrt_lean-10.3.0.dist-info/WHEEL"]), "Tag: cp310-none-linux_aarch64\n") {
		t.Errorf("WHEEL: %s", got["tensorrt_lean-10.3.0.dist-info/WHEEL"])
	}
	rec := string(got["tensorrt_lean-10.3.0.dist-info/RECORD"])
	for name, c := range content {
		sum := sha256.Sum256([]byte(c))
		line := "sha256=" + base64.RawURLEncoding.EncodeToString(sum[:])
		if !strings.Contains(rec, line) {
			t.Errorf("RECORD lacks the hash of %s:\n%s", name, rec)
		}
	}
	if !strings.Contains(rec, `"tensorrt_lean/sub/helper, odd.py"`) ||
		!strings.HasSuffix(rec, "tensorrt_lean-10.3.0.dist-info/RECORD,,\n") {
		t.Errorf("RECORD quoting or last line wrong:\n%s", rec)
	}
}

func TestWheelRejects(t *testing.T) {
	for _, tc := range []struct {
		m     Meta
		files map[string]string
		want  string
	}{
		{meta, map[string]string{"../x.py": ""}, "invalid path"},
		{meta, map[string]string{"tensorrt_lean-10.3.0.dist-info/RECORD": ""}, "inside the generated"},
		{meta, nil, "no files"},
		{
			Meta{Name: "a b", Version: "1", PythonTag: "cp3", ABITag: "none", PlatformTag: "any"},
			map[string]string{"a.py": ""},
			"invalid distribution name",
		},
		{
			Meta{Name: "a", Version: "1.0-1", PythonTag: "cp3", ABITag: "none", PlatformTag: "any"},
			map[string]string{"a.py": ""},
			"invalid version",
		},
	} {
		err := Write(io.Discard, tc.m, files(tc.files))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
}

// TestPipInstalls: pip accepts the wheel for its tags and installs every file.
func TestPipInstalls(t *testing.T) {
	pip := testutil.RequireTool(t, "pip3")
	dir := t.TempDir()
	whl := filepath.Join(dir, meta.FileName())
	if err := os.WriteFile(whl, build(t), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "site")
	cmd := exec.Command(pip, "install", "--no-deps", "--no-index", "--target", target, "--platform", "linux_aarch64",
		"--only-binary=:all:", "--python-version", "3.10", "--disable-pip-version-check", whl)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pip install: %v\n%s", err, out)
	}
	for name, c := range content {
		b, err := os.ReadFile(filepath.Join(target, filepath.FromSlash(name)))
		if err != nil || string(b) != c {
			t.Errorf("%s not installed as packed: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(target, "tensorrt_lean-10.3.0.dist-info", "RECORD")); err != nil {
		t.Error(err)
	}
	// The wrong Python version is refused: the tag is real.
	cmd = exec.Command(
		pip,
		"install",
		"--no-deps",
		"--no-index",
		"--target",
		filepath.Join(dir, "other"),
		"--platform",
		"linux_aarch64",
		"--only-binary=:all:",
		"--python-version",
		"3.8",
		"--disable-pip-version-check",
		whl,
	)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("pip installed a cp310 wheel for Python 3.8:\n%s", out)
	}
}
