package debredist

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/debredist/debredist/internal/testutil"
)

// TestNixRemoteBuilderAndCache takes the file `debredist nix --derivations`
// prints through Nix's distributed machinery, as the README's "Sharing the
// work" does: every archive of the sample mirror's JetPack 6 conversion is
// built only on a remote builder (a second Nix store behind sshd on
// loopback, which fetches the debs itself; the local side runs with
// --max-jobs 0), then copied from the builder's store to a signed binary
// cache, from which a third, empty store substitutes every archive and
// builds nothing. Every archive that arrives is the one convert wrote, byte
// for byte. Then what Nix takes from a cache: the archives are
// content-addressed, so an unsigned cache serves them too; one whose
// entry claims no content address needs the key; one serving other bytes
// under an archive's name is refused.
//
// Each store is a directory of the test's, bind-mounted on /nix in a
// private mount namespace (root only), so the machine's own store is never
// touched (no NixStoreLock) and the builder's store is a different one.
func TestNixRemoteBuilderAndCache(t *testing.T) {
	if testing.Short() || !testutil.Long() {
		t.Skip("a remote builder and a binary cache for every archive: with DEBREDIST_LONG_TESTS=1 only")
	}
	testutil.RequireRoot(t, "a Nix store bind-mounted on /nix in a private mount namespace, and sshd")
	for _, tool := range []string{"nix-build", "nix-instantiate", "nix-store", "nix", "unshare", "mount", "ssh",
		"ssh-keygen"} {
		testutil.RequireTool(t, tool)
	}
	sshd := testutil.RequireTool(t, "sshd")
	if err := os.MkdirAll("/nix", 0o755); err != nil { // the mount point
		t.Fatal(err)
	}
	tmp := t.TempDir()
	if strings.ContainsAny(tmp, " \t\n") { // NIX_SSHOPTS is split at blanks
		t.Fatalf("a temporary directory with blanks: %q", tmp)
	}
	dir := func(name string) string {
		d := filepath.Join(tmp, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	client, builder, consumer := dir("client"), dir("builder"), dir("consumer")
	keys := dir("keys")
	// The mirror is read by the builder's sandbox: not under /dev, where the
	// sandbox has a /dev/shm of its own.
	mirror, err := os.MkdirTemp("/tmp", "debredist-nix-mirror-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(mirror) })
	nd := newNixDerivations(t, mirror) // before XDG_CACHE_HOME changes (go build's cache)
	// Root in CI has no nixbld users; nothing is substituted unless a
	// command says so (no network). Nix's narinfo cache is the test's.
	t.Setenv(
		"NIX_CONFIG",
		"build-users-group =\nsubstituters =\nsandbox = false\nexperimental-features = nix-command\n"+os.Getenv("NIX_CONFIG"),
	)
	t.Setenv("NIX_REMOTE", "local")
	t.Setenv("XDG_CACHE_HOME", dir("xdg-cache"))
	run := func(c *exec.Cmd) (string, string, error) {
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		return stdout.String(), stderr.String(), err
	}
	must := func(c *exec.Cmd) string {
		t.Helper()
		stdout, stderr, err := run(c)
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(c.Args, " "), err, stderr)
		}
		return stdout
	}
	nixBuild := func(store, attr string, args ...string) *exec.Cmd {
		return inStore(
			store,
			"nix-build",
			append(
				[]string{nd.file, "-A", attr, "--no-out-link", "--arg", "debredist", nd.debredist, "--max-jobs", "0"},
				args...)...)
	}

	// The builder: sshd on a free loopback port, in the builder store's
	// namespace, with a host key and a client key made here.
	for _, k := range []string{"host", "client"} {
		must(exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", filepath.Join(keys, k)))
	}
	hostKey, err := os.ReadFile(filepath.Join(keys, "host.pub"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	files := map[string]string{
		"authorized_keys": "", // the client key, below
		"known_hosts":     "builder " + string(hostKey),
		// The builder's: sandboxed, as Nix is by default, with the mirror
		// directory (the debs' file:// URLs) in the sandbox.
		"nix.conf": "build-users-group =\nsubstituters =\nsandbox = true\nextra-sandbox-paths = " + nd.mirror + "\n",
		"sshd_config": fmt.Sprintf(`ListenAddress 127.0.0.1:%d
HostKey %[2]s/host
AuthorizedKeysFile %[2]s/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM yes
PidFile none
SetEnv NIX_CONF_DIR=%[2]s
`, port, keys),
		// The client's: one SSH connection serves every derivation.
		"ssh_config": fmt.Sprintf(`Host builder
	HostName 127.0.0.1
	Port %d
	User root
	IdentityFile %[2]s/client
	IdentitiesOnly yes
	HostKeyAlias builder
	UserKnownHostsFile %[2]s/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
	ControlMaster auto
	ControlPath %[2]s/cm
	ControlPersist 60
`, port, keys),
	}
	if files["authorized_keys"], err = readString(filepath.Join(keys, "client.pub")); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(keys, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // sshd's privilege separation directory
		t.Fatal(err)
	}
	startSSHD(t, inStore(builder, sshd, "-D", "-e", "-f", filepath.Join(keys, "sshd_config")))
	sshConfig := filepath.Join(keys, "ssh_config")
	t.Setenv("NIX_SSHOPTS", "-F "+sshConfig)
	// The SSH master connection ends with the test (none left: nothing to stop).
	t.Cleanup(func() { _ = exec.Command("ssh", "-F", sshConfig, "-O", "exit", "builder").Run() })

	system := strings.Trim(must(inStore(client, "nix-instantiate", "--eval", "--expr", "builtins.currentSystem")), "\"\n")

	// 1. Built on the builder only.
	start := time.Now()
	build := nixBuild(client, "archives", "--builders", "ssh://builder "+system+" - 8")
	stdout, stderr, err := run(build)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("nix-build on the builder: %v\n%s", err, stderr)
	}
	archives := strings.Fields(stdout)
	remote := 0
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "building '") {
			if !strings.HasSuffix(line, " on 'ssh://builder'...") {
				t.Errorf("built locally: %s", line)
			}
			remote++
		}
	}
	clientInfo, builderInfo := pathInfo(t, client), pathInfo(t, builder)
	debs := 0
	for p, info := range clientInfo {
		if info.Ultimate {
			t.Errorf("%s was built in the local store", p)
		}
		if !strings.HasSuffix(p, ".deb") && !slices.Contains(archives, p) {
			continue
		}
		if strings.HasSuffix(p, ".deb") {
			debs++
		}
		if !builderInfo[p].Ultimate {
			t.Errorf("%s: not built (or fetched) in the builder's store", p)
		}
	}
	t.Logf(
		"%d derivations (%d archives, %d debs fetched by the builder) built on the builder in %s (nix-build and its build "+
			"hooks: %s of CPU)",
		remote,
		len(archives),
		debs,
		elapsed.Round(time.Millisecond),
		(build.ProcessState.UserTime() + build.ProcessState.SystemTime()).Round(time.Millisecond),
	)
	if debs == 0 || remote != len(archives)+debs {
		t.Errorf("%d derivations built on the builder, want the %d archives and %d debs", remote, len(archives), debs)
	}
	nd.check(t, client, archives)

	// 2. Through a binary cache, copied from the builder's store and signed
	// with a key made here; the consumer's store is empty and its only
	// substituter is that cache.
	start = time.Now()
	const keyName = "debredist-test-cache-1"
	secret, public := filepath.Join(keys, "cache.secret"), filepath.Join(keys, "cache.public")
	must(inStore(consumer, "nix-store", "--generate-binary-cache-key", keyName, secret, public))
	publicKey, err := readString(public)
	if err != nil {
		t.Fatal(err)
	}
	signed, unsigned := filepath.Join(tmp, "cache"), filepath.Join(tmp, "unsigned-cache")
	must(
		inStore(
			builder,
			"nix",
			append([]string{"copy", "--to", "file://" + signed + "?secret-key=" + secret}, archives...)...),
	)
	must(inStore(builder, "nix", append([]string{"copy", "--to", "file://" + unsigned}, archives...)...))
	substitute := func(store, cache, attr string) (string, string, error) {
		return run(
			nixBuild(store, attr, "--option", "substituters", "file://"+cache, "--option", "trusted-public-keys", publicKey),
		)
	}
	stdout, stderr, err = substitute(consumer, signed, "archives")
	if err != nil {
		t.Fatalf("nix-build from the cache: %v\n%s", err, stderr)
	}
	t.Logf(
		"%d archives substituted from the cache in %s (keys, copy and substitution)",
		len(archives),
		time.Since(start).Round(time.Millisecond),
	)
	if got := strings.Fields(stdout); !slices.Equal(got, archives) {
		t.Errorf("from the cache: %v, built: %v", got, archives)
	}
	if strings.Contains(stderr, "building '") {
		t.Errorf("the consumer built:\n%s", stderr)
	}
	consumerInfo := pathInfo(t, consumer)
	for p, info := range consumerInfo {
		if info.Ultimate || strings.HasSuffix(p, ".deb") {
			t.Errorf("%s was built or fetched in the consumer's store", p)
		}
	}
	for _, p := range archives {
		if !slices.ContainsFunc(
			consumerInfo[p].Signatures,
			func(s string) bool { return strings.HasPrefix(s, keyName+":") },
		) {
			t.Errorf("%s: not signed by %s: %v", p, keyName, consumerInfo[p].Signatures)
		}
	}
	nd.check(t, consumer, strings.Fields(stdout))

	// 3. What Nix takes from a cache, on one archive.
	cudart := slices.IndexFunc(archives, func(p string) bool { return strings.Contains(p, "-cuda_cudart-linux-") })
	if cudart < 0 {
		t.Fatalf("no cuda_cudart archive among %v", archives)
	}
	other := (cudart + 1) % len(archives)
	// An archive is content-addressed (its narinfo's CA is the flat
	// sha256 its store path is made of): Nix needs no signature for it and
	// checks its bytes instead.
	stdout, stderr, err = substitute(dir("unsigned"), unsigned, "archives.cuda.cuda_cudart")
	if err != nil {
		t.Fatalf("an unsigned cache: %v\n%s", err, stderr)
	}
	nd.check(t, filepath.Join(tmp, "unsigned"), strings.Fields(stdout))
	refused := dir("refused")
	// An entry that claims no content address needs the key.
	stripped := copyCache(t, unsigned, filepath.Join(tmp, "stripped-cache"))
	editNarinfo(t, stripped, archives[cudart], func(f map[string]string) { delete(f, "CA") })
	_, stderr, err = substitute(refused, stripped, "archives.cuda.cuda_cudart")
	if err == nil || !strings.Contains(stderr, "is not signed by any of the keys in 'trusted-public-keys'") {
		t.Errorf("an unsigned entry with no content address: want refused as unsigned, got %v:\n%s", err, stderr)
	}
	// Another archive's bytes under cuda_cudart's name, signed or not.
	swapped := copyCache(t, signed, filepath.Join(tmp, "swapped-cache"))
	editNarinfo(t, swapped, archives[cudart], func(f map[string]string) {
		o := readNarinfo(t, swapped, archives[other])
		for _, k := range []string{"URL", "FileHash", "FileSize", "NarHash", "NarSize"} {
			f[k] = o[k]
		}
	})
	_, stderr, err = substitute(refused, swapped, "archives.cuda.cuda_cudart")
	if err == nil || !strings.Contains(stderr, "ca hash mismatch importing path '"+archives[cudart]+"'") {
		t.Errorf("another archive's bytes: want Nix's ca hash mismatch, got %v:\n%s", err, stderr)
	}
	for p := range pathInfo(t, refused) {
		if p == archives[cudart] {
			t.Errorf("%s is valid in the store that refused it", p)
		}
	}
}

// inStore is a command run with the Nix store in dir: dir bind-mounted on
// /nix in a private mount namespace of its own (and of its children).
func inStore(dir, name string, args ...string) *exec.Cmd {
	return exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "--",
		"sh", "-c", `mount --bind "$0" /nix && exec "$@"`, dir, name}, args...)...)
}

// startSSHD starts sshd (-D -e) and waits until it listens; the test's end
// stops it with its connections (its process group), as does the end of
// the test process.
func startSSHD(t *testing.T, c *exec.Cmd) {
	t.Helper()
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = w
	err = c.Start()
	w.Close()
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log bytes.Buffer
	logged := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
	listening, done := make(chan bool, 1), make(chan bool)
	go func() {
		defer close(done)
		defer r.Close()
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			mu.Lock()
			log.Write(b[:n])
			if bytes.Contains(log.Bytes(), []byte("Server listening on")) && len(listening) == 0 {
				listening <- true
			}
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM) // had it died already, Wait says how
		err := <-exited
		if t.Failed() {
			t.Logf("sshd (%v):\n%s", err, logged())
		}
	})
	select {
	case <-listening:
	case err := <-exited:
		exited <- err
		<-done
		t.Fatalf("sshd: %v\n%s", err, logged())
	}
}

// storePathInfo is what `nix path-info --json` says of a valid path.
type storePathInfo struct {
	Path       string   `json:"path"`
	Ultimate   bool     `json:"ultimate"` // built in this store
	Signatures []string `json:"signatures"`
}

// pathInfo is every valid path of the store in dir.
func pathInfo(t *testing.T, dir string) map[string]storePathInfo {
	t.Helper()
	c := inStore(dir, "nix", "path-info", "--json", "--all")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("nix path-info in %s: %v\n%s", dir, err, stderr.String())
	}
	var infos []storePathInfo
	if err := json.Unmarshal(out, &infos); err != nil {
		t.Fatalf("nix path-info in %s: %v", dir, err)
	}
	m := map[string]storePathInfo{}
	for _, i := range infos {
		m[i.Path] = i
	}
	return m
}

// check reads each of the store paths (nix-build's output) in the store in
// dir: each is an archive of the manifests, named as it is, and the bytes
// convert wrote.
func (nd *nixDerivations) check(t *testing.T, dir string, paths []string) {
	t.Helper()
	if len(paths) == 0 {
		t.Errorf("no archive in %s", dir)
	}
	for _, p := range paths {
		got, err := os.ReadFile(filepath.Join(dir, "store", strings.TrimPrefix(p, "/nix/store/")))
		if err != nil {
			t.Error(err)
			continue
		}
		sum := sha256.Sum256(got)
		archive, ok := nd.archives[hex.EncodeToString(sum[:])]
		if !ok {
			t.Errorf("%s: sha256 %x is no manifest's", p, sum)
			continue
		}
		if !strings.HasSuffix(p, "-"+filepath.Base(archive)) {
			t.Errorf("%s holds %s", p, archive)
		}
		if want, err := os.ReadFile(archive); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (%v)", p, archive, err)
		}
	}
}

func readString(name string) (string, error) {
	b, err := os.ReadFile(name)
	return strings.TrimSpace(string(b)), err
}

// copyCache copies a file:// binary cache, for editing.
func copyCache(t *testing.T, from, to string) string {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
	return to
}

// narinfoName is the narinfo of a store path in a file:// cache.
func narinfoName(cache, storePath string) string {
	return filepath.Join(cache, strings.TrimPrefix(storePath, "/nix/store/")[:32]+".narinfo")
}

// readNarinfo is a narinfo's fields.
func readNarinfo(t *testing.T, cache, storePath string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(narinfoName(cache, storePath))
	if err != nil {
		t.Fatal(err)
	}
	f := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		k, v, ok := strings.Cut(line, ":")
		v = strings.TrimPrefix(v, " ")
		if !ok {
			t.Fatalf("%s: %q", narinfoName(cache, storePath), line)
		}
		f[k] = v
	}
	return f
}

// editNarinfo rewrites a narinfo's fields.
func editNarinfo(t *testing.T, cache, storePath string, edit func(map[string]string)) {
	t.Helper()
	f := readNarinfo(t, cache, storePath)
	edit(f)
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(f)) {
		fmt.Fprintf(&b, "%s: %s\n", k, f[k])
	}
	if err := os.WriteFile(narinfoName(cache, storePath), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
