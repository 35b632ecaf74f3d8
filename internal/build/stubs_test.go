package build

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/elfstub"
	"github.com/debredist/debredist/internal/layout"
)

// stubTree is a built tree holding a real (elfstub-made) libdemo.so.3.1
// staged at a blob file, plus whatever extra nodes a case needs.
func stubTree(t *testing.T, body []byte, extra ...layout.Node) *layout.Tree {
	t.Helper()
	blob := filepath.Join(t.TempDir(), "1")
	if err := os.WriteFile(blob, body, 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &layout.Tree{PName: "libdemo", Nodes: []layout.Node{
		{Header: entry.Header{Path: "lib", Type: entry.Dir, Mode: 0o755}},
		{Header: entry.Header{Path: "lib/libdemo.so", Type: entry.Symlink, Link: "libdemo.so.3"}},
		{Header: entry.Header{Path: "lib/libdemo.so.3", Type: entry.Symlink, Link: "libdemo.so.3.1"}},
		{
			Header:  entry.Header{Path: "lib/libdemo.so.3.1", Type: entry.Regular, Mode: 0o755, Size: int64(len(body))},
			Digest:  "x",
			Ref:     blob,
			Origins: []fault.DebPath{{Deb: "libdemo3", Path: "usr/lib/aarch64-linux-gnu/libdemo.so.3.1"}},
		},
	}}
	tr.Nodes = append(tr.Nodes, extra...)
	return tr
}

func demoLibrary(t *testing.T) ([]byte, *elfstub.Library) {
	t.Helper()
	lib := &elfstub.Library{
		Machine:   elf.EM_AARCH64,
		ByteOrder: binary.LittleEndian,
		SOName:    "libdemo.so.3",
		Versioned: true,
		Versions:  []elfstub.Version{{Name: "libdemo.so.3", Flags: uint16(elf.VER_FLG_BASE)}, {Name: "libdemo.so.3"}},
		Symbols: []elfstub.Symbol{
			{Name: "demoRun", Kind: elfstub.Func, Bind: elf.STB_GLOBAL, VerIndex: 2, Version: "libdemo.so.3"},
			{Name: "demoState", Kind: elfstub.Object, Bind: elf.STB_GLOBAL, Size: 64, VerIndex: 2, Version: "libdemo.so.3"},
		},
	}
	b, err := elfstub.Write(lib)
	if err != nil {
		t.Fatal(err)
	}
	return b, lib
}

func stubProfile() profile.Profile {
	return profile.Profile{Name: "test", Rules: profile.Rules{Stubs: []profile.StubRule{
		{Packages: []string{"libdemo"}, Match: `^lib/(libdemo)\.so\.[0-9][0-9.]*$`, Name: "lib/stubs/${1}.so"},
	}}}
}

var demoDebs = []apt.Package{{Name: "libdemo3", Filename: "pool/main/libd/libdemo3_3.1-1_arm64.deb"}}

func TestAddStubs(t *testing.T) {
	t.Parallel()
	real, lib := demoLibrary(t)
	tr := stubTree(t, real)
	recs, err := addStubs(stubProfile(), "libdemo", tr, demoDebs)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	var stub *layout.Node
	for i, n := range tr.Nodes {
		paths = append(paths, n.Path)
		if n.Path == "lib/stubs/libdemo.so" {
			stub = &tr.Nodes[i]
		}
	}
	if want := []string{"lib", "lib/libdemo.so", "lib/libdemo.so.3", "lib/libdemo.so.3.1", "lib/stubs",
		"lib/stubs/libdemo.so"}; !reflect.DeepEqual(
		paths,
		want,
	) {
		t.Fatalf("tree %v, want %v", paths, want)
	}
	got, err := elfstub.Read(bytes.NewReader(stub.Data), int64(len(stub.Data)))
	if err != nil {
		t.Fatal(err)
	}
	if got.SOName != "libdemo.so.3" || !reflect.DeepEqual(got.Exports(), lib.Exports()) {
		t.Errorf("stub: %s %v, want libdemo.so.3 %v", got.SOName, got.Exports(), lib.Exports())
	}
	want := []redist.Stub{
		{
			Path:    "lib/stubs/libdemo.so",
			From:    "lib/libdemo.so.3.1",
			FromDeb: "libdemo3_3.1-1_arm64.deb",
			SOName:  "libdemo.so.3",
			Symbols: 2,
			SHA256:  stub.Digest,
		},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("provenance %+v, want %+v", recs, want)
	}
	if stub.Size != int64(len(stub.Data)) || stub.Mode != 0o755 {
		t.Errorf("stub node: size %d mode %v", stub.Size, stub.Mode)
	}
	// Same input, same bytes.
	tr2 := stubTree(t, real)
	recs2, err := addStubs(stubProfile(), "libdemo", tr2, demoDebs)
	if err != nil || !reflect.DeepEqual(recs, recs2) {
		t.Errorf("second run: %v %+v", err, recs2)
	}
}

func TestAddStubsKeepsShippedStub(t *testing.T) {
	t.Parallel()
	real, _ := demoLibrary(t)
	shipped := layout.Node{
		Header:  entry.Header{Path: "lib/stubs/libdemo.so", Type: entry.Regular, Mode: 0o755, Size: 3},
		Digest:  "nvidia",
		Ref:     "nvidia-stub",
		Origins: []fault.DebPath{{Deb: "libdemo-dev", Path: "usr/lib/aarch64-linux-gnu/stubs/libdemo.so"}},
	}
	tr := stubTree(t, real, layout.Node{Header: entry.Header{Path: "lib/stubs", Type: entry.Dir, Mode: 0o755}}, shipped)
	recs, err := addStubs(stubProfile(), "libdemo", tr, demoDebs)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 0 {
		t.Errorf("synthesized %+v over a stub the debs ship", recs)
	}
	for _, n := range tr.Nodes {
		if n.Path == shipped.Path && (n.Ref != shipped.Ref || n.Data != nil) {
			t.Errorf("the shipped stub was replaced: %+v", n)
		}
	}
	// Other packages are not touched.
	tr = stubTree(t, real)
	if recs, err := addStubs(stubProfile(), "other", tr, demoDebs); err != nil || len(recs) != 0 || len(tr.Nodes) != 4 {
		t.Errorf("rule applied to another package: %v %+v", err, recs)
	}
}

func TestAddStubsNotELF(t *testing.T) {
	t.Parallel()
	tr := stubTree(t, []byte("\x7fELF synthetic bytes, not a library"))
	_, err := addStubs(stubProfile(), "libdemo", tr, demoDebs)
	if err == nil {
		t.Fatal("no error for a library that is not ELF")
	}
	for _, want := range []string{"libdemo3_3.1-1_arm64.deb", "usr/lib/aarch64-linux-gnu/libdemo.so.3.1",
		"lib/stubs/libdemo.so", "not an ELF file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

func TestAddStubsTwoSources(t *testing.T) {
	t.Parallel()
	real, _ := demoLibrary(t)
	tr := stubTree(t, real, layout.Node{
		Header:  entry.Header{Path: "lib/libdemo.so.3.2", Type: entry.Regular, Mode: 0o755},
		Ref:     "other",
		Digest:  "y",
		Origins: []fault.DebPath{{Deb: "libdemo3", Path: "usr/lib/aarch64-linux-gnu/libdemo.so.3.2"}},
	})
	_, err := addStubs(stubProfile(), "libdemo", tr, demoDebs)
	if err == nil || !strings.Contains(err.Error(), "lib/libdemo.so.3.1 and lib/libdemo.so.3.2") {
		t.Errorf("two real libraries for one stub: %v", err)
	}
}

func TestAddStubsHardlink(t *testing.T) {
	t.Parallel()
	real, _ := demoLibrary(t)
	tr := stubTree(t, real)
	// The library file is a hardlink to another name of the deb.
	for i := range tr.Nodes {
		if tr.Nodes[i].Path == "lib/libdemo.so.3.1" {
			f := tr.Nodes[i]
			f.Path = "lib/libdemo-impl.bin"
			tr.Nodes[i] = layout.Node{
				Header:  entry.Header{Path: "lib/libdemo.so.3.1", Type: entry.Hardlink, Link: f.Path},
				Origins: f.Origins,
			}
			tr.Nodes = append(tr.Nodes, f)
		}
	}
	recs, err := addStubs(stubProfile(), "libdemo", tr, demoDebs)
	if err != nil || len(recs) != 1 || recs[0].From != "lib/libdemo.so.3.1" || recs[0].SOName != "libdemo.so.3" {
		t.Errorf("stub of a hardlinked library: %v %+v", err, recs)
	}
}
