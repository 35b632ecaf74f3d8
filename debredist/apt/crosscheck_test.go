package apt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

// testDeb describes a deb built with dpkg-deb for the cross-checks.
type testDeb struct {
	name, version, source  string // source as written in the control file
	wantSource, wantSrcVer string
	dir                    string // pool directory
}

var testDebs = []testDeb{
	{"libnvinfer10", "10.3.0.30-1+cuda12.5", "tensorrt (10.3.0.30-1)", "tensorrt", "10.3.0.30-1", "pool/main/t/tensorrt"},
	{"cuda-cudart-12-6", "12.6.68-1", "cuda-cudart", "cuda-cudart", "", "pool/main/c/cuda-cudart"},
	{"epoch-tilde", "1:2.0~rc1-1", "", "epoch-tilde", "", "pool/main/e/epoch-tilde"},
}

// buildRepo builds the test debs under root with dpkg-deb and returns their
// Filename (relative to root) by package name.
func buildRepo(t *testing.T, root string) map[string]string {
	t.Helper()
	dpkgDeb := testutil.RequireTool(t, "dpkg-deb")
	files := map[string]string{}
	for _, d := range testDebs {
		tree := filepath.Join(t.TempDir(), d.name)
		if err := os.MkdirAll(filepath.Join(tree, "DEBIAN"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(tree, "usr/share/doc", d.name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(
			filepath.Join(tree, "usr/share/doc", d.name, "copyright"),
			[]byte("test "+d.name+"\n"),
			0o644,
		); err != nil {
			t.Fatal(err)
		}
		control := "Package: " + d.name + "\nVersion: " + d.version + "\nArchitecture: arm64\n" +
			"Maintainer: Test <test@example.com>\nDescription: test package " + d.name + "\n multi-line\n .\n description\n"
		if d.source != "" {
			control += "Source: " + d.source + "\n"
		}
		if err := os.WriteFile(filepath.Join(tree, "DEBIAN/control"), []byte(control), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, d.dir), 0o755); err != nil {
			t.Fatal(err)
		}
		ver := d.version[strings.Index(d.version, ":")+1:]
		rel := d.dir + "/" + d.name + "_" + ver + "_arm64.deb"
		cmd := exec.Command(dpkgDeb, "--root-owner-group", "-Zgzip", "--build", tree, filepath.Join(root, rel))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("dpkg-deb: %v\n%s", err, out)
		}
		files[d.name] = rel
	}
	return files
}

// run runs a tool in dir and returns its standard output.
func run(t *testing.T, dir, tool string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", tool, args, err, stderr.Bytes())
	}
	return out
}

func TestCrossCheckIndexers(t *testing.T) {
	root := t.TempDir()
	files := buildRepo(t, root)
	indexers := []struct {
		tool string
		args []string
	}{
		{"dpkg-scanpackages", []string{"--multiversion", "pool", "/dev/null"}},
		{"apt-ftparchive", []string{"packages", "pool"}},
	}
	for _, ix := range indexers {
		t.Run(ix.tool, func(t *testing.T) {
			tool := testutil.RequireTool(t, ix.tool)
			index := run(t, root, tool, ix.args...)
			pkgs, probs, err := ParsePackages(bytes.NewReader(index), ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(probs) != 0 || len(pkgs) != len(testDebs) {
				t.Fatalf("%d packages, problems %v; index:\n%s", len(pkgs), probs, index)
			}
			byName := map[string]Package{}
			for _, p := range pkgs {
				byName[p.Name] = p
			}
			for _, d := range testDebs {
				p, ok := byName[d.name]
				if !ok {
					t.Errorf("%s missing", d.name)
					continue
				}
				data, err := os.ReadFile(filepath.Join(root, files[d.name]))
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(data)
				if p.Version != d.version || p.Filename != files[d.name] || p.Size != int64(len(data)) ||
					p.SHA256 != hex.EncodeToString(sum[:]) || p.Source != d.wantSource || p.SourceVersion != d.wantSrcVer ||
					p.Architecture != "arm64" || p.Description != "test package "+d.name {
					t.Errorf("%s: parsed %+v\nwant version %s file %s size %d sha256 %x source %q %q",
						d.name, p, d.version, files[d.name], len(data), sum, d.wantSource, d.wantSrcVer)
				}
				if got := p.Field("description"); got != "test package "+d.name+"\nmulti-line\n\ndescription" {
					t.Errorf("%s: full description %q", d.name, got)
				}
				if p.MD5sum == "" || p.SHA1 == "" {
					t.Errorf("%s: MD5sum/SHA1 not parsed", d.name)
				}
				// The URL of the deb resolves to the file in a directory mirror.
				path, err := Repo{Base: filepath.Dir(root), Name: filepath.Base(root)}.PoolURL(p.Filename)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("PoolURL for a directory mirror: %v", err)
				}
			}
		})
	}
}

func TestCrossCheckRelease(t *testing.T) {
	ftparchive := testutil.RequireTool(t, "apt-ftparchive")
	gz := testutil.RequireTool(t, "gzip")
	xzTool := testutil.RequireTool(t, "xz")
	root := t.TempDir()
	buildRepo(t, root)
	repo := NewRepo(root, "", "r36.5")
	dist := filepath.Join(root, "dists", "r36.5")
	bin := filepath.Join(dist, filepath.FromSlash(repo.IndexPath("")))
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	index := run(t, root, ftparchive, "packages", "pool")
	plain := filepath.Join(bin, "Packages")
	if err := os.WriteFile(plain, index, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, bin, gz, "-9nk", "Packages")
	run(t, bin, xzTool, "-k", "Packages")
	release := run(t, root, ftparchive,
		"-o", "APT::FTPArchive::Release::Origin=debredist-test",
		"-o", "APT::FTPArchive::Release::Suite=r36.5",
		"-o", "APT::FTPArchive::Release::Architectures=arm64",
		"-o", "APT::FTPArchive::Release::Components=main",
		"release", filepath.Join("dists", "r36.5"))
	rel, err := ParseReleaseFile(bytes.NewReader(release))
	if err != nil {
		t.Fatalf("%v\n%s", err, release)
	}
	if rel.Origin != "debredist-test" || rel.Suite != "r36.5" || rel.Date == "" ||
		strings.Join(rel.Architectures, " ") != "arm64" || strings.Join(rel.Components, " ") != "main" {
		t.Errorf("Release fields: %+v", rel)
	}
	for _, name := range []string{"Packages", "Packages.gz", "Packages.xz"} {
		key := repo.IndexPath(name)
		if !rel.Has(key) {
			t.Errorf("Release lacks %s:\n%s", key, release)
			continue
		}
		f, err := os.Open(filepath.Join(bin, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := rel.Verify(key, f); err != nil {
			t.Errorf("Verify(%s): %v", key, err)
		}
		if _, err := f.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
		pkgs, _, err := ParsePackages(f, ParseOptions{})
		f.Close()
		if err != nil || len(pkgs) != len(testDebs) {
			t.Errorf("%s: %d packages, %v", name, len(pkgs), err)
		}
	}
	// A tampered index fails with a MismatchError naming path and hashes.
	tampered := bytes.Replace(index, []byte("Package: epoch-tilde"), []byte("Package: epoch-tildx"), 1)
	err = rel.Verify(repo.IndexPath("Packages"), bytes.NewReader(tampered))
	var me *MismatchError
	if !errors.As(err, &me) || me.Path != "main/binary-arm64/Packages" || me.ExpectedSize != me.ActualSize ||
		me.ExpectedSHA256 == me.ActualSHA256 {
		t.Errorf("tampered: err = %v", err)
	}
	if err := rel.Verify(repo.IndexPath("Packages.gz"), bytes.NewReader(index)); !errors.As(err, &me) {
		t.Errorf("wrong file: err = %v", err)
	}
}
