// Package testutil holds helpers shared by debredist's tests: finding the
// real Debian tools the tests cross-check against, telling whether the
// long sweeps run, and failing a test whose setup fails (Must).
package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// Must fails the test at once when a step that sets it up (writing a
// fixture file, making a directory or a link, decoding what the test then
// checks) returns an error: a test that set up silently wrong proves nothing.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// RequireTool returns the path of an external tool such as dpkg-deb. When the
// tool is missing the test is skipped with a message, or fails when the
// environment sets DEBREDIST_REQUIRE_TOOLS=1 (as CI does), so that a
// cross-check never silently stops running.
func RequireTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	missing(t, fmt.Sprintf("tool %q not found on PATH: %v", name, err))
	return ""
}

// RequireRoot skips a test that needs root (for private mount namespaces,
// or a daemon such as sshd) when it runs as another user, or fails it when
// the environment sets DEBREDIST_REQUIRE_TOOLS=1, as RequireTool does.
func RequireRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		missing(t, "needs root: "+why)
	}
}

// missing fails the test under DEBREDIST_REQUIRE_TOOLS=1, else skips it.
func missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("DEBREDIST_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%s (DEBREDIST_REQUIRE_TOOLS=1)", what)
	}
	t.Skipf("%s; skipping cross-check (set DEBREDIST_REQUIRE_TOOLS=1 to make this fail)", what)
}

// Long reports whether the environment sets DEBREDIST_LONG_TESTS=1 (as CI
// does). The crash and interruption tests then sweep every kill point
// instead of a fixed sample, every stub goes through the toolchain, every
// stanza through dpkg-scanpackages, and the large golden archives and the
// dpkg-deb fixture rebuild run; without it `go test ./...` stays a quick
// loop for developers that still runs each kind of check.
func Long() bool { return os.Getenv("DEBREDIST_LONG_TESTS") == "1" }

// Main runs a package's tests and exits (call it from TestMain), with
// TMPDIR, and so every t.TempDir, on the RAM-backed /dev/shm when the
// machine has one and TMPDIR is not set; cleanup runs after the tests. The
// tests create and remove hundreds of thousands of small files (staged deb
// contents, output generations, caches, fixture mirrors); on a disk file
// system that costs more kernel time than the tests themselves (on the
// 2-core CI machine `go test ./...` takes 78 s this way, 106 s on its ext4
// disk). A TMPDIR set by the user is kept.
func Main(m *testing.M, cleanup ...func()) {
	code := func() int {
		if os.Getenv("TMPDIR") == "" {
			if dir, err := os.MkdirTemp("/dev/shm", "debredist-test-"); err == nil {
				defer func() { _ = os.RemoveAll(dir) }()
				if err := os.Setenv("TMPDIR", dir); err != nil {
					fmt.Fprintln(os.Stderr, err)
					return 2
				}
			}
		}
		defer func() {
			for _, f := range cleanup {
				f()
			}
		}()
		return m.Run()
	}()
	os.Exit(code)
}

// NixStoreLock holds, until the test ends, the lock every test that adds
// to, builds in or deletes from the machine's one Nix store takes
// (/tmp/debredist-test-nix-store.lock, flock): test packages run side by
// side, and one test deleting a store path to make Nix fetch or build it
// again must not find another test fetching the same deb (the same name
// and hash) back meanwhile.
func NixStoreLock(t testing.TB) {
	t.Helper()
	f, err := os.OpenFile("/tmp/debredist-test-nix-store.lock", os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatalf("the Nix store lock: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("the Nix store lock: %v", err)
	}
	t.Cleanup(func() { f.Close() })
}
