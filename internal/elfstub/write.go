package elfstub

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// body is the machine code of every stub function: return 1 (an error
// code for every CUDA API: cudaErrorInvalidValue, CUBLAS_STATUS_NOT_INITIALIZED,
// …) without touching memory. Stubs exist to be linked against, not run.
type body struct {
	little, big []byte // code in each byte order (nil: not available)
	align       uint64
}

var bodies = map[elf.Machine]body{
	// mov w0, #1; ret
	elf.EM_AARCH64: {little: []byte{0x20, 0x00, 0x80, 0x52, 0xc0, 0x03, 0x5f, 0xd6}, big: []byte{0x52, 0x80, 0x00, 0x20, 0xd6, 0x5f, 0x03, 0xc0}, align: 8},
	// mov eax, 1; ret
	elf.EM_X86_64: {little: []byte{0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3, 0xcc, 0xcc}, align: 16},
	// li a0, 1; ret
	elf.EM_RISCV: {little: []byte{0x13, 0x05, 0x10, 0x00, 0x67, 0x80, 0x00, 0x00}, align: 8},
	// li r3, 1; blr
	elf.EM_PPC64: {little: []byte{0x01, 0x00, 0x60, 0x38, 0x20, 0x00, 0x80, 0x4e}, big: []byte{0x38, 0x60, 0x00, 0x01, 0x4e, 0x80, 0x00, 0x20}, align: 8},
}

// pageSize is the alignment of the two PT_LOAD segments: 64 KiB, the
// largest page size of aarch64 and ppc64 kernels, so the stub loads on any.
const pageSize = 0x10000

// MaxFileBytes bounds the stub (zero-filled .data/.rodata objects count).
const MaxFileBytes = 256 << 20

// Write returns a minimal ELF64 shared object exporting lib's SONAME,
// version definitions and symbols: functions as tiny bodies returning 1,
// objects and TLS variables as zero-filled storage of their size, no
// DT_NEEDED, no relocations, with DT_HASH and DT_GNU_HASH. The bytes are a
// function of lib only.
func Write(lib *Library) ([]byte, error) {
	b, ok := bodies[lib.Machine]
	code := b.little
	if lib.ByteOrder == binary.ByteOrder(binary.BigEndian) {
		code = b.big
	}
	if !ok || code == nil {
		return nil, fmt.Errorf("no stub function body for machine %v (%v)", lib.Machine, lib.ByteOrder)
	}
	if lib.SOName == "" {
		return nil, errors.New("library has no SONAME")
	}
	bo, ok := lib.ByteOrder.(order)
	if !ok {
		return nil, fmt.Errorf("unsupported byte order %v", lib.ByteOrder)
	}
	w := &writer{lib: lib, bo: bo, code: code, codeAlign: b.align}
	return w.write()
}

type section struct {
	name      string
	typ       elf.SectionType
	flags     elf.SectionFlag
	data      []byte
	size      uint64 // for NOBITS
	addr, off uint64
	align     uint64
	link      uint32
	info      uint32
	entsize   uint64
}

type order interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

type writer struct {
	lib       *Library
	bo        order
	code      []byte
	codeAlign uint64
}

// strtab builds a string table with each string once, in insertion order.
type strtab struct {
	buf bytes.Buffer
	off map[string]uint32
}

func newStrtab() *strtab {
	s := &strtab{off: map[string]uint32{}}
	s.buf.WriteByte(0)
	s.off[""] = 0
	return s
}

func (s *strtab) add(x string) uint32 {
	if o, ok := s.off[x]; ok {
		return o
	}
	o := uint32(s.buf.Len())
	s.buf.WriteString(x)
	s.buf.WriteByte(0)
	s.off[x] = o
	return o
}

func alignUp(x, a uint64) uint64 {
	if a <= 1 {
		return x
	}
	return (x + a - 1) &^ (a - 1)
}

func elfHash(name string) uint32 {
	var h uint32
	for i := 0; i < len(name); i++ {
		h = h<<4 + uint32(name[i])
		g := h & 0xf0000000
		if g != 0 {
			h ^= g >> 24
		}
		h &^= g
	}
	return h
}

func gnuHash(name string) uint32 {
	h := uint32(5381)
	for i := 0; i < len(name); i++ {
		h = h*33 + uint32(name[i])
	}
	return h
}

type outSym struct {
	Symbol
	sec    *section // nil: absolute
	value  uint64
	size   uint64
	versym uint16
	hash   uint32
}

func (w *writer) write() ([]byte, error) {
	lib := w.lib
	// Version definitions keep their order (index i+1).
	for i, v := range lib.Versions {
		if v.Name == "" {
			return nil, fmt.Errorf("version definition %d has no name", i+1)
		}
		if len(v.Deps) >= 0xffff {
			return nil, fmt.Errorf("version %q has %d parents", v.Name, len(v.Deps))
		}
	}
	if len(lib.Versions) >= 0x7fff {
		return nil, fmt.Errorf("%d version definitions", len(lib.Versions))
	}

	syms := make([]*outSym, 0, len(lib.Symbols))
	for _, s := range lib.Symbols {
		o := &outSym{Symbol: s, versym: s.VerIndex}
		if s.VerIndex >= 0x8000 || s.VerIndex >= 2 && int(s.VerIndex) > len(lib.Versions) {
			return nil, fmt.Errorf("symbol %s: version index %d names no version definition", s.Name, s.VerIndex)
		}
		if s.Hidden {
			o.versym |= 0x8000
		}
		syms = append(syms, o)
	}
	// Storage order: by name and version (lib.Symbols' order), whatever
	// the caller passed.
	sort.SliceStable(syms, func(i, j int) bool {
		a, b := syms[i], syms[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.versym < b.versym
	})

	text := &section{name: ".text", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, align: w.codeAlign}
	rodata := &section{name: ".rodata", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC, align: 16}
	tdata := &section{name: ".tdata", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE | elf.SHF_TLS, align: 16}
	tbss := &section{name: ".tbss", typ: elf.SHT_NOBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE | elf.SHF_TLS, align: 16}
	data := &section{name: ".data", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE, align: 16}
	bss := &section{name: ".bss", typ: elf.SHT_NOBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE, align: 16}
	var fileBytes uint64
	// place reserves size bytes (at least one, so that a section holding
	// only zero-size symbols still exists and they stay defined).
	place := func(sec *section, size uint64) (uint64, error) {
		size = max(size, 1)
		off := alignUp(uint64(len(sec.data))+sec.size, 16)
		if sec.typ == elf.SHT_NOBITS {
			sec.size = off + size
		} else {
			fileBytes += off + size - uint64(len(sec.data))
			if fileBytes > MaxFileBytes {
				return 0, fmt.Errorf("zero-filled objects exceed %d bytes", MaxFileBytes)
			}
			sec.data = append(sec.data, make([]byte, off+size-uint64(len(sec.data)))...)
		}
		return off, nil
	}
	for _, s := range syms {
		var err error
		switch s.Kind {
		case Func:
			s.sec = text
			s.value = alignUp(uint64(len(text.data)), w.codeAlign)
			text.data = append(text.data, make([]byte, s.value-uint64(len(text.data)))...)
			text.data = append(text.data, w.code...)
			s.size = uint64(len(w.code))
		case Object, TLS:
			sec := map[Storage]*section{Bss: bss, Data: data, ReadOnly: rodata}[s.Storage]
			if s.Kind == TLS {
				sec = tdata
				if s.Storage == Bss {
					sec = tbss
				}
			}
			if sec == nil {
				return nil, fmt.Errorf("symbol %s: unknown storage %d", s.Name, s.Storage)
			}
			s.sec, s.size = sec, s.Size
			if s.value, err = place(sec, s.Size); err != nil {
				return nil, err
			}
		case NoType:
			// A marker (_edata, __bss_start, …): one byte of .data
			// so that the section exists.
			s.sec = data
			if s.value, err = place(data, 1); err != nil {
				return nil, err
			}
		case Abs:
			s.value = s.Value
		default:
			return nil, fmt.Errorf("symbol %s: unknown kind %v", s.Name, s.Kind)
		}
	}

	// .dynstr: SONAME, version names, symbol names.
	dynstr := newStrtab()
	sonameOff := dynstr.add(lib.SOName)
	for _, v := range lib.Versions {
		dynstr.add(v.Name)
		for _, d := range v.Deps {
			dynstr.add(d)
		}
	}
	for _, s := range syms {
		dynstr.add(s.Name)
	}

	// .dynsym order: the null symbol, then every symbol, grouped by GNU
	// hash bucket (DT_GNU_HASH needs it), by name within a bucket.
	nb := uint32(1)
	for nb*2 < uint32(len(syms)) {
		nb++
	}
	for _, s := range syms {
		s.hash = gnuHash(s.Name)
	}
	sort.SliceStable(syms, func(i, j int) bool { return syms[i].hash%nb < syms[j].hash%nb })
	nsyms := uint32(len(syms)) + 1

	// Sections in file order.
	hash := &section{name: ".hash", typ: elf.SHT_HASH, flags: elf.SHF_ALLOC, align: 8, entsize: 4}
	gnuhash := &section{name: ".gnu.hash", typ: elf.SHT_GNU_HASH, flags: elf.SHF_ALLOC, align: 8}
	dynsym := &section{name: ".dynsym", typ: elf.SHT_DYNSYM, flags: elf.SHF_ALLOC, align: 8, entsize: 24, info: 1}
	dynstrSec := &section{name: ".dynstr", typ: elf.SHT_STRTAB, flags: elf.SHF_ALLOC, align: 1}
	versym := &section{name: ".gnu.version", typ: elf.SHT_GNU_VERSYM, flags: elf.SHF_ALLOC, align: 2, entsize: 2}
	verdef := &section{name: ".gnu.version_d", typ: elf.SHT_GNU_VERDEF, flags: elf.SHF_ALLOC, align: 4, info: uint32(len(lib.Versions))}
	dynamic := &section{name: ".dynamic", typ: elf.SHT_DYNAMIC, flags: elf.SHF_ALLOC | elf.SHF_WRITE, align: 8, entsize: 16}
	shstr := &section{name: ".shstrtab", typ: elf.SHT_STRTAB, align: 1}

	versioned := lib.Versioned || len(lib.Versions) > 0
	rx := []*section{hash, gnuhash, dynsym, dynstrSec}
	if versioned {
		rx = append(rx, versym, verdef)
	}
	rx = append(rx, text, rodata)
	rw := []*section{tdata, tbss, dynamic, data, bss}

	// Fill the tables whose sizes do not depend on addresses.
	dynstrSec.data = dynstr.buf.Bytes()
	hash.data = w.sysvHash(syms, nsyms)
	gnuhash.data = w.gnuHashTable(syms, nb)
	if versioned {
		vs := make([]byte, 0, 2*nsyms)
		vs = w.bo.AppendUint16(vs, 0)
		for _, s := range syms {
			vs = w.bo.AppendUint16(vs, s.versym)
		}
		versym.data = vs
		verdef.data = w.verdefs(dynstr)
	}
	dynsym.data = make([]byte, 24*nsyms)
	nDyn := 7 // SONAME HASH GNU_HASH STRTAB SYMTAB STRSZ SYMENT
	if versioned {
		nDyn += 3 // VERSYM VERDEF VERDEFNUM
	}
	dynamic.data = make([]byte, 16*(nDyn+1))

	// Drop empty data sections.
	keep := func(ss []*section) []*section {
		var out []*section
		for _, s := range ss {
			if len(s.data) > 0 || s.size > 0 || s == dynamic {
				out = append(out, s)
			}
		}
		return out
	}
	rx, rw = keep(rx), keep(rw)
	hasTLS := tdata.size+uint64(len(tdata.data))+tbss.size > 0

	// Program headers: LOAD RX, LOAD RW, DYNAMIC, GNU_STACK, (TLS).
	nph := 4
	if hasTLS {
		nph++
	}
	off := uint64(64 + 56*nph)
	for _, s := range rx {
		off = alignUp(off, s.align)
		s.off, s.addr = off, off
		off += uint64(len(s.data))
	}
	rxEnd := off
	// The RW segment follows in the file; its addresses are one page
	// further, congruent with the offsets modulo the page size.
	addr := off + pageSize
	var tlsStart, tlsFileEnd, tlsMemEnd uint64
	var rwStartOff, rwStartAddr uint64
	for i, s := range rw {
		if s.typ == elf.SHT_NOBITS {
			s.off, s.addr = off, alignUp(addr, s.align)
			if s == tbss {
				// .tbss takes no room in the segment's image: what
				// follows keeps the address it would have had.
				tlsMemEnd = s.addr + s.size
				continue
			}
			addr = s.addr + s.size
			continue
		}
		delta := addr - off
		off = alignUp(off, s.align)
		addr = off + delta
		s.off, s.addr = off, addr
		if i == 0 {
			rwStartOff, rwStartAddr = off, addr
		}
		off += uint64(len(s.data))
		addr += uint64(len(s.data))
		if s == tdata {
			tlsFileEnd, tlsMemEnd = addr, addr
		}
	}
	if rwStartAddr == 0 { // the RW segment starts with .tbss (no .tdata)
		rwStartOff, rwStartAddr = rw[0].off, rw[0].addr
	}
	fileEnd := off
	memEnd := addr
	if hasTLS {
		if len(tdata.data) > 0 {
			tlsStart = tdata.addr
		} else {
			tlsStart, tlsFileEnd = tbss.addr, tbss.addr
		}
		if tlsMemEnd < tlsFileEnd {
			tlsMemEnd = tlsFileEnd
		}
	}

	// Symbol table.
	secIndex := map[*section]uint16{}
	all := append(append([]*section{}, rx...), rw...)
	for i, s := range all {
		secIndex[s] = uint16(i + 1)
	}
	dynsymIdx, dynstrIdx := secIndex[dynsym], secIndex[dynstrSec]
	dynsym.link = uint32(dynstrIdx)
	hash.link, gnuhash.link, versym.link = uint32(dynsymIdx), uint32(dynsymIdx), uint32(dynsymIdx)
	verdef.link, dynamic.link = uint32(dynstrIdx), uint32(dynstrIdx)
	for i, s := range syms {
		e := dynsym.data[24*(i+1):]
		typ := map[Kind]elf.SymType{Func: elf.STT_FUNC, Object: elf.STT_OBJECT, TLS: elf.STT_TLS, Abs: elf.STT_OBJECT, NoType: elf.STT_NOTYPE}[s.Kind]
		shndx, value := uint16(elf.SHN_ABS), s.value
		if s.sec != nil {
			shndx = secIndex[s.sec]
			if s.Kind == TLS {
				value = s.sec.addr - tlsStart + s.value
			} else {
				value = s.sec.addr + s.value
			}
		}
		w.bo.PutUint32(e[0:], dynstr.add(s.Name))
		e[4] = byte(s.Bind)<<4 | byte(typ)&0xf
		e[5] = byte(s.Visibility) & 3
		w.bo.PutUint16(e[6:], shndx)
		w.bo.PutUint64(e[8:], value)
		w.bo.PutUint64(e[16:], s.size)
	}

	// Dynamic section.
	dyn := dynamic.data[:0]
	put := func(tag elf.DynTag, v uint64) {
		dyn = w.bo.AppendUint64(dyn, uint64(tag))
		dyn = w.bo.AppendUint64(dyn, v)
	}
	put(elf.DT_SONAME, uint64(sonameOff))
	put(elf.DT_HASH, hash.addr)
	put(elf.DT_GNU_HASH, gnuhash.addr)
	put(elf.DT_STRTAB, dynstrSec.addr)
	put(elf.DT_SYMTAB, dynsym.addr)
	put(elf.DT_STRSZ, uint64(len(dynstrSec.data)))
	put(elf.DT_SYMENT, 24)
	if versioned {
		put(elf.DT_VERSYM, versym.addr)
		put(elf.DT_VERDEF, verdef.addr)
		put(elf.DT_VERDEFNUM, uint64(len(lib.Versions)))
	}
	put(elf.DT_NULL, 0)

	// Section header string table and headers.
	shs := newStrtab()
	for _, s := range all {
		shs.add(s.name)
	}
	shs.add(shstr.name)
	shstr.data = shs.buf.Bytes()
	shstr.off = fileEnd
	shoff := alignUp(shstr.off+uint64(len(shstr.data)), 8)
	shnum := len(all) + 2

	out := make([]byte, shoff+uint64(64*shnum))
	// ELF header.
	copy(out, []byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), 0, byte(elf.EV_CURRENT), byte(lib.OSABI), lib.ABIVer})
	out[5] = byte(elf.ELFDATA2LSB)
	if lib.ByteOrder == binary.ByteOrder(binary.BigEndian) {
		out[5] = byte(elf.ELFDATA2MSB)
	}
	h := out[16:64]
	w.bo.PutUint16(h[0:], uint16(elf.ET_DYN))
	w.bo.PutUint16(h[2:], uint16(lib.Machine))
	w.bo.PutUint32(h[4:], uint32(elf.EV_CURRENT))
	w.bo.PutUint64(h[8:], 0)   // e_entry
	w.bo.PutUint64(h[16:], 64) // e_phoff
	w.bo.PutUint64(h[24:], shoff)
	w.bo.PutUint32(h[32:], lib.Flags)
	w.bo.PutUint16(h[36:], 64)
	w.bo.PutUint16(h[38:], 56)
	w.bo.PutUint16(h[40:], uint16(nph))
	w.bo.PutUint16(h[42:], 64)
	w.bo.PutUint16(h[44:], uint16(shnum))
	w.bo.PutUint16(h[46:], uint16(shnum-1))

	ph := out[64:]
	phdr := func(typ elf.ProgType, flags elf.ProgFlag, off, vaddr, filesz, memsz, align uint64) {
		w.bo.PutUint32(ph[0:], uint32(typ))
		w.bo.PutUint32(ph[4:], uint32(flags))
		w.bo.PutUint64(ph[8:], off)
		w.bo.PutUint64(ph[16:], vaddr)
		w.bo.PutUint64(ph[24:], vaddr)
		w.bo.PutUint64(ph[32:], filesz)
		w.bo.PutUint64(ph[40:], memsz)
		w.bo.PutUint64(ph[48:], align)
		ph = ph[56:]
	}
	phdr(elf.PT_LOAD, elf.PF_R|elf.PF_X, 0, 0, rxEnd, rxEnd, pageSize)
	phdr(elf.PT_LOAD, elf.PF_R|elf.PF_W, rwStartOff, rwStartAddr, fileEnd-rwStartOff, memEnd-rwStartAddr, pageSize)
	phdr(elf.PT_DYNAMIC, elf.PF_R|elf.PF_W, dynamic.off, dynamic.addr, uint64(len(dynamic.data)), uint64(len(dynamic.data)), 8)
	phdr(elf.PT_GNU_STACK, elf.PF_R|elf.PF_W, 0, 0, 0, 0, 16)
	if hasTLS {
		tlsOff := tdata.off
		if len(tdata.data) == 0 {
			tlsOff = tbss.off
		}
		phdr(elf.PT_TLS, elf.PF_R, tlsOff, tlsStart, tlsFileEnd-tlsStart, tlsMemEnd-tlsStart, 16)
	}

	for _, s := range all {
		if s.typ != elf.SHT_NOBITS {
			copy(out[s.off:], s.data)
		}
	}
	copy(out[shstr.off:], shstr.data)
	sh := out[shoff+64:] // header 0 stays null
	shdr := func(s *section, addr uint64, flags elf.SectionFlag) {
		size := uint64(len(s.data))
		if s.typ == elf.SHT_NOBITS {
			size = s.size
		}
		w.bo.PutUint32(sh[0:], shs.add(s.name))
		w.bo.PutUint32(sh[4:], uint32(s.typ))
		w.bo.PutUint64(sh[8:], uint64(flags))
		w.bo.PutUint64(sh[16:], addr)
		w.bo.PutUint64(sh[24:], s.off)
		w.bo.PutUint64(sh[32:], size)
		w.bo.PutUint32(sh[40:], s.link)
		w.bo.PutUint32(sh[44:], s.info)
		w.bo.PutUint64(sh[48:], s.align)
		w.bo.PutUint64(sh[56:], s.entsize)
		sh = sh[64:]
	}
	for _, s := range all {
		shdr(s, s.addr, s.flags)
	}
	shdr(shstr, 0, 0)
	return out, nil
}

// sysvHash builds DT_HASH: nbucket, nchain, buckets, chains.
func (w *writer) sysvHash(syms []*outSym, nsyms uint32) []byte {
	nb := uint32(1)
	for nb*2 < nsyms {
		nb++
	}
	buckets := make([]uint32, nb)
	chains := make([]uint32, nsyms)
	for i, s := range syms {
		idx := uint32(i + 1)
		b := elfHash(s.Name) % nb
		// Append to the end of the bucket's chain (keeps lookups in
		// symbol order; any order would do).
		if buckets[b] == 0 {
			buckets[b] = idx
		} else {
			j := buckets[b]
			for chains[j] != 0 {
				j = chains[j]
			}
			chains[j] = idx
		}
	}
	out := make([]byte, 0, 4*(2+nb+nsyms))
	out = w.bo.AppendUint32(out, nb)
	out = w.bo.AppendUint32(out, nsyms)
	for _, b := range buckets {
		out = w.bo.AppendUint32(out, b)
	}
	for _, c := range chains {
		out = w.bo.AppendUint32(out, c)
	}
	return out
}

// gnuHashTable builds DT_GNU_HASH over every symbol after the null one;
// syms must be sorted by hash % nb.
func (w *writer) gnuHashTable(syms []*outSym, nb uint32) []byte {
	const shift = 6
	maskwords := uint32(1)
	for maskwords*64 < uint32(len(syms))*2 {
		maskwords <<= 1
	}
	bloom := make([]uint64, maskwords)
	buckets := make([]uint32, nb)
	chain := make([]uint32, len(syms))
	for i, s := range syms {
		h := s.hash
		bloom[(h/64)%maskwords] |= 1<<(h%64) | 1<<((h>>shift)%64)
		b := h % nb
		if buckets[b] == 0 {
			buckets[b] = uint32(i + 1)
		}
		chain[i] = h &^ 1
		if i == len(syms)-1 || syms[i+1].hash%nb != b {
			chain[i] |= 1
		}
	}
	out := make([]byte, 0, 16+8*len(bloom)+4*len(buckets)+4*len(chain))
	out = w.bo.AppendUint32(out, nb)
	out = w.bo.AppendUint32(out, 1) // symoffset: every symbol after the null one
	out = w.bo.AppendUint32(out, maskwords)
	out = w.bo.AppendUint32(out, shift)
	for _, m := range bloom {
		out = w.bo.AppendUint64(out, m)
	}
	for _, b := range buckets {
		out = w.bo.AppendUint32(out, b)
	}
	for _, c := range chain {
		out = w.bo.AppendUint32(out, c)
	}
	return out
}

// verdefs builds .gnu.version_d: Elf64_Verdef (20 bytes) followed by its
// Elf64_Verdaux entries (8 bytes each: the name, then the parents).
func (w *writer) verdefs(dynstr *strtab) []byte {
	var out []byte
	for i, v := range w.lib.Versions {
		cnt := 1 + len(v.Deps)
		size := 20 + 8*cnt
		next := uint32(size)
		if i == len(w.lib.Versions)-1 {
			next = 0
		}
		out = w.bo.AppendUint16(out, 1) // vd_version
		out = w.bo.AppendUint16(out, v.Flags)
		out = w.bo.AppendUint16(out, uint16(i+1))
		out = w.bo.AppendUint16(out, uint16(cnt))
		out = w.bo.AppendUint32(out, elfHash(v.Name))
		out = w.bo.AppendUint32(out, 20) // vd_aux
		out = w.bo.AppendUint32(out, next)
		names := append([]string{v.Name}, v.Deps...)
		for j, n := range names {
			out = w.bo.AppendUint32(out, dynstr.add(n))
			if j == len(names)-1 {
				out = w.bo.AppendUint32(out, 0)
			} else {
				out = w.bo.AppendUint32(out, 8)
			}
		}
	}
	return out
}
