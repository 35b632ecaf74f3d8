package elfstub

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// RealLibsEnv names a directory holding NVIDIA's real CUDA libraries and
// NVIDIA's own stubs/ beside them: usr/lib/aarch64-linux-gnu of Debian's
// non-free arm64 CUDA debs extracted together (scripts/realstubs.sh).
const RealLibsEnv = "DEBREDIST_REAL_CUDA_LIBS"

// TestRealNVIDIAStubs synthesizes the stub of every real library whose
// NVIDIA stub lies in stubs/ and compares the exported symbol@version sets:
// every symbol of ours must be in NVIDIA's stub (we export exactly what the
// real library exports; NVIDIA's stubs are made from export lists and may
// name more), with the same SONAME; libcusparse must match exactly (482
// symbols in CUDA 11.8). With nm on PATH the comparison is also made on
// `nm -D --defined-only --with-symbol-versions` lines (class, name@version).
// Skipped unless $DEBREDIST_REAL_CUDA_LIBS is set: the real debs are
// 1.1 GB and not part of the repository.
func TestRealNVIDIAStubs(t *testing.T) {
	dir := os.Getenv(RealLibsEnv)
	if dir == "" {
		t.Skipf("$%s is not set (see scripts/realstubs.sh)", RealLibsEnv)
	}
	stubs, err := filepath.Glob(filepath.Join(dir, "stubs", "*.so"))
	if err != nil || len(stubs) == 0 {
		t.Fatalf("no NVIDIA stubs under %s/stubs: %v", dir, err)
	}
	nm, _ := exec.LookPath("aarch64-linux-gnu-nm")
	gcc, _ := exec.LookPath("aarch64-linux-gnu-gcc")
	compared := 0
	for _, nvStub := range stubs {
		name := filepath.Base(nvStub)
		real, err := filepath.EvalSymlinks(filepath.Join(dir, name))
		if err != nil {
			t.Logf("%-18s no real library in these debs (%v)", name, err)
			continue
		}
		ours, lib := stubOf(t, real)
		theirs := readFile(t, nvStub)
		mine := lib.Exports()
		nv := theirs.Exports()
		extra, missing := diff(mine, nv)
		t.Logf("%-18s real %s: ours %d symbols, NVIDIA's stub %d, common %d, only ours %d, only NVIDIA's %d",
			name, filepath.Base(real), len(mine), len(nv), len(mine)-len(extra), len(extra), len(missing))
		if theirs.SOName != lib.SOName {
			t.Errorf("%s: SONAME %s, NVIDIA's stub has %s", name, lib.SOName, theirs.SOName)
		}
		if len(extra) > 0 {
			t.Errorf("%s: our stub exports %d symbols NVIDIA's does not: %v", name, len(extra), head(extra))
		}
		if len(missing) > 0 {
			t.Logf("%-18s only in NVIDIA's stub (not exported by the real library): %v", "", head(missing))
		}
		if name == "libcusparse.so" && (len(missing) > 0 || len(mine) != 482) {
			t.Errorf("libcusparse: %d symbols, %d missing; want exactly NVIDIA's 482", len(mine), len(missing))
		}
		if nm != "" {
			tmp := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(tmp, ours, 0o644); err != nil {
				t.Fatal(err)
			}
			a, b := nmLines(t, nm, tmp), nmLines(t, nm, nvStub)
			if x, _ := diff(a, b); len(x) > 0 {
				t.Errorf("%s: nm lines of our stub missing from NVIDIA's: %v", name, head(x))
			}
			if r := nmLines(t, nm, real); !slices.Equal(a, r) {
				t.Errorf("%s: nm of our stub differs from nm of the real library", name)
			}
		}
		if gcc != "" && name == "libcusparse.so" {
			linkAgainst(t, gcc, ours, "cusparse", "cusparseCreate", lib.SOName)
		}
		compared++
	}
	if compared == 0 {
		t.Fatal("no real library to compare")
	}
}

// linkAgainst links a program calling fn with gcc against stub (as
// lib<name>.so in a directory of its own) and checks with readelf that the
// program records soname as NEEDED: the stub does its one job.
func linkAgainst(t *testing.T, gcc string, stub []byte, name, fn, soname string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib"+name+".so"), stub, 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "main.c")
	prog := "int " + fn + "(void *);\nint main(void) { return " + fn + "((void *)0); }\n"
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "main")
	if out, err := exec.Command(gcc, "-o", exe, src, "-L"+dir, "-l"+name).CombinedOutput(); err != nil {
		t.Fatalf("linking against our lib%s.so stub: %v\n%s", name, err, out)
	}
	readelf := strings.TrimSuffix(gcc, "gcc") + "readelf"
	out, err := exec.Command(readelf, "-d", exe).CombinedOutput()
	if err != nil {
		t.Fatalf("%s -d: %v\n%s", readelf, err, out)
	}
	if !strings.Contains(string(out), "(NEEDED)") || !strings.Contains(string(out), "["+soname+"]") {
		t.Errorf("program linked against our lib%s.so stub does not need %s:\n%s", name, soname, out)
	}
	t.Logf("%-18s a program calling %s links against our stub and needs %s", "lib"+name+".so", fn, soname)
}

func stubOf(t *testing.T, path string) ([]byte, *Library) {
	t.Helper()
	lib := readFile(t, path)
	b, err := Write(lib)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b, lib
}

func readFile(t *testing.T, path string) *Library {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := Read(f, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return lib
}

// diff returns the sorted elements only in a and only in b.
func diff(a, b []string) (onlyA, onlyB []string) {
	in := func(s []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range s {
			m[x] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	for x := range ma {
		if !mb[x] {
			onlyA = append(onlyA, x)
		}
	}
	for x := range mb {
		if !ma[x] {
			onlyB = append(onlyB, x)
		}
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return onlyA, onlyB
}

func head(s []string) []string {
	if len(s) > 5 {
		return append(s[:5:5], "…")
	}
	return s
}

// nmLines returns nm's "class name@version" lines, sorted, without addresses.
func nmLines(t *testing.T, nm, file string) []string {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(nm, "-D", "--defined-only", "--with-symbol-versions", file)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("nm %s: %v\n%s", file, err, errb.String())
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			lines = append(lines, f[1]+" "+f[2])
		}
	}
	sort.Strings(lines)
	return lines
}
