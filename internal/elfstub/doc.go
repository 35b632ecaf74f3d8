// Package elfstub synthesizes stub shared libraries: it reads a real ELF64
// shared object's SONAME, version definitions and exported dynamic symbols
// (Read) and writes a minimal shared object for the same machine that
// exports the same symbol@version set (Write): functions as tiny bodies
// returning an error code, objects and thread-local variables as
// zero-filled storage of their real size, with .gnu.version/.gnu.version_d,
// DT_HASH and DT_GNU_HASH and no DT_NEEDED (GNU indirect functions become
// plain functions; absolute symbols, such as the version names binutils
// exports, keep their value). Such a stub is what NVIDIA ships
// in lib/stubs/ of its CUDA redistributables: something to link against on
// a machine without the driver or the real library. The output is a pure
// function of the input; the input is untrusted and bounded.
package elfstub
