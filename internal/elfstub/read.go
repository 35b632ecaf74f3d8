package elfstub

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Limits on what Read accepts from an untrusted file. Real CUDA libraries
// stay far below them (libcublasLt: 1.3 MB of .dynsym).
const (
	// MaxTableBytes bounds each of .dynsym, .dynstr, .gnu.version,
	// .gnu.version_d and .dynamic.
	MaxTableBytes = 64 << 20
	// MaxSymbols bounds the exported symbols.
	MaxSymbols = 1 << 20
	// MaxObjectSize bounds one exported object's (or TLS variable's) size.
	MaxObjectSize = 1 << 32
	// MaxVersionEntries bounds the entries of .gnu.version_d and
	// .gnu.version_r, counting their aux entries: debug/elf expands each
	// entry's count even when a corrupt next offset repeats one name, so a
	// few hundred bytes could otherwise make it build billions.
	MaxVersionEntries = 1 << 16
)

// Kind says where a symbol's storage lives in the stub.
type Kind int

const (
	Func   Kind = iota // a function: a tiny body in .text
	Object             // zero-filled storage (.data, .rodata or .bss)
	TLS                // zero-filled thread-local storage (.tdata or .tbss)
	Abs                // an absolute symbol (value kept, no storage)
	NoType             // a defined symbol of no type (a linker marker)
)

var kindNames = [...]string{"func", "object", "tls", "abs", "notype"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Storage places objects and TLS variables like the real library does, so
// that nm shows the same symbol class (B/D/R).
type Storage int

const (
	Bss      Storage = iota // no file bytes (.bss, .tbss, common)
	Data                    // writable (.data, .tdata)
	ReadOnly                // read-only (.rodata)
)

// Symbol is one exported (defined, non-local, visible) dynamic symbol.
type Symbol struct {
	Name       string
	Kind       Kind
	Storage    Storage
	Bind       elf.SymBind
	Visibility elf.SymVis
	// Size is the object's or TLS variable's size (functions: the real
	// size, for information; the stub's body is the same tiny one).
	Size uint64
	// Value is kept for Abs symbols only.
	Value uint64
	// VerIndex is the symbol's .gnu.version index without the hidden
	// bit: 0 (local) or 1 (global) or i+1 for Versions[i].
	VerIndex uint16
	// Version is the name of Versions[VerIndex-1] for VerIndex >= 2 (two
	// definitions may share a name: the base one and a version script
	// node named like the SONAME), "" otherwise.
	Version string
	Hidden  bool // sym@VER (not the default sym@@VER)
}

// Version is one version definition (.gnu.version_d entry).
type Version struct {
	Name  string
	Flags uint16 // VER_FLG_BASE, VER_FLG_WEAK
	// Deps names the versions this one inherits from (verdaux 2..n).
	Deps []string
}

// Library is what a stub needs of a real shared library.
type Library struct {
	Machine   elf.Machine
	ByteOrder binary.ByteOrder
	OSABI     elf.OSABI
	ABIVer    uint8
	Flags     uint32 // e_flags
	SOName    string
	// Versions are the version definitions in index order (index i+1);
	// empty when the library has no .gnu.version_d.
	Versions []Version
	// Symbols are sorted by name, version, hidden.
	Symbols []Symbol
	// Versioned says the library has a .gnu.version table.
	Versioned bool
}

// Read reads a 64-bit ELF shared object. r must hold the whole file
// (size bytes); only the headers and the dynamic tables are read.
func Read(r io.ReaderAt, size int64) (*Library, error) {
	f, err := elf.NewFile(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, fmt.Errorf("not an ELF file: %w", err)
	}
	// f holds nothing to close: NewFile opened no file.
	if f.Class != elf.ELFCLASS64 {
		return nil, fmt.Errorf("ELF class %v: only ELFCLASS64 libraries are supported", f.Class)
	}
	if f.Type != elf.ET_DYN {
		return nil, fmt.Errorf("ELF type %v: not a shared object", f.Type)
	}
	var dynsym, verdef *elf.Section
	check := func(s *elf.Section) error {
		if s.Type == elf.SHT_NOBITS {
			return fmt.Errorf("section %s has no file bytes", s.Name)
		}
		if s.Size > MaxTableBytes {
			return fmt.Errorf("section %s is %d bytes (limit %d)", s.Name, s.Size, MaxTableBytes)
		}
		if s.Offset > uint64(size) || s.Size > uint64(size)-s.Offset {
			return fmt.Errorf("section %s lies outside the file", s.Name)
		}
		return nil
	}
	// Every table Read (through debug/elf) loads, and the string tables
	// they link to, is bounded before it is read.
	for _, s := range f.Sections {
		switch s.Type {
		case elf.SHT_DYNSYM, elf.SHT_GNU_VERSYM, elf.SHT_GNU_VERDEF, elf.SHT_GNU_VERNEED, elf.SHT_DYNAMIC:
			if err := check(s); err != nil {
				return nil, err
			}
			if s.Type != elf.SHT_GNU_VERSYM {
				if int(s.Link) >= len(f.Sections) {
					return nil, fmt.Errorf("section %s links to section %d of %d", s.Name, s.Link, len(f.Sections))
				}
				if err := check(f.Sections[s.Link]); err != nil {
					return nil, err
				}
			}
		}
		switch s.Type {
		case elf.SHT_DYNSYM:
			dynsym = s
		case elf.SHT_GNU_VERDEF:
			verdef = s
		}
		if s.Type == elf.SHT_GNU_VERDEF || s.Type == elf.SHT_GNU_VERNEED {
			if err := checkVersionTable(s, f.ByteOrder); err != nil {
				return nil, err
			}
		}
	}
	if dynsym == nil {
		return nil, errors.New("no dynamic symbol table (.dynsym)")
	}
	if dynsym.Size/24 > MaxSymbols {
		return nil, fmt.Errorf(".dynsym holds %d symbols (limit %d)", dynsym.Size/24, MaxSymbols)
	}
	sonames, err := f.DynString(elf.DT_SONAME)
	if err != nil {
		return nil, fmt.Errorf("reading DT_SONAME: %w", err)
	}
	if len(sonames) != 1 || sonames[0] == "" {
		return nil, fmt.Errorf("want exactly one DT_SONAME, found %d", len(sonames))
	}
	lib := &Library{Machine: f.Machine, ByteOrder: f.ByteOrder, OSABI: f.OSABI, ABIVer: f.ABIVersion, SOName: sonames[0]}
	if err := readFlags(r, lib); err != nil {
		return nil, err
	}
	if verdef != nil {
		vs, err := f.DynamicVersions()
		if err != nil {
			return nil, fmt.Errorf("reading .gnu.version_d: %w", err)
		}
		for i, v := range vs {
			if int(v.Index) != i+1 {
				return nil, fmt.Errorf(
					".gnu.version_d: version %q has index %d, want %d (indexes must be dense)",
					v.Name,
					v.Index,
					i+1,
				)
			}
			lib.Versions = append(lib.Versions, Version{Name: v.Name, Flags: uint16(v.Flags), Deps: v.Deps})
		}
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return nil, fmt.Errorf("reading .dynsym: %w", err)
	}
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF || elf.ST_BIND(s.Info) == elf.STB_LOCAL {
			continue
		}
		vis := elf.ST_VISIBILITY(s.Other)
		if vis == elf.STV_HIDDEN || vis == elf.STV_INTERNAL {
			continue
		}
		sym := Symbol{Name: s.Name, Bind: elf.ST_BIND(s.Info), Visibility: vis, Size: s.Size}
		if sym.Name == "" {
			return nil, errors.New(".dynsym: a defined global symbol has no name")
		}
		switch t := elf.ST_TYPE(s.Info); {
		case s.Section == elf.SHN_ABS && t != elf.STT_TLS:
			sym.Kind, sym.Value, sym.Size = Abs, s.Value, 0
		case t == elf.STT_FUNC || t == elf.STT_GNU_IFUNC:
			sym.Kind = Func
		case t == elf.STT_OBJECT || t == elf.STT_COMMON:
			sym.Kind = Object
		case t == elf.STT_TLS:
			sym.Kind = TLS
		case t == elf.STT_NOTYPE:
			sym.Kind, sym.Size = NoType, 0
		default:
			continue // section and file symbols
		}
		if sym.Kind == Object || sym.Kind == TLS {
			if sym.Size > MaxObjectSize {
				return nil, fmt.Errorf("symbol %s: size %d exceeds %d", sym.Name, sym.Size, uint64(MaxObjectSize))
			}
			sym.Storage = storage(f, s.Section)
		}
		if s.HasVersion {
			lib.Versioned = true
			idx := s.VersionIndex.Index()
			sym.Hidden = s.VersionIndex.IsHidden()
			sym.VerIndex = idx
			switch {
			case idx <= 1:
			case int(idx) <= len(lib.Versions):
				sym.Version = lib.Versions[idx-1].Name
			default:
				return nil, fmt.Errorf("symbol %s: version index %d names no version definition", sym.Name, idx)
			}
		}
		lib.Symbols = append(lib.Symbols, sym)
	}
	if !lib.Versioned {
		lib.Versions = nil
	}
	sortSymbols(lib.Symbols)
	return lib, nil
}

// checkVersionTable walks a .gnu.version_d or .gnu.version_r chain the way
// debug/elf does and rejects it when it would expand to more than
// MaxVersionEntries entries.
func checkVersionTable(s *elf.Section, bo binary.ByteOrder) error {
	d, err := s.Data()
	if err != nil {
		return fmt.Errorf("reading %s: %w", s.Name, err)
	}
	hdr, cntAt, nextAt := 20, 6, 16 // Elf64_Verdef
	if s.Type == elf.SHT_GNU_VERNEED {
		hdr, cntAt, nextAt = 16, 2, 12 // Elf64_Verneed
	}
	n := 0
	for i := 0; i+hdr <= len(d); {
		n += 1 + int(bo.Uint16(d[i+cntAt:]))
		if n > MaxVersionEntries {
			return fmt.Errorf("%s expands to more than %d version entries", s.Name, MaxVersionEntries)
		}
		next := bo.Uint32(d[i+nextAt:])
		if next == 0 {
			break
		}
		i += int(next)
	}
	return nil
}

// readFlags reads e_flags, which debug/elf does not expose.
func readFlags(r io.ReaderAt, lib *Library) error {
	var b [4]byte
	if _, err := r.ReadAt(b[:], 48); err != nil { // e_flags of an ELF64 header
		return fmt.Errorf("reading e_flags: %w", err)
	}
	lib.Flags = lib.ByteOrder.Uint32(b[:])
	return nil
}

func storage(f *elf.File, idx elf.SectionIndex) Storage {
	if idx == elf.SHN_COMMON {
		return Bss
	}
	if int(idx) >= len(f.Sections) || idx >= elf.SHN_LORESERVE {
		return Data
	}
	s := f.Sections[idx]
	switch {
	case s.Type == elf.SHT_NOBITS:
		return Bss
	case s.Flags&elf.SHF_WRITE != 0:
		return Data
	}
	return ReadOnly
}

func sortSymbols(s []Symbol) {
	sort.Slice(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		if a.Hidden != b.Hidden {
			return !a.Hidden
		}
		return a.VerIndex < b.VerIndex
	})
}

// Exports returns the library's symbol@version set the way
// `nm -D --defined-only --with-symbol-versions` spells it:
// name@@VERSION for default versions, name@VERSION for hidden ones, the
// bare name for unversioned symbols.
func (l *Library) Exports() []string {
	out := make([]string, 0, len(l.Symbols))
	for _, s := range l.Symbols {
		switch {
		case s.Version == "":
			out = append(out, s.Name)
		case s.Hidden:
			out = append(out, s.Name+"@"+s.Version)
		default:
			out = append(out, s.Name+"@@"+s.Version)
		}
	}
	sort.Strings(out)
	return out
}
