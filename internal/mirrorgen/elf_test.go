package mirrorgen

import (
	"bytes"
	"debug/elf"
	"io/fs"
	"sort"
	"strings"
	"testing"

	"github.com/debredist/debredist/internal/deb/debtest"
)

// TestELFFixtures: every executable and library a template writes has a
// committed fixture (data/elf) that is what it claims: an aarch64
// executable with the glibc interpreter and a dynamic section, or a shared
// library whose SONAME is the one the template gives it, exporting
// functions, objects and TLS variables under versions; each has exactly
// the NEEDED entries data/needed.json lists, in order, and says where the
// list was read; data/elf and data/needed.json hold nothing else.
func TestELFFixtures(t *testing.T) {
	want, err := ELFFixtures()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 200 {
		t.Fatalf("only %d ELF fixtures", len(want))
	}
	data, err := neededData()
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	var names []string
	for _, f := range want {
		names = append(names, f.Path)
		used[f.Path] = true
		if f.From == "" {
			t.Errorf("%s: data/needed.json does not say where its NEEDED list was read", f.Path)
		}
		e, err := elf.NewFile(bytes.NewReader(elfFixture(f.Path)))
		if err != nil {
			t.Errorf("%s: %v", f.Path, err)
			continue
		}
		if e.Machine != elf.EM_AARCH64 || e.Class != elf.ELFCLASS64 {
			t.Errorf("%s: %v %v", f.Path, e.Machine, e.Class)
		}
		if needed, _ := e.DynString(elf.DT_NEEDED); strings.Join(needed, " ") != strings.Join(f.Needed, " ") {
			t.Errorf("%s: NEEDED %v, data/needed.json says %v (go generate ./internal/mirrorgen)", f.Path, needed, f.Needed)
		}
		if f.Executable() {
			if e.Type != elf.ET_EXEC || interp(e) != "/lib/ld-linux-aarch64.so.1" || e.Section(".dynamic") == nil {
				t.Errorf("%s: %v, interpreter %q: not an executable with a dynamic section", f.Path, e.Type, interp(e))
			}
			continue
		}
		if e.Type != elf.ET_DYN {
			t.Errorf("%s: %v", f.Path, e.Type)
		}
		if so, _ := e.DynString(elf.DT_SONAME); len(so) != 1 || so[0] != f.SOName {
			t.Errorf("%s: SONAME %v, want %s", f.Path, so, f.SOName)
		}
		syms, err := e.DynamicSymbols()
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[elf.SymType]int{}
		for _, s := range syms {
			if s.Section != elf.SHN_UNDEF && strings.HasPrefix(s.Name, f.SymbolPrefix()) && s.HasVersion && s.Version != "" {
				kinds[elf.ST_TYPE(s.Info)]++
			}
		}
		if kinds[elf.STT_FUNC] < 5 || kinds[elf.STT_OBJECT] < 3 || kinds[elf.STT_TLS] < 2 {
			t.Errorf("%s: versioned symbols by type %v", f.Path, kinds)
		}
	}
	for gen, m := range data {
		for name := range m {
			if !used[gen+"/"+name] {
				t.Errorf("data/needed.json: %s/%s: no template writes it", gen, name)
			}
		}
	}
	var have []string
	if err := fs.WalkDir(elfFS, "data/elf", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && p != "data/elf/README" {
			have = append(have, strings.TrimPrefix(p, "data/elf/"))
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(have)
	if strings.Join(have, " ") != strings.Join(names, " ") {
		t.Errorf("data/elf holds %v, templates need %v (go generate ./internal/mirrorgen)", have, names)
	}
}

// interp returns an ELF file's program interpreter, or "".
func interp(e *elf.File) string {
	for _, p := range e.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				return ""
			}
			return strings.TrimRight(string(b), "\x00")
		}
	}
	return ""
}

// TestELFFixturePayload: a generated deb carries the ELF object for a
// library, followed by the caller's payload only when it is not the
// default one.
func TestELFFixturePayload(t *testing.T) {
	s, err := loadSuite("r36.5")
	if err != nil {
		t.Fatal(err)
	}
	pi, err := s.info("common", "libcublas-12-6")
	if err != nil {
		t.Fatal(err)
	}
	lib := "usr/local/cuda-12.6/targets/aarch64-linux/lib/libcublas.so.12.6.1.4"
	body := func(fs []debtest.File) []byte {
		for _, f := range fs {
			if f.Name == lib {
				return f.Body
			}
		}
		t.Fatalf("%s not in the deb", lib)
		return nil
	}
	def := body(pi.build().files(DefaultPayload, DefaultSizeOf))
	if !bytes.Equal(def, elfFixture("cuda12/libcublas.so.12")) {
		t.Errorf("default payload of %s is not the ELF fixture", lib)
	}
	custom := body(pi.build().files(func(pkg, p string, size int64) []byte { return []byte("changed") }, DefaultSizeOf))
	if !bytes.Equal(custom, append(elfFixture("cuda12/libcublas.so.12"), "changed"...)) {
		t.Errorf("custom payload of %s: %q…", lib, custom[:16])
	}
}
