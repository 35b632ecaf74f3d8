package elfstub

// THROWAWAY: records sha256 of Write's output for many inputs, to prove the
// refactor of writer.write keeps the bytes identical. Removed afterwards.

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestTmpGolden(t *testing.T) {
	outPath := os.Getenv("ELFSTUB_GOLDEN_OUT")
	if outPath == "" {
		t.Skip("ELFSTUB_GOLDEN_OUT not set")
	}
	var lines []string
	record := func(name string, lib *Library) {
		b, err := Write(lib)
		if err != nil {
			lines = append(lines, name+" ERR "+err.Error())
			return
		}
		s := sha256.Sum256(b)
		lines = append(lines, fmt.Sprintf("%s %s %d", name, hex.EncodeToString(s[:]), len(b)))
		// Stub of the stub too.
		back, err := Read(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			lines = append(lines, name+"/back READERR "+err.Error())
			return
		}
		b2, err := Write(back)
		if err != nil {
			lines = append(lines, name+"/back ERR "+err.Error())
			return
		}
		s = sha256.Sum256(b2)
		lines = append(lines, fmt.Sprintf("%s/back %s %d", name, hex.EncodeToString(s[:]), len(b2)))
	}
	readFileLib := func(p string) (*Library, error) {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		return Read(f, st.Size())
	}

	record("sample", sample())
	for _, c := range []struct {
		m  elf.Machine
		bo binary.ByteOrder
	}{{elf.EM_AARCH64, binary.LittleEndian}, {elf.EM_AARCH64, binary.BigEndian}, {elf.EM_X86_64, binary.LittleEndian},
		{elf.EM_PPC64, binary.BigEndian}, {elf.EM_PPC64, binary.LittleEndian}, {elf.EM_RISCV, binary.LittleEndian},
		{elf.EM_RISCV, binary.BigEndian}, {elf.EM_MIPS, binary.LittleEndian}} {
		lib := sample()
		lib.Machine, lib.ByteOrder = c.m, c.bo
		record(fmt.Sprintf("machine/%v/%v", c.m, c.bo), lib)
	}
	for _, c := range []struct {
		kind    Kind
		storage Storage
	}{{Object, Bss}, {Object, Data}, {Object, ReadOnly}, {TLS, Bss}, {TLS, Data}} {
		lib := &Library{Machine: elf.EM_AARCH64, ByteOrder: binary.LittleEndian, SOName: "libzero.so.1",
			Symbols: []Symbol{
				{Name: "zero", Kind: c.kind, Storage: c.storage, Bind: elf.STB_GLOBAL},
				{Name: "zeroFunc", Kind: Func, Bind: elf.STB_GLOBAL},
			}}
		record(fmt.Sprintf("zero/%v/%d", c.kind, c.storage), lib)
		lib2 := &Library{Machine: elf.EM_AARCH64, ByteOrder: binary.LittleEndian, SOName: "libzero.so.1",
			Symbols: []Symbol{{Name: "only", Kind: c.kind, Storage: c.storage, Bind: elf.STB_GLOBAL, Size: 12}}}
		record(fmt.Sprintf("only/%v/%d", c.kind, c.storage), lib2)
	}
	// Error cases.
	bad := sample()
	bad.Symbols[0].VerIndex = 9
	record("err/verindex", bad)
	bad = sample()
	bad.SOName = ""
	record("err/soname", bad)
	bad = sample()
	bad.Symbols = append(bad.Symbols, Symbol{Name: "huge", Kind: Object, Storage: ReadOnly, Size: MaxFileBytes + 1, VerIndex: 2})
	record("err/huge", bad)
	bad = sample()
	bad.Symbols = append(bad.Symbols, Symbol{Name: "hugebss", Kind: Object, Storage: Bss, Size: MaxObjectSize, VerIndex: 2})
	record("hugebss", bad)
	bad = sample()
	bad.Symbols = append(bad.Symbols, Symbol{Name: "badstorage", Kind: Object, Storage: 7, VerIndex: 2})
	record("err/storage", bad)
	bad = sample()
	bad.Symbols = append(bad.Symbols, Symbol{Name: "badkind", Kind: 77, VerIndex: 2})
	record("err/kind", bad)
	bad = sample()
	bad.Versions[1].Name = ""
	record("err/vername", bad)
	empty := &Library{Machine: elf.EM_AARCH64, ByteOrder: binary.LittleEndian, SOName: "libempty.so"}
	record("empty", empty)
	emptyV := &Library{Machine: elf.EM_AARCH64, ByteOrder: binary.LittleEndian, SOName: "libempty.so", Versioned: true}
	record("empty-versioned", emptyV)

	// Random libraries.
	r := rand.New(rand.NewSource(42))
	for n := 0; n < 400; n++ {
		lib := &Library{Machine: elf.EM_AARCH64, ByteOrder: binary.LittleEndian, SOName: fmt.Sprintf("librand%d.so.%d", n, r.Intn(5)),
			OSABI: elf.OSABI(r.Intn(4)), ABIVer: uint8(r.Intn(3)), Flags: uint32(r.Intn(3))}
		switch r.Intn(4) {
		case 1:
			lib.Machine, lib.ByteOrder = elf.EM_X86_64, binary.LittleEndian
		case 2:
			lib.Machine, lib.ByteOrder = elf.EM_PPC64, binary.BigEndian
		case 3:
			lib.Machine = elf.EM_RISCV
		}
		nv := r.Intn(5)
		lib.Versioned = r.Intn(2) == 0
		for i := 0; i < nv; i++ {
			v := Version{Name: fmt.Sprintf("V_%d", i)}
			if i == 0 {
				v.Name, v.Flags = lib.SOName, uint16(elf.VER_FLG_BASE)
			}
			for j := 0; j < i && r.Intn(3) == 0; j++ {
				v.Deps = append(v.Deps, fmt.Sprintf("V_%d", j))
			}
			lib.Versions = append(lib.Versions, v)
		}
		ns := r.Intn(60)
		if n%50 == 0 {
			ns = 500 + r.Intn(1500)
		}
		for i := 0; i < ns; i++ {
			s := Symbol{Name: fmt.Sprintf("sym%x_%d", r.Uint32(), r.Intn(3)), Bind: []elf.SymBind{elf.STB_GLOBAL, elf.STB_WEAK, elf.SymBind(10)}[r.Intn(3)],
				Visibility: elf.SymVis(r.Intn(4))}
			s.Kind = []Kind{Func, Func, Func, Object, TLS, NoType, Abs}[r.Intn(7)]
			s.Storage = Storage(r.Intn(3))
			s.Size = uint64(r.Intn(300))
			if r.Intn(10) == 0 {
				s.Size = uint64(r.Intn(70000))
			}
			if s.Kind == Abs {
				s.Value = uint64(r.Int63())
			}
			if nv > 1 && r.Intn(4) != 0 {
				s.VerIndex = uint16(2 + r.Intn(nv-1))
				s.Version = lib.Versions[s.VerIndex-1].Name
				s.Hidden = r.Intn(5) == 0
			} else {
				s.VerIndex = uint16(r.Intn(2))
			}
			lib.Symbols = append(lib.Symbols, s)
		}
		record(fmt.Sprintf("rand/%d", n), lib)
	}

	// Real libraries: the mirror fixtures and this machine's.
	var files []string
	fx, _ := filepath.Glob("../mirrorgen/data/elf/lib*")
	files = append(files, fx...)
	for _, pat := range []string{"/usr/lib/x86_64-linux-gnu/*.so*", "/usr/lib/x86_64-linux-gnu/*/*.so*", "/lib/x86_64-linux-gnu/*.so*", "/usr/lib/gcc/*/*/*.so*", "/usr/aarch64-linux-gnu/lib/*.so*"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	sort.Strings(files)
	seen := map[string]bool{}
	for _, f := range files {
		real, err := filepath.EvalSymlinks(f)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
			continue
		}
		lib, err := readFileLib(real)
		if err != nil {
			continue // not an ELF library we read: nothing to write
		}
		record("file/"+strings.TrimPrefix(real, "../"), lib)
	}
	if err := os.WriteFile(outPath, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d lines", len(lines))
}
