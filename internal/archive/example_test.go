package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/archive"
)

func ExampleWrite() {
	header := "int foo(void);\n"
	entries := []archive.Entry{
		{
			Header: entry.Header{Path: "include/foo.h", Type: entry.Regular, Mode: 0o644, Size: int64(len(header))},
			Open:   func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(header)), nil },
		},
		{Header: entry.Header{Path: "lib/libfoo.so", Type: entry.Symlink, Link: "libfoo.so.1"}},
	}
	var buf bytes.Buffer
	res, err := archive.Write(context.Background(), &buf, entries, archive.Options{
		Top:   "libfoo-linux-aarch64-1.0-archive",
		MTime: time.Unix(1700000000, 0),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := archive.Inspect(context.Background(), bytes.NewReader(buf.Bytes()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Top, res.Files, rep.SHA256 == res.SHA256, rep.NAR == res.NAR)
	for _, e := range rep.Entries {
		fmt.Println(strings.TrimSpace(fmt.Sprintln(e.Type, e.Mode, e.Path, e.Link)))
	}
	// Output:
	// libfoo-linux-aarch64-1.0-archive 2 true true
	// dir -rwxr-xr-x include
	// file -rw-r--r-- include/foo.h
	// dir -rwxr-xr-x lib
	// symlink -rwxrwxrwx lib/libfoo.so libfoo.so.1
}
