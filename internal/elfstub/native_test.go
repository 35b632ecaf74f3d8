package elfstub

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/testutil"
)

const nativeLib = `
int demoRun(int x) { return x + 100; }
int demoRun_old(int x) { return x + 50; }
__asm__(".symver demoRun_old, demoRunOld@LIBDEMO_OLD");
int demoCounter = 42;
const int demoTable[4] = {1, 2, 3, 4};
char demoBuf[256];
__thread int demoTLS = 9;
__thread int demoTLSZero;
`

const nativeMap = `LIBDEMO_OLD { };
LIBDEMO_1 { global: demoRun; demoCounter; demoTable; demoBuf; demoTLS; demoTLSZero; local: *; } LIBDEMO_OLD;
`

const nativeMain = `#define _GNU_SOURCE
#include <stdio.h>
#include <dlfcn.h>
extern int demoRun(int); extern int demoCounter; extern const int demoTable[4]; extern char demoBuf[256];
extern __thread int demoTLS; extern __thread int demoTLSZero;
int main(void) {
	void *h = dlopen("libdemo.so.1", RTLD_NOW);
	int (*old)(int) = h ? (int (*)(int))dlvsym(h, "demoRunOld", "LIBDEMO_OLD") : 0;
	printf("%d %d %d %d %d %d %d\n", demoRun(1), demoCounter, demoTable[2], demoBuf[7], demoTLS, demoTLSZero, ` +
	`old ? old(1) : -1);
	return 0;
}
`

// TestStubLoadsNatively checks the stub's layout with the host's real
// dynamic loader (the code is machine-agnostic, so a stub of a host
// library runs here): a program linked against the stub of a gcc-built
// library with versions, objects and TLS starts, binds every symbol
// eagerly (DT_GNU_HASH/DT_HASH lookups, version checks, copy relocations,
// TLS) and sees functions returning 1 and zero-filled data, and dlvsym
// finds the non-default version. The same program against the real
// library is the control.
func TestStubLoadsNatively(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skipf("no stub body for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	gcc := testutil.RequireTool(t, "gcc")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	realDir, stubDir := filepath.Join(dir, "real"), filepath.Join(dir, "stub")
	for _, d := range []string{realDir, stubDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	realLib := filepath.Join(realDir, "libdemo.so.1")
	gccRun(t, gcc, "-shared", "-fPIC", "-O2", "-o", realLib, "-Wl,-soname,libdemo.so.1",
		"-Wl,--version-script,"+write("lib.map", nativeMap), write("lib.c", nativeLib))
	b, err := os.ReadFile(realLib)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	stub, err := Write(lib)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"libdemo.so", "libdemo.so.1"} {
		if err := os.WriteFile(filepath.Join(stubDir, name), stub, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	prog := filepath.Join(dir, "prog")
	gccRun(t, gcc, "-Wall", "-Werror", "-o", prog, write("main.c", nativeMain), "-L"+stubDir, "-ldemo", "-Wl,-z,now")
	for _, c := range []struct{ libDir, want string }{
		{realDir, "101 42 3 0 9 0 51"},
		{stubDir, "1 0 0 0 0 0 1"},
	} {
		cmd := exec.Command(prog)
		cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+c.libDir, "LD_BIND_NOW=1")
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != c.want {
			t.Errorf("with %s: %v: %q, want %q", filepath.Base(c.libDir), err, out, c.want)
		}
	}
}

func gccRun(t *testing.T, gcc string, args ...string) {
	t.Helper()
	if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
