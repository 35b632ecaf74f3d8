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
	elf.EM_AARCH64: {
		little: []byte{0x20, 0x00, 0x80, 0x52, 0xc0, 0x03, 0x5f, 0xd6},
		big:    []byte{0x52, 0x80, 0x00, 0x20, 0xd6, 0x5f, 0x03, 0xc0},
		align:  8,
	},
	// mov eax, 1; ret
	elf.EM_X86_64: {little: []byte{0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3, 0xcc, 0xcc}, align: 16},
	// li a0, 1; ret
	elf.EM_RISCV: {little: []byte{0x13, 0x05, 0x10, 0x00, 0x67, 0x80, 0x00, 0x00}, align: 8},
	// li r3, 1; blr
	elf.EM_PPC64: {
		little: []byte{0x01, 0x00, 0x60, 0x38, 0x20, 0x00, 0x80, 0x4e},
		big:    []byte{0x38, 0x60, 0x00, 0x01, 0x4e, 0x80, 0x00, 0x20},
		align:  8,
	},
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

// writer writes one stub: Write's checked inputs, then the state that
// write's steps build up.
type writer struct {
	lib       *Library
	bo        order
	code      []byte
	codeAlign uint64

	syms      []*outSym // storage order, then .dynsym order (sortByGNUHash)
	sec       sections
	dynstr    *strtab // the strings of .dynstr
	versioned bool    // the stub has .gnu.version and .gnu.version_d
	fileBytes uint64  // file bytes of the zero-filled storage placed so far
}

// sections are every section a stub may have; segmentSections leaves the
// empty ones out of the file.
type sections struct {
	// Symbol storage.
	text, rodata, tdata, tbss, data, bss *section
	// Dynamic linking tables, and the section header string table.
	hash, gnuhash, dynsym, dynstrSec, versym, verdef, dynamic, shstr *section
}

// segments is where layout put the two PT_LOAD segments and the TLS block.
type segments struct {
	nph             int    // program headers: LOAD RX, LOAD RW, DYNAMIC, GNU_STACK, (TLS)
	rxEnd           uint64 // end of the RX segment, which starts at offset and address 0
	rwOff, rwAddr   uint64 // start of the RW segment
	fileEnd, memEnd uint64 // end of the RW segment in the file and in memory
	hasTLS          bool
	// The TLS block (PT_TLS): its file offset, address, and the ends of
	// its initialized part and of the whole block.
	tlsOff, tlsStart, tlsFileEnd, tlsMemEnd uint64
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

// write builds the stub in steps: the symbols and their storage, the
// tables whose sizes do not depend on addresses, the layout, the tables
// that hold addresses, and last the file.
func (w *writer) write() ([]byte, error) {
	if err := w.checkVersions(); err != nil {
		return nil, err
	}
	if err := w.collectSymbols(); err != nil {
		return nil, err
	}
	w.newSections()
	if err := w.placeSymbols(); err != nil {
		return nil, err
	}
	w.buildDynstr()
	nb := w.sortByGNUHash()
	w.fillTables(nb)
	rx, rw := w.segmentSections()
	seg := w.layout(rx, rw)
	all := append(append([]*section{}, rx...), rw...)
	index := w.linkSections(all)
	w.fillDynsym(index, seg.tlsStart)
	w.fillDynamic()
	return w.file(all, seg), nil
}

// checkVersions rejects version definitions a stub cannot hold: one
// without a name, one with 0xffff parents or more, and 0x7fff definitions
// or more.
func (w *writer) checkVersions() error {
	// Version definitions keep their order (index i+1).
	for i, v := range w.lib.Versions {
		if v.Name == "" {
			return fmt.Errorf("version definition %d has no name", i+1)
		}
		if len(v.Deps) >= 0xffff {
			return fmt.Errorf("version %q has %d parents", v.Name, len(v.Deps))
		}
	}
	if len(w.lib.Versions) >= 0x7fff {
		return fmt.Errorf("%d version definitions", len(w.lib.Versions))
	}
	return nil
}

// collectSymbols sets w.syms to lib's symbols with their .gnu.version
// entries (the hidden bit set for sym@VER), in storage order.
func (w *writer) collectSymbols() error {
	syms := make([]*outSym, 0, len(w.lib.Symbols))
	for _, s := range w.lib.Symbols {
		o := &outSym{Symbol: s, versym: s.VerIndex}
		if s.VerIndex >= 0x8000 || s.VerIndex >= 2 && int(s.VerIndex) > len(w.lib.Versions) {
			return fmt.Errorf("symbol %s: version index %d names no version definition", s.Name, s.VerIndex)
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
	w.syms = syms
	return nil
}

// newSections creates every section a stub may have, empty.
func (w *writer) newSections() {
	w.versioned = w.lib.Versioned || len(w.lib.Versions) > 0
	w.sec = sections{
		text:   &section{name: ".text", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, align: w.codeAlign},
		rodata: &section{name: ".rodata", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC, align: 16},
		tdata: &section{
			name:  ".tdata",
			typ:   elf.SHT_PROGBITS,
			flags: elf.SHF_ALLOC | elf.SHF_WRITE | elf.SHF_TLS,
			align: 16,
		},
		tbss: &section{name: ".tbss", typ: elf.SHT_NOBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE | elf.SHF_TLS, align: 16},
		data: &section{name: ".data", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE, align: 16},
		bss:  &section{name: ".bss", typ: elf.SHT_NOBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE, align: 16},

		hash:      &section{name: ".hash", typ: elf.SHT_HASH, flags: elf.SHF_ALLOC, align: 8, entsize: 4},
		gnuhash:   &section{name: ".gnu.hash", typ: elf.SHT_GNU_HASH, flags: elf.SHF_ALLOC, align: 8},
		dynsym:    &section{name: ".dynsym", typ: elf.SHT_DYNSYM, flags: elf.SHF_ALLOC, align: 8, entsize: 24, info: 1},
		dynstrSec: &section{name: ".dynstr", typ: elf.SHT_STRTAB, flags: elf.SHF_ALLOC, align: 1},
		versym:    &section{name: ".gnu.version", typ: elf.SHT_GNU_VERSYM, flags: elf.SHF_ALLOC, align: 2, entsize: 2},
		verdef: &section{
			name:  ".gnu.version_d",
			typ:   elf.SHT_GNU_VERDEF,
			flags: elf.SHF_ALLOC,
			align: 4,
			info:  uint32(len(w.lib.Versions)),
		},
		dynamic: &section{
			name:    ".dynamic",
			typ:     elf.SHT_DYNAMIC,
			flags:   elf.SHF_ALLOC | elf.SHF_WRITE,
			align:   8,
			entsize: 16,
		},
		shstr: &section{name: ".shstrtab", typ: elf.SHT_STRTAB, align: 1},
	}
}

// placeSymbols gives every symbol its section, its offset in that section
// and its size: functions a body in .text, objects and TLS variables
// zero-filled storage, markers a byte of .data, absolute symbols their
// value and no section.
func (w *writer) placeSymbols() error {
	for _, s := range w.syms {
		var err error
		switch s.Kind {
		case Func:
			w.placeFunc(s)
		case Object, TLS:
			err = w.placeStorage(s)
		case NoType:
			// A marker (_edata, __bss_start, …): one byte of .data
			// so that the section exists.
			s.sec = w.sec.data
			s.value, err = w.place(w.sec.data, 1)
		case Abs:
			s.value = s.Value
		default:
			err = fmt.Errorf("symbol %s: unknown kind %v", s.Name, s.Kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// placeFunc appends a function body to .text, aligned for the machine.
func (w *writer) placeFunc(s *outSym) {
	text := w.sec.text
	s.sec = text
	s.value = alignUp(uint64(len(text.data)), w.codeAlign)
	text.data = append(text.data, make([]byte, s.value-uint64(len(text.data)))...)
	text.data = append(text.data, w.code...)
	s.size = uint64(len(w.code))
}

// placeStorage reserves an object's or TLS variable's zero-filled storage
// of its size in the section of its storage class.
func (w *writer) placeStorage(s *outSym) error {
	sec := map[Storage]*section{Bss: w.sec.bss, Data: w.sec.data, ReadOnly: w.sec.rodata}[s.Storage]
	if s.Kind == TLS {
		sec = w.sec.tdata
		if s.Storage == Bss {
			sec = w.sec.tbss
		}
	}
	if sec == nil {
		return fmt.Errorf("symbol %s: unknown storage %d", s.Name, s.Storage)
	}
	s.sec, s.size = sec, s.Size
	var err error
	s.value, err = w.place(sec, s.Size)
	return err
}

// place reserves size bytes of sec, 16-aligned, and returns their offset
// in sec: at least one byte, so that a section holding only zero-size
// symbols still exists and they stay defined. The file bytes reserved in
// all sections are bounded by MaxFileBytes.
func (w *writer) place(sec *section, size uint64) (uint64, error) {
	size = max(size, 1)
	off := alignUp(uint64(len(sec.data))+sec.size, 16)
	if sec.typ == elf.SHT_NOBITS {
		sec.size = off + size
	} else {
		w.fileBytes += off + size - uint64(len(sec.data))
		if w.fileBytes > MaxFileBytes {
			return 0, fmt.Errorf("zero-filled objects exceed %d bytes", MaxFileBytes)
		}
		sec.data = append(sec.data, make([]byte, off+size-uint64(len(sec.data)))...)
	}
	return off, nil
}

// buildDynstr fills w.dynstr: the SONAME, the version names, the symbol
// names.
func (w *writer) buildDynstr() {
	w.dynstr = newStrtab()
	w.dynstr.add(w.lib.SOName)
	for _, v := range w.lib.Versions {
		w.dynstr.add(v.Name)
		for _, d := range v.Deps {
			w.dynstr.add(d)
		}
	}
	for _, s := range w.syms {
		w.dynstr.add(s.Name)
	}
}

// sortByGNUHash puts w.syms in .dynsym order (after the null symbol):
// grouped by GNU hash bucket (DT_GNU_HASH needs it), by name within a
// bucket. It returns the number of buckets.
func (w *writer) sortByGNUHash() uint32 {
	syms := w.syms
	nb := uint32(1)
	for nb*2 < uint32(len(syms)) {
		nb++
	}
	for _, s := range syms {
		s.hash = gnuHash(s.Name)
	}
	sort.SliceStable(syms, func(i, j int) bool { return syms[i].hash%nb < syms[j].hash%nb })
	return nb
}

// fillTables fills the tables whose sizes do not depend on addresses
// (.dynstr, .hash, .gnu.hash with nb buckets, .gnu.version,
// .gnu.version_d) and sizes .dynsym and .dynamic, which hold addresses.
func (w *writer) fillTables(nb uint32) {
	s := &w.sec
	nsyms := uint32(len(w.syms)) + 1
	s.dynstrSec.data = w.dynstr.buf.Bytes()
	s.hash.data = w.sysvHash(w.syms, nsyms)
	s.gnuhash.data = w.gnuHashTable(w.syms, nb)
	if w.versioned {
		vs := make([]byte, 0, 2*nsyms)
		vs = w.bo.AppendUint16(vs, 0)
		for _, sym := range w.syms {
			vs = w.bo.AppendUint16(vs, sym.versym)
		}
		s.versym.data = vs
		s.verdef.data = w.verdefs(w.dynstr)
	}
	s.dynsym.data = make([]byte, 24*nsyms)
	nDyn := 7 // SONAME HASH GNU_HASH STRTAB SYMTAB STRSZ SYMENT
	if w.versioned {
		nDyn += 3 // VERSYM VERDEF VERDEFNUM
	}
	s.dynamic.data = make([]byte, 16*(nDyn+1))
}

// segmentSections returns the sections of the RX and the RW segment in
// file order, without the empty ones.
func (w *writer) segmentSections() (rx, rw []*section) {
	s := &w.sec
	rx = []*section{s.hash, s.gnuhash, s.dynsym, s.dynstrSec}
	if w.versioned {
		rx = append(rx, s.versym, s.verdef)
	}
	rx = append(rx, s.text, s.rodata)
	rw = []*section{s.tdata, s.tbss, s.dynamic, s.data, s.bss}
	return w.nonEmpty(rx), w.nonEmpty(rw)
}

// nonEmpty returns the sections of ss that hold something, and .dynamic.
func (w *writer) nonEmpty(ss []*section) []*section {
	var out []*section
	for _, s := range ss {
		if len(s.data) > 0 || s.size > 0 || s == w.sec.dynamic {
			out = append(out, s)
		}
	}
	return out
}

// layout gives the sections of rx and rw their file offsets and
// addresses: the RX segment from the end of the program headers on, then
// the RW segment.
func (w *writer) layout(rx, rw []*section) segments {
	tdata, tbss := w.sec.tdata, w.sec.tbss
	seg := segments{nph: 4, hasTLS: tdata.size+uint64(len(tdata.data))+tbss.size > 0}
	if seg.hasTLS {
		seg.nph++
	}
	off := uint64(64 + 56*seg.nph)
	for _, s := range rx {
		off = alignUp(off, s.align)
		s.off, s.addr = off, off
		off += uint64(len(s.data))
	}
	seg.rxEnd = off
	w.layoutRW(&seg, rw, off)
	w.tlsBlock(&seg)
	return seg
}

// layoutRW places the RW segment's sections rw from file offset off on,
// and records the segment's bounds and the ends of the TLS block.
func (w *writer) layoutRW(seg *segments, rw []*section, off uint64) {
	// The RW segment follows in the file; its addresses are one page
	// further, congruent with the offsets modulo the page size.
	addr := off + pageSize
	for i, s := range rw {
		if s.typ == elf.SHT_NOBITS {
			s.off, s.addr = off, alignUp(addr, s.align)
			if s == w.sec.tbss {
				// .tbss takes no room in the segment's image: what
				// follows keeps the address it would have had.
				seg.tlsMemEnd = s.addr + s.size
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
			seg.rwOff, seg.rwAddr = off, addr
		}
		off += uint64(len(s.data))
		addr += uint64(len(s.data))
		if s == w.sec.tdata {
			seg.tlsFileEnd, seg.tlsMemEnd = addr, addr
		}
	}
	if seg.rwAddr == 0 { // the RW segment starts with .tbss (no .tdata)
		seg.rwOff, seg.rwAddr = rw[0].off, rw[0].addr
	}
	seg.fileEnd, seg.memEnd = off, addr
}

// tlsBlock sets where the TLS block starts (.tdata, else .tbss) once the
// sections are placed; its memory end is at least its file end.
func (w *writer) tlsBlock(seg *segments) {
	if !seg.hasTLS {
		return
	}
	tdata, tbss := w.sec.tdata, w.sec.tbss
	if len(tdata.data) > 0 {
		seg.tlsOff, seg.tlsStart = tdata.off, tdata.addr
	} else {
		seg.tlsOff, seg.tlsStart, seg.tlsFileEnd = tbss.off, tbss.addr, tbss.addr
	}
	if seg.tlsMemEnd < seg.tlsFileEnd {
		seg.tlsMemEnd = seg.tlsFileEnd
	}
}

// linkSections numbers the sections of all from 1 (0 is the null section
// header), sets the sh_link of the dynamic-linking sections and returns
// the numbers.
func (w *writer) linkSections(all []*section) map[*section]uint16 {
	index := map[*section]uint16{}
	for i, s := range all {
		index[s] = uint16(i + 1)
	}
	s := &w.sec
	dynsymIdx, dynstrIdx := uint32(index[s.dynsym]), uint32(index[s.dynstrSec])
	s.dynsym.link = dynstrIdx
	s.hash.link, s.gnuhash.link, s.versym.link = dynsymIdx, dynsymIdx, dynsymIdx
	s.verdef.link, s.dynamic.link = dynstrIdx, dynstrIdx
	return index
}

// fillDynsym writes the .dynsym entries after the null one, with the
// section numbers of index: a symbol's value is its address, a TLS
// variable's its offset in the TLS block that starts at tlsStart, an
// absolute symbol's its own.
func (w *writer) fillDynsym(index map[*section]uint16, tlsStart uint64) {
	for i, s := range w.syms {
		e := w.sec.dynsym.data[24*(i+1):]
		typ := map[Kind]elf.SymType{
			Func:   elf.STT_FUNC,
			Object: elf.STT_OBJECT,
			TLS:    elf.STT_TLS,
			Abs:    elf.STT_OBJECT,
			NoType: elf.STT_NOTYPE,
		}[s.Kind]
		shndx, value := uint16(elf.SHN_ABS), s.value
		if s.sec != nil {
			shndx = index[s.sec]
			if s.Kind == TLS {
				value = s.sec.addr - tlsStart + s.value
			} else {
				value = s.sec.addr + s.value
			}
		}
		w.bo.PutUint32(e[0:], w.dynstr.add(s.Name))
		e[4] = byte(s.Bind)<<4 | byte(typ)&0xf
		e[5] = byte(s.Visibility) & 3
		w.bo.PutUint16(e[6:], shndx)
		w.bo.PutUint64(e[8:], value)
		w.bo.PutUint64(e[16:], s.size)
	}
}

// fillDynamic writes the .dynamic entries, which point at the placed
// tables.
func (w *writer) fillDynamic() {
	s := &w.sec
	dyn := s.dynamic.data[:0]
	put := func(tag elf.DynTag, v uint64) {
		dyn = w.bo.AppendUint64(dyn, uint64(tag))
		dyn = w.bo.AppendUint64(dyn, v)
	}
	put(elf.DT_SONAME, uint64(w.dynstr.add(w.lib.SOName)))
	put(elf.DT_HASH, s.hash.addr)
	put(elf.DT_GNU_HASH, s.gnuhash.addr)
	put(elf.DT_STRTAB, s.dynstrSec.addr)
	put(elf.DT_SYMTAB, s.dynsym.addr)
	put(elf.DT_STRSZ, uint64(len(s.dynstrSec.data)))
	put(elf.DT_SYMENT, 24)
	if w.versioned {
		put(elf.DT_VERSYM, s.versym.addr)
		put(elf.DT_VERDEF, s.verdef.addr)
		put(elf.DT_VERDEFNUM, uint64(len(w.lib.Versions)))
	}
	put(elf.DT_NULL, 0)
}

// file returns the stub's bytes: the ELF header, the program headers, the
// contents of the sections of all, then .shstrtab and the section headers
// after the RW segment.
func (w *writer) file(all []*section, seg segments) []byte {
	shstr := w.sec.shstr
	names := newStrtab()
	for _, s := range all {
		names.add(s.name)
	}
	names.add(shstr.name)
	shstr.data = names.buf.Bytes()
	shstr.off = seg.fileEnd
	shoff := alignUp(shstr.off+uint64(len(shstr.data)), 8)
	shnum := len(all) + 2

	out := make([]byte, shoff+uint64(64*shnum))
	w.putHeader(out, seg.nph, shoff, shnum)
	w.putProgramHeaders(out[64:], seg)
	for _, s := range all {
		if s.typ != elf.SHT_NOBITS {
			copy(out[s.off:], s.data)
		}
	}
	copy(out[shstr.off:], shstr.data)
	sh := out[shoff+64:] // header 0 stays null
	for _, s := range all {
		sh = w.putSectionHeader(sh, s, names)
	}
	w.putSectionHeader(sh, shstr, names) // no address, no flags
	return out
}

// putHeader writes the ELF header to out: nph program headers right after
// it, shnum section headers (the last is .shstrtab) at shoff.
func (w *writer) putHeader(out []byte, nph int, shoff uint64, shnum int) {
	lib := w.lib
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
}

// putProgramHeaders writes the program headers to ph: LOAD RX, LOAD RW,
// DYNAMIC, GNU_STACK, and TLS when the stub has TLS variables.
func (w *writer) putProgramHeaders(ph []byte, seg segments) {
	dynamic := w.sec.dynamic
	ph = w.putProgramHeader(ph, elf.PT_LOAD, elf.PF_R|elf.PF_X, 0, 0, seg.rxEnd, seg.rxEnd, pageSize)
	ph = w.putProgramHeader(
		ph,
		elf.PT_LOAD,
		elf.PF_R|elf.PF_W,
		seg.rwOff,
		seg.rwAddr,
		seg.fileEnd-seg.rwOff,
		seg.memEnd-seg.rwAddr,
		pageSize,
	)
	ph = w.putProgramHeader(
		ph,
		elf.PT_DYNAMIC,
		elf.PF_R|elf.PF_W,
		dynamic.off,
		dynamic.addr,
		uint64(len(dynamic.data)),
		uint64(len(dynamic.data)),
		8,
	)
	ph = w.putProgramHeader(ph, elf.PT_GNU_STACK, elf.PF_R|elf.PF_W, 0, 0, 0, 0, 16)
	if seg.hasTLS {
		w.putProgramHeader(
			ph,
			elf.PT_TLS,
			elf.PF_R,
			seg.tlsOff,
			seg.tlsStart,
			seg.tlsFileEnd-seg.tlsStart,
			seg.tlsMemEnd-seg.tlsStart,
			16,
		)
	}
}

// putProgramHeader writes one program header (p_paddr = p_vaddr) to the
// start of ph and returns the rest of ph.
func (w *writer) putProgramHeader(
	ph []byte,
	typ elf.ProgType,
	flags elf.ProgFlag,
	off, vaddr, filesz, memsz, align uint64,
) []byte {
	w.bo.PutUint32(ph[0:], uint32(typ))
	w.bo.PutUint32(ph[4:], uint32(flags))
	w.bo.PutUint64(ph[8:], off)
	w.bo.PutUint64(ph[16:], vaddr)
	w.bo.PutUint64(ph[24:], vaddr)
	w.bo.PutUint64(ph[32:], filesz)
	w.bo.PutUint64(ph[40:], memsz)
	w.bo.PutUint64(ph[48:], align)
	return ph[56:]
}

// putSectionHeader writes the header of s, its name from names, to the
// start of sh and returns the rest of sh.
func (w *writer) putSectionHeader(sh []byte, s *section, names *strtab) []byte {
	size := uint64(len(s.data))
	if s.typ == elf.SHT_NOBITS {
		size = s.size
	}
	w.bo.PutUint32(sh[0:], names.add(s.name))
	w.bo.PutUint32(sh[4:], uint32(s.typ))
	w.bo.PutUint64(sh[8:], uint64(s.flags))
	w.bo.PutUint64(sh[16:], s.addr)
	w.bo.PutUint64(sh[24:], s.off)
	w.bo.PutUint64(sh[32:], size)
	w.bo.PutUint32(sh[40:], s.link)
	w.bo.PutUint32(sh[44:], s.info)
	w.bo.PutUint64(sh[48:], s.align)
	w.bo.PutUint64(sh[56:], s.entsize)
	return sh[64:]
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
