package deb

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os/exec"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/testutil"
	"github.com/debredist/debredist/internal/xz"
)

// TestXZDictionaryInLaterStream: a data.tar.xz of two concatenated xz
// streams whose second block declares a 1 GiB dictionary is refused as a
// limit (not decoded with a 1 GiB dictionary) by the Go decoder and by the
// system xz alike: the first block header is not the only one checked.
func TestXZDictionaryInLaterStream(t *testing.T) {
	testutil.RequireTool(t, "xz")
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	body := bytes.Repeat([]byte("debredist "), 1000)
	for _, name := range []string{"./a", "./b"} {
		if err := tw.WriteHeader(&tar.Header{
			Name:     name,
			Mode:     0o644,
			Size:     int64(len(body)),
			Typeflag: tar.TypeReg,
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Must(t, tw.Close())
	half := tb.Len() / 2
	xzOf := func(b []byte) []byte {
		cmd := exec.Command("xz", "-c", "--lzma2=dict=1MiB")
		cmd.Stdin = bytes.NewReader(b)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	second := xzOf(tb.Bytes()[half:])
	hsize := (int(second[12]) + 1) * 4
	if second[12+2] != xz.FilterLZMA2 {
		t.Fatalf("unexpected block header % x", second[12:12+hsize])
	}
	second[12+4] = 36 // 1 GiB
	binary.LittleEndian.PutUint32(second[12+hsize-4:], crc32.ChecksumIEEE(second[12:12+hsize-4]))
	member := append(xzOf(tb.Bytes()[:half]), second...)
	d := mini()
	d.DataMember = member
	deb := mustBuild(t, d)
	for _, system := range []bool{false, true} {
		err := drain(context.Background(), bytes.NewReader(deb), Options{Name: "x.deb", SystemXZ: system, systemXZMin: 1})
		var e *fault.DebError
		if !errors.As(err, &e) || e.Kind != fault.DebLimit || e.Member != "data.tar.xz" {
			t.Errorf("system xz %v: err = %v, want a limit error on data.tar.xz", system, err)
			continue
		}
		t.Logf("system xz %v: %v", system, err)
		if msg := err.Error(); strings.Count(msg, "x.deb") != 1 {
			t.Errorf("system xz %v: %q names the deb more than once", system, msg)
		}
	}
}
