package layout_test

import (
	"archive/tar"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/layout"
)

// variantTree builds each deb with debtest, reads it with the real deb
// reader and lays the package out with the JetPack 6 profile.
func variantTree(t *testing.T, pname string, debs map[string][]debtest.File) (*layout.Tree, error) {
	t.Helper()
	prof, err := profile.ForJetPack("6")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := layout.New(prof)
	if err != nil {
		t.Fatal(err)
	}
	content := map[string][]byte{}
	var ins []layout.Input
	for name, files := range debs {
		b, err := debtest.Build(
			debtest.Deb{Control: "Package: " + name + "\nVersion: 1\nArchitecture: arm64\n", Files: files, AddParents: true},
		)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), name+".deb")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, readDeb(t, p, name, content)...)
	}
	return eng.Build(pname, ins, func(ref string) ([]byte, error) { return content[ref], nil })
}

func nodeAt(tr *layout.Tree, p string) *layout.Node {
	for i := range tr.Nodes {
		if tr.Nodes[i].Path == p {
			return &tr.Nodes[i]
		}
	}
	return nil
}

func hasChange(tr *layout.Tree, sub string) bool {
	for _, c := range tr.Changes {
		if strings.Contains(c, sub) {
			return true
		}
	}
	return false
}

const cuda = "usr/local/cuda-12.6/"
const copyright = "usr/share/doc/x/copyright"

// B: extras/CUPTI/lib64/libcupti.so.12 is a link to the targets/ file that
// lands on the same path: the file wins, the link's origin is recorded.
func TestVariantLinkOntoItsTarget(t *testing.T) {
	tr, err := variantTree(t, "cuda_cupti", map[string][]debtest.File{"cuda-cupti-12-6": {
		{Name: cuda + "targets/aarch64-linux/lib/libcupti.so.12", Body: []byte("ELF cupti")},
		{
			Name:     cuda + "extras/CUPTI/lib64/libcupti.so.12",
			Type:     tar.TypeSymlink,
			Linkname: "../../../targets/aarch64-linux/lib/libcupti.so.12",
		},
		{Name: copyright, Body: []byte("c")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	n := nodeAt(tr, "lib/libcupti.so.12")
	if n == nil || n.Type != entry.Regular || len(n.Origins) != 2 ||
		!strings.Contains(n.Origins[1].Path, "extras/CUPTI/lib64") {
		t.Fatalf("lib/libcupti.so.12 = %+v, want the file with both origins", n)
	}
	if !hasChange(tr, "merged into the file it resolves to at lib/libcupti.so.12") {
		t.Errorf("no change line: %q", tr.Changes)
	}
	// Any other conflict stays an error, said once.
	_, err = variantTree(t, "cuda_cupti", map[string][]debtest.File{"cuda-cupti-12-6": {
		{Name: cuda + "targets/aarch64-linux/lib/libcupti.so.12", Body: []byte("ELF cupti")},
		{Name: cuda + "extras/CUPTI/lib64/libcupti.so.12", Type: tar.TypeSymlink, Linkname: "libcupti.so.12.6"},
		{Name: cuda + "extras/CUPTI/lib64/libcupti.so.12.6", Body: []byte("x")},
	}})
	var ce *fault.ConflictError
	if !errors.As(err, &ce) || strings.Count(err.Error(), "different entry types") != 1 ||
		strings.Count(err.Error(), "redist package cuda_cupti") != 1 {
		t.Fatalf("got %v, want one conflict naming its reason once", err)
	}
	// A link that resolves to itself with nothing shipped there is an error.
	_, err = variantTree(t, "cuda_cupti", map[string][]debtest.File{"cuda-cupti-12-6": {
		{
			Name:     cuda + "extras/CUPTI/lib64/libcupti.so.12",
			Type:     tar.TypeSymlink,
			Linkname: "../../../targets/aarch64-linux/lib/libcupti.so.12",
		},
	}})
	var le *fault.LinkError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "resolves to itself") {
		t.Fatalf("got %v, want a LinkError for a self link", err)
	}
}

// E2: links into /etc/alternatives are resolved by the profile's link
// rules (cuDNN headers) or dropped with a warning; never fatal.
func TestVariantAlternativesLinks(t *testing.T) {
	inc := "usr/include/aarch64-linux-gnu/"
	tr, err := variantTree(t, "cudnn", map[string][]debtest.File{"libcudnn9-dev-cuda-12": {
		{Name: inc + "cudnn_v9.h", Body: []byte("h")},
		{Name: inc + "cudnn.h", Type: tar.TypeSymlink, Linkname: "/etc/alternatives/libcudnn"},
		{
			Name:     "usr/lib/aarch64-linux-gnu/libcudnn_stray.so",
			Type:     tar.TypeSymlink,
			Linkname: "/etc/alternatives/libcudnn_stray_so",
		},
		{Name: copyright, Body: []byte("c")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n := nodeAt(tr, "include/cudnn.h"); n == nil || n.Type != entry.Symlink || n.Link != "cudnn_v9.h" {
		t.Fatalf("include/cudnn.h = %+v, want the rule's link to cudnn_v9.h", n)
	}
	if nodeAt(tr, "lib/libcudnn_stray.so") != nil {
		t.Errorf("an alternatives link no rule resolves must be dropped")
	}
	if !hasChange(
		tr,
		"cudnn.h: link to /etc/alternatives/libcudnn resolved by the profile's link rules as include/cudnn.h -> cudnn_v9.h",
	) ||
		!hasChange(tr, "warning: libcudnn9-dev-cuda-12:usr/lib/aarch64-linux-gnu/libcudnn_stray.so: link to "+
			"/etc/alternatives/libcudnn_stray_so dropped") {
		t.Errorf("changes: %q", tr.Changes)
	}
}

// F: a deb's own usr/local/cuda-X.Y/LICENSE lands on the merged LICENSE:
// merged (deduplicated), not a conflict.
func TestVariantDebLicense(t *testing.T) {
	tr, err := variantTree(t, "cuda_cudart", map[string][]debtest.File{
		"cuda-cudart-12-6": {
			{Name: cuda + "targets/aarch64-linux/lib/libcudart.so.12", Body: []byte("ELF")},
			{Name: cuda + "LICENSE", Body: []byte("NVIDIA license text\n")},
			{Name: cuda + "EULA.txt", Body: []byte("NVIDIA license text\n")},
			{Name: copyright, Body: []byte("copyright text\n")},
		},
		"cuda-cudart-dev-12-6": {{Name: cuda + "LICENSE", Body: []byte("NVIDIA license text\n")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	lic := nodeAt(tr, "LICENSE")
	if lic == nil || strings.Count(string(lic.Data), "NVIDIA license text") != 1 ||
		!strings.Contains(string(lic.Data), "copyright text") {
		t.Fatalf("LICENSE not merged and deduplicated: %+v", lic)
	}
	if !hasChange(tr, "cuda-cudart-dev-12-6:usr/local/cuda-12.6/LICENSE: license file merged into LICENSE") {
		t.Errorf("changes: %q", tr.Changes)
	}
}

// H: libcufile's etc/ is placed at etc/ as in NVIDIA's archive; etc/ of
// other packages is still unplaced, and the error lists every path.
func TestVariantEtc(t *testing.T) {
	tr, err := variantTree(t, "libcufile", map[string][]debtest.File{"libcufile-12-6": {
		{Name: cuda + "targets/aarch64-linux/lib/libcufile.so.0", Body: []byte("ELF")},
		{Name: "etc/cufile.json", Body: []byte("{}")},
		{Name: copyright, Body: []byte("c")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n := nodeAt(tr, "etc/cufile.json"); n == nil || n.Type != entry.Regular {
		t.Fatalf("etc/cufile.json not placed")
	}
	_, err = variantTree(t, "libcublas", map[string][]debtest.File{"libcublas-12-6": {
		{Name: "etc/cublas.conf", Body: []byte("x")},
		{Name: "opt/stray", Body: []byte("y")},
	}})
	var ue *fault.UnplacedError
	if !errors.As(err, &ue) || len(ue.Paths) != 2 || strings.Count(err.Error(), "redist package libcublas") != 1 {
		t.Fatalf("got %v, want both paths unplaced", err)
	}
}
