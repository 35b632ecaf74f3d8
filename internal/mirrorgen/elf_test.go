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

// TestELFFixtures: every library a template marks as an ELF fixture has a
// committed object (data/elf) whose SONAME is its file name, exporting
// functions, objects and TLS variables under versions; data/elf holds
// nothing else.
func TestELFFixtures(t *testing.T) {
	want, err := ELFFixtures()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 30 {
		t.Fatalf("only %d ELF fixtures", len(want))
	}
	var names []string
	for _, f := range want {
		names = append(names, f.SOName)
		b := elfFixture(f.SOName)
		e, err := elf.NewFile(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: %v", f.SOName, err)
			continue
		}
		if e.Machine != elf.EM_AARCH64 || e.Type != elf.ET_DYN {
			t.Errorf("%s: %v %v", f.SOName, e.Machine, e.Type)
		}
		if so, _ := e.DynString(elf.DT_SONAME); len(so) != 1 || so[0] != f.SOName {
			t.Errorf("%s: SONAME %v", f.SOName, so)
		}
		if needed, _ := e.DynString(elf.DT_NEEDED); len(needed) != 0 {
			t.Errorf("%s: NEEDED %v", f.SOName, needed)
		}
		syms, err := e.DynamicSymbols()
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[elf.SymType]int{}
		for _, s := range syms {
			if s.Section != elf.SHN_UNDEF && strings.HasPrefix(s.Name, FixtureSymbolPrefix(f.Base)) && s.HasVersion && s.Version != "" {
				kinds[elf.ST_TYPE(s.Info)]++
			}
		}
		if kinds[elf.STT_FUNC] < 5 || kinds[elf.STT_OBJECT] < 3 || kinds[elf.STT_TLS] < 2 {
			t.Errorf("%s: versioned symbols by type %v", f.SOName, kinds)
		}
	}
	var have []string
	ents, err := fs.ReadDir(elfFS, "data/elf")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "README" {
			have = append(have, e.Name())
		}
	}
	sort.Strings(have)
	if strings.Join(have, " ") != strings.Join(names, " ") {
		t.Errorf("data/elf holds %v, templates need %v (go generate ./internal/mirrorgen)", have, names)
	}
}

// TestELFFixturePayload: a generated deb carries the ELF object for a
// stubbed library, followed by the caller's payload only when it is not
// the default one.
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
	if !bytes.Equal(def, elfFixture("libcublas.so.12")) {
		t.Errorf("default payload of %s is not the ELF fixture", lib)
	}
	custom := body(pi.build().files(func(pkg, p string, size int64) []byte { return []byte("changed") }, DefaultSizeOf))
	if !bytes.Equal(custom, append(elfFixture("libcublas.so.12"), "changed"...)) {
		t.Errorf("custom payload of %s: %q…", lib, custom[:16])
	}
}
