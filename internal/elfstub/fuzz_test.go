package elfstub

import (
	"bytes"
	"slices"
	"testing"
)

// FuzzRead feeds arbitrary bytes to Read (untrusted libraries from debs):
// it must return an error or a library, never panic or allocate beyond
// its limits; a library it accepts must give a stub that reads back with
// the same SONAME and exports.
func FuzzRead(f *testing.F) {
	good, err := Write(sample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:64])
	f.Add(good[:len(good)/2])
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lib, err := Read(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		var storage uint64
		for _, s := range lib.Symbols {
			if s.Storage != Bss {
				storage += s.Size
			}
		}
		if storage > 1<<20 {
			return // legal, but too slow to write in a fuzz loop
		}
		out, err := Write(lib)
		if err != nil {
			return // e.g. a machine without a stub body
		}
		back, err := Read(bytes.NewReader(out), int64(len(out)))
		if err != nil {
			t.Fatalf("the stub of an accepted library does not read back: %v", err)
		}
		if back.SOName != lib.SOName || !slices.Equal(back.Exports(), lib.Exports()) {
			t.Fatalf("stub exports %s %v, library %s %v", back.SOName, back.Exports(), lib.SOName, lib.Exports())
		}
	})
}
