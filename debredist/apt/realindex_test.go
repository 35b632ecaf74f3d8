package apt

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealDebianIndex parses the machine's own apt lists
// (/var/lib/apt/lists/*_Packages*): every stanza must parse, and the count
// must equal the number of "Package:" lines. lz4 lists are decompressed with
// the lz4 tool; skipped when there is no list (not every machine has run apt
// update).
func TestRealDebianIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real Debian index")
	}
	lists, _ := filepath.Glob("/var/lib/apt/lists/*_Packages*")
	var largest string
	var size int64
	for _, l := range lists {
		if fi, err := os.Stat(l); err == nil && fi.Size() > size && !strings.HasSuffix(l, ".diff_Index") {
			largest, size = l, fi.Size()
		}
	}
	if largest == "" {
		t.Skip("no /var/lib/apt/lists/*_Packages* on this machine")
	}
	open := func(t *testing.T) io.ReadCloser {
		if !strings.HasSuffix(largest, ".lz4") {
			f, err := os.Open(largest)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		lz4, err := exec.LookPath("lz4")
		if err != nil {
			t.Skipf("%s is lz4-compressed and lz4 is not installed", largest)
		}
		cmd := exec.Command(lz4, "-dc", largest)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Wait() })
		return out
	}
	// Count "Package:" lines on one pass, parse on another.
	want := 0
	rc := open(t)
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), []byte("Package:")) {
			want++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	_ = rc.Close()

	rc = open(t)
	defer func() { _ = rc.Close() }()
	s, err := NewScanner(rc, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	got := 0
	for {
		p, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", largest, err)
		}
		if p.Source == "" || p.Size <= 0 || len(p.SHA256) != 64 {
			t.Errorf("%s: incomplete package %+v", largest, p)
		}
		got++
	}
	if len(s.Problems()) != 0 {
		t.Errorf("%s: %d problems, first: %v", largest, len(s.Problems()), s.Problems()[0])
	}
	if got != want || got == 0 {
		t.Errorf("%s: parsed %d stanzas, grep counts %d Package: lines", largest, got, want)
	}
	t.Logf("%s: %d packages", filepath.Base(largest), got)
}
