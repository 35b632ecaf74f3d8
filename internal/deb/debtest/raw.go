package debtest

import (
	"fmt"
	"time"
)

// RawTarHeader hand-encodes one ustar header block (owner root/root, mtime
// mtime, mode 0644), with any name bytes and any type, for entries
// archive/tar refuses to write (NUL in names, devices, lying sizes).
func RawTarHeader(name string, typ byte, size int, mtime time.Time) []byte {
	h := make([]byte, 512)
	copy(h[0:100], name)
	copy(h[100:108], "0000644\x00")
	copy(h[108:116], "0000000\x00")
	copy(h[116:124], "0000000\x00")
	copy(h[124:136], fmt.Sprintf("%011o\x00", size))
	copy(h[136:148], fmt.Sprintf("%011o\x00", mtime.Unix()))
	h[156] = typ
	copy(h[257:265], "ustar\x0000")
	copy(h[265:269], "root")
	copy(h[297:301], "root")
	for i := 148; i < 156; i++ {
		h[i] = ' '
	}
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return h
}

// PaxRecord encodes one PAX extended-header record "<len> key=value\n",
// where <len> counts itself.
func PaxRecord(k, v string) string {
	s := " " + k + "=" + v + "\n"
	for n := len(s) + 1; ; n++ {
		if len(fmt.Sprint(n))+len(s) == n {
			return fmt.Sprint(n) + s
		}
	}
}
