package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"testing"
)

// FuzzInspect feeds arbitrary bytes to Inspect: it must never panic, hang or
// allocate without bound, and whatever it accepts must satisfy the safety
// invariants it promises.
func FuzzInspect(f *testing.F) {
	f.Add(
		rawArchive(
			f,
			XZ,
			mdir("t/"),
			reg("t/a", "hello"),
			mlink(tar.TypeSymlink, "t/l", "a"),
			mlink(tar.TypeLink, "t/h", "t/a"),
		),
	)
	f.Add(rawArchive(f, Zstd, mdir("t/"), reg("t/a", "hello")))
	f.Add(rawArchive(f, XZ, reg("t/../x", "x")))
	var buf bytes.Buffer
	if _, err := Write(context.Background(), &buf, sampleEntries(0), Options{Top: "s", Preset: 1}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte{0xFD, '7', 'z', 'X', 'Z', 0, 0, 4, 0xE6, 0xD6, 0xB4, 0x46})
	f.Add([]byte{0x28, 0xB5, 0x2F, 0xFD})
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Inspect(context.Background(), bytes.NewReader(data))
		if err != nil {
			var ee *EntryError
			if errors.As(err, &ee) && ee.Err == nil {
				t.Fatalf("EntryError without reason: %v", err)
			}
			return
		}
		if rep.Top == "" || checkTop(rep.Top) != nil {
			t.Fatalf("accepted bad top %q", rep.Top)
		}
		if rep.Size != int64(len(data)) {
			t.Fatalf("Size %d, input %d bytes", rep.Size, len(data))
		}
		for _, e := range rep.Entries {
			if checkName(e.Path) != nil {
				t.Fatalf("accepted unsafe name %q", e.Path)
			}
		}
	})
}
