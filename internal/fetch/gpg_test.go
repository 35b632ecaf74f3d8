package fetch

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/testutil"
)

var updateGPG = flag.Bool(
	"update-gpg",
	false,
	"regenerate testdata/gpg with apt-ftparchive and gpg (starts a gpg-agent)",
)

// gpgDir holds a Release written by apt-ftparchive and signed by GnuPG, with
// the signer's public key, so that the normal test run needs no gpg-agent.
const gpgDir = "testdata/gpg"

// TestRealToolsRelease cross-checks Index against a Release written by
// apt-ftparchive and signed by GnuPG (InRelease clearsigned, Release.gpg
// armored and binary), with keyrings exported by GnuPG (armored and binary).
func TestRealToolsRelease(t *testing.T) {
	if *updateGPG {
		regenerateGPG(t)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(gpgDir, name))
		if err != nil {
			t.Fatalf("%v (regenerate with -update-gpg)", err)
		}
		return b
	}
	release, inRelease := read("Release"), read("InRelease")
	sigArmored, sigBinary := read("Release.gpg.asc"), read("Release.gpg")
	packagesXZ := read("Packages.xz")
	other := keyringFile(t, newKey(t, "other"), true)

	tests := []struct {
		name    string
		files   mirrorFiles
		keyring string
		wantErr bool
	}{
		{name: "InRelease, armored keyring", files: mirrorFiles{"InRelease": inRelease}, keyring: "key.asc"},
		{name: "InRelease, binary keyring", files: mirrorFiles{"InRelease": inRelease}, keyring: "key.gpg"},
		{name: "Release.gpg armored", files: mirrorFiles{"Release": release, "Release.gpg": sigArmored}, keyring: "key.gpg"},
		{name: "Release.gpg binary", files: mirrorFiles{"Release": release, "Release.gpg": sigBinary}, keyring: "key.asc"},
		{name: "InRelease, other key", files: mirrorFiles{"InRelease": inRelease}, keyring: other, wantErr: true},
		{name: "Release.gpg over another Release", files: mirrorFiles{
			"Release": bytes.Replace(release, []byte("Suite: r36.5"), []byte("Suite: r36.6"), 1), "Release.gpg": sigBinary,
		}, keyring: "key.asc", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := mirrorFiles{indexDir + "Packages.xz": packagesXZ}
			for k, v := range tc.files {
				m[distDir+k] = v
			}
			_, bases := serveMirror(t, m)
			o := testOptions(t, bases["dir"], nil)
			o.Keyring = tc.keyring
			if !filepath.IsAbs(tc.keyring) {
				o.Keyring = filepath.Join(gpgDir, tc.keyring)
			}
			f := mustNew(t, o)
			pkgs, info, err := f.Index(context.Background(), apt.NewRepo("", "common", testSuite))
			if tc.wantErr {
				var se *fault.SignatureError
				if !errors.As(err, &se) {
					t.Fatalf("err = %v, want *SignatureError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !info.Signed || !info.Release || filepath.Base(info.URL) != "Packages.xz" || len(pkgs) != 2 {
				t.Errorf("info %+v, %d packages", info, len(pkgs))
			}
		})
	}
}

func regenerateGPG(t *testing.T) {
	ftp := testutil.RequireTool(t, "apt-ftparchive")
	gpg := testutil.RequireTool(t, "gpg")
	home, err := os.MkdirTemp("", "gpg") // short path: gpg-agent's socket lives there
	if err != nil {
		t.Fatal(err)
	}
	testutil.Must(t, os.Chmod(home, 0o700))
	t.Cleanup(func() {
		_ = exec.Command("gpgconf", "--homedir", home, "--kill", "gpg-agent").Run() // no agent left: nothing to stop
		_ = os.RemoveAll(home)
	})
	run := func(dir string, name string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GNUPGHOME="+home)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, stderr.Bytes())
		}
		return out
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(gpgDir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(gpgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	run(
		"",
		gpg,
		"--batch",
		"--passphrase",
		"",
		"--quick-gen-key",
		"debredist test signer <signer@example.com>",
		"ed25519",
		"sign",
		"never",
	)
	write("key.asc", run("", gpg, "--batch", "--armor", "--export"))
	write("key.gpg", run("", gpg, "--batch", "--export"))

	plain := packagesText()
	dist := t.TempDir()
	idx := filepath.Join(dist, "main", "binary-arm64")
	testutil.Must(t, os.MkdirAll(idx, 0o755))
	xzData := xzed(t, plain)
	testutil.Must(t, os.WriteFile(filepath.Join(idx, "Packages.xz"), xzData, 0o644))
	write("Packages.xz", xzData)
	release := run(dist, ftp, "-o", "APT::FTPArchive::Release::Suite="+testSuite, "release", ".")
	testutil.Must(t, os.WriteFile(filepath.Join(dist, "Release"), release, 0o644))
	write("Release", release)
	write("InRelease", run(dist, gpg, "--batch", "--clearsign", "-o", "-", "Release"))
	write("Release.gpg", run(dist, gpg, "--batch", "--detach-sign", "-o", "-", "Release"))
	write("Release.gpg.asc", run(dist, gpg, "--batch", "--armor", "--detach-sign", "-o", "-", "Release"))
}
