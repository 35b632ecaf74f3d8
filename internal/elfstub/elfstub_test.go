package elfstub

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
)

// sample is a library description covering every kind of symbol, a hidden
// (non-default) version, an inherited version and a base version named
// like a version node (as NVIDIA's libraries have).
func sample() *Library {
	return &Library{
		Machine: elf.EM_AARCH64, ByteOrder: binary.LittleEndian, SOName: "libdemo.so.1", Versioned: true,
		Versions: []Version{
			{Name: "libdemo.so.1", Flags: uint16(elf.VER_FLG_BASE)},
			{Name: "libdemo.so.1"},
			{Name: "DEMO_2", Deps: []string{"libdemo.so.1"}},
		},
		Symbols: []Symbol{
			{Name: "demoCreate", Kind: Func, Bind: elf.STB_GLOBAL, Size: 120, VerIndex: 2, Version: "libdemo.so.1"},
			{Name: "demoCreate", Kind: Func, Bind: elf.STB_GLOBAL, Size: 12, VerIndex: 3, Version: "DEMO_2"},
			{Name: "demoOld", Kind: Func, Bind: elf.STB_GLOBAL, VerIndex: 2, Version: "libdemo.so.1", Hidden: true},
			{Name: "demoWeak", Kind: Func, Bind: elf.STB_WEAK, VerIndex: 3, Version: "DEMO_2"},
			{
				Name:       "demoProtected",
				Kind:       Func,
				Bind:       elf.STB_GLOBAL,
				Visibility: elf.STV_PROTECTED,
				VerIndex:   3,
				Version:    "DEMO_2",
			},
			{
				Name:     "demoTable",
				Kind:     Object,
				Storage:  ReadOnly,
				Bind:     elf.STB_GLOBAL,
				Size:     40,
				VerIndex: 2,
				Version:  "libdemo.so.1",
			},
			{
				Name:     "demoCounter",
				Kind:     Object,
				Storage:  Data,
				Bind:     elf.STB_GLOBAL,
				Size:     4,
				VerIndex: 2,
				Version:  "libdemo.so.1",
			},
			{
				Name:     "demoScratch",
				Kind:     Object,
				Storage:  Bss,
				Bind:     elf.STB_GLOBAL,
				Size:     4096,
				VerIndex: 2,
				Version:  "libdemo.so.1",
			},
			{Name: "demoTLSData", Kind: TLS, Storage: Data, Bind: elf.STB_GLOBAL, Size: 8, VerIndex: 2, Version: "libdemo.so.1"},
			{Name: "demoTLSBss", Kind: TLS, Storage: Bss, Bind: elf.STB_GLOBAL, Size: 24, VerIndex: 2, Version: "libdemo.so.1"},
			{Name: "DEMO_2", Kind: Abs, Bind: elf.STB_GLOBAL, VerIndex: 3, Version: "DEMO_2"},
		},
	}
}

func roundTrip(t *testing.T, lib *Library) ([]byte, *Library) {
	t.Helper()
	b, err := Write(lib)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("reading the stub back: %v", err)
	}
	return b, got
}

func TestWriteReadRoundTrip(t *testing.T) {
	want := sample()
	sortSymbols(want.Symbols)
	b, got := roundTrip(t, want)
	if got.SOName != want.SOName || got.Machine != want.Machine || !reflect.DeepEqual(got.Versions, want.Versions) {
		t.Errorf(
			"header/versions: got %s %v %+v, want %s %v %+v",
			got.SOName,
			got.Machine,
			got.Versions,
			want.SOName,
			want.Machine,
			want.Versions,
		)
	}
	if !reflect.DeepEqual(got.Exports(), want.Exports()) {
		t.Errorf("exports:\n got %v\nwant %v", got.Exports(), want.Exports())
	}
	for i, s := range got.Symbols {
		w := want.Symbols[i]
		if s.Kind != w.Kind || s.Bind != w.Bind || s.Visibility != w.Visibility ||
			s.Storage != w.Storage && (s.Kind == Object || s.Kind == TLS) {
			t.Errorf(
				"symbol %s: got %v/%v/%v/%v, want %v/%v/%v/%v",
				s.Name,
				s.Kind,
				s.Bind,
				s.Visibility,
				s.Storage,
				w.Kind,
				w.Bind,
				w.Visibility,
				w.Storage,
			)
		}
		if (s.Kind == Object || s.Kind == TLS) && s.Size != w.Size {
			t.Errorf("symbol %s: size %d, want %d", s.Name, s.Size, w.Size)
		}
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if needed, _ := f.DynString(elf.DT_NEEDED); len(needed) != 0 {
		t.Errorf("DT_NEEDED %v in a stub", needed)
	}
	for _, tag := range []elf.DynTag{elf.DT_HASH, elf.DT_GNU_HASH, elf.DT_VERSYM, elf.DT_VERDEF} {
		if v, err := f.DynValue(tag); err != nil || len(v) != 1 {
			t.Errorf("%v: %v %v", tag, v, err)
		}
	}
	if f.Section(".gnu.version_d") == nil || f.Section(".gnu.version") == nil {
		t.Error("no version sections")
	}
	if p := f.Progs; len(p) < 4 || p[0].Type != elf.PT_LOAD || p[1].Type != elf.PT_LOAD {
		t.Errorf("program headers: %v", p)
	}
}

// TestHashTables looks every symbol up through DT_HASH and DT_GNU_HASH
// the way ld.so does.
func TestHashTables(t *testing.T) {
	b, err := Write(sample())
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	hs, _ := f.Section(".hash").Data()
	nb, nc := le.Uint32(hs), le.Uint32(hs[4:])
	if int(nc) != len(syms)+1 {
		t.Fatalf(".hash nchain %d, want %d", nc, len(syms)+1)
	}
	gs, _ := f.Section(".gnu.hash").Data()
	gnb, symoff, maskwords, shift := le.Uint32(gs), le.Uint32(gs[4:]), le.Uint32(gs[8:]), le.Uint32(gs[12:])
	bloom := gs[16 : 16+8*maskwords]
	gbuckets := gs[16+8*maskwords:]
	chain := gbuckets[4*gnb:]
	for i, s := range syms {
		idx := uint32(i + 1) // DynamicSymbols drops the null symbol
		found := false
		for j := le.Uint32(hs[8+4*(elfHash(s.Name)%nb):]); j != 0; j = le.Uint32(hs[8+4*nb+4*j:]) {
			if j == idx {
				found = true
			}
		}
		if !found {
			t.Errorf("%s not found through DT_HASH", s.Name)
		}
		h := gnuHash(s.Name)
		word := le.Uint64(bloom[8*((h/64)%maskwords):])
		if word&(1<<(h%64)) == 0 || word&(1<<((h>>shift)%64)) == 0 {
			t.Errorf("%s: GNU hash bloom filter misses it", s.Name)
		}
		found = false
		for j := le.Uint32(gbuckets[4*(h%gnb):]); j != 0 && j >= symoff; j++ {
			c := le.Uint32(chain[4*(j-symoff):])
			if c|1 == h|1 && j == idx {
				found = true
			}
			if c&1 != 0 {
				break
			}
		}
		if !found {
			t.Errorf("%s not found through DT_GNU_HASH", s.Name)
		}
	}
}

func TestWriteDeterministic(t *testing.T) {
	a, err := Write(sample())
	if err != nil {
		t.Fatal(err)
	}
	// The same library with its symbols in another order.
	lib := sample()
	for i, j := 0, len(lib.Symbols)-1; i < j; i, j = i+1, j-1 {
		lib.Symbols[i], lib.Symbols[j] = lib.Symbols[j], lib.Symbols[i]
	}
	b, err := Write(lib)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("the stub's bytes depend on the order of the symbols")
	}
	// Stub of the stub: the same bytes.
	_, back := roundTrip(t, sample())
	c, err := Write(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, c) {
		t.Error("a stub of the stub differs from the stub")
	}
}

func TestWriteMachines(t *testing.T) {
	for _, c := range []struct {
		m  elf.Machine
		bo binary.ByteOrder
	}{
		{elf.EM_AARCH64, binary.LittleEndian},
		{elf.EM_AARCH64, binary.BigEndian},
		{elf.EM_X86_64, binary.LittleEndian},
		{elf.EM_PPC64, binary.BigEndian},
	} {
		lib := sample()
		lib.Machine, lib.ByteOrder = c.m, c.bo
		_, got := roundTrip(t, lib)
		if got.Machine != c.m || got.ByteOrder != c.bo || len(got.Symbols) != len(lib.Symbols) {
			t.Errorf("%v %v: read back %v %v with %d symbols", c.m, c.bo, got.Machine, got.ByteOrder, len(got.Symbols))
		}
	}
	lib := sample()
	lib.Machine = elf.EM_MIPS
	if _, err := Write(lib); err == nil || !strings.Contains(err.Error(), "EM_MIPS") {
		t.Errorf("unknown machine: %v", err)
	}
}

func TestReadRejects(t *testing.T) {
	good, err := Write(sample())
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	cases := map[string]struct {
		edit func([]byte) []byte
		want string
	}{
		"not ELF":    {func(b []byte) []byte { return []byte("!<arch>\nnot a library") }, "not an ELF file"},
		"empty":      {func(b []byte) []byte { return nil }, "not an ELF file"},
		"truncated":  {func(b []byte) []byte { return b[:200] }, "not an ELF file"},
		"executable": {func(b []byte) []byte { le.PutUint16(b[16:], uint16(elf.ET_EXEC)); return b }, "not a shared object"},
		"32-bit":     {func(b []byte) []byte { b[4] = byte(elf.ELFCLASS32); return b }, ""},
		"huge dynsym": {func(b []byte) []byte {
			f, _ := elf.NewFile(bytes.NewReader(b))
			for i, s := range f.Sections {
				if s.Type == elf.SHT_DYNSYM {
					shoff := le.Uint64(b[40:])
					le.PutUint64(b[shoff+uint64(64*i)+32:], 1<<40)
				}
			}
			return b
		}, "limit"},
		"version bomb": {func(b []byte) []byte {
			// Each definition claims 65535 names, its aux chain (next 0)
			// repeating one: debug/elf would build them all.
			f, _ := elf.NewFile(bytes.NewReader(b))
			d := f.Section(".gnu.version_d")
			for i := d.Offset; i < d.Offset+d.Size; {
				le.PutUint16(b[i+6:], 0xffff)
				next := le.Uint32(b[i+16:])
				if next == 0 {
					break
				}
				i += uint64(next)
			}
			return b
		}, "version entries"},
		"no SONAME": {func(b []byte) []byte {
			f, _ := elf.NewFile(bytes.NewReader(b))
			d := f.Section(".dynamic")
			le.PutUint64(b[d.Offset:], uint64(elf.DT_DEBUG)) // the first entry is DT_SONAME
			return b
		}, "DT_SONAME"},
	}
	for name, c := range cases {
		b := c.edit(bytes.Clone(good))
		_, err := Read(bytes.NewReader(b), int64(len(b)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}

func TestWriteRejects(t *testing.T) {
	lib := sample()
	lib.Symbols[0].VerIndex = 9
	if _, err := Write(lib); err == nil || !strings.Contains(err.Error(), "version index 9") {
		t.Errorf("bad version index: %v", err)
	}
	lib = sample()
	lib.SOName = ""
	if _, err := Write(lib); err == nil {
		t.Error("no SONAME: no error")
	}
	lib = sample()
	lib.Symbols = append(
		lib.Symbols,
		Symbol{Name: "huge", Kind: Object, Storage: ReadOnly, Size: MaxFileBytes + 1, VerIndex: 2},
	)
	if _, err := Write(lib); err == nil || !strings.Contains(err.Error(), "exceed") {
		t.Errorf("huge read-only object: %v", err)
	}
	lib = sample()
	lib.Symbols = append(
		lib.Symbols,
		Symbol{Name: "hugebss", Kind: Object, Storage: Bss, Size: MaxObjectSize, VerIndex: 2},
	)
	if _, err := Write(lib); err != nil {
		t.Errorf("a huge .bss object costs no file bytes: %v", err)
	}
}

// TestZeroSizeSymbols: an object or TLS variable of size 0 alone in its
// storage class (found by FuzzRead) still gets a section, so the stub
// exports it instead of writing it as undefined.
func TestZeroSizeSymbols(t *testing.T) {
	for _, c := range []struct {
		kind    Kind
		storage Storage
	}{{Object, Bss}, {Object, Data}, {Object, ReadOnly}, {TLS, Bss}, {TLS, Data}} {
		t.Run(c.kind.String()+"/"+[]string{"bss", "data", "rodata"}[c.storage], func(t *testing.T) {
			lib := &Library{Machine: elf.EM_AARCH64, ByteOrder: binary.LittleEndian, SOName: "libzero.so.1",
				Symbols: []Symbol{
					{Name: "zero", Kind: c.kind, Storage: c.storage, Bind: elf.STB_GLOBAL},
					{Name: "zeroFunc", Kind: Func, Bind: elf.STB_GLOBAL},
				}}
			_, got := roundTrip(t, lib)
			if !reflect.DeepEqual(got.Exports(), lib.Exports()) {
				t.Fatalf("exports %v, want %v", got.Exports(), lib.Exports())
			}
			for _, s := range got.Symbols {
				if s.Name == "zero" && (s.Kind != c.kind || s.Size != 0) {
					t.Errorf("zero: kind %v size %d, want %v size 0", s.Kind, s.Size, c.kind)
				}
			}
		})
	}
}
