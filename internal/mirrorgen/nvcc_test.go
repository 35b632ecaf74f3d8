package mirrorgen

import (
	"fmt"
	"strings"
	"testing"
)

// TestNixpkgsEditsFind: in every suite, the compiler files nixpkgs edits
// with substituteInPlace --replace-fail (bin/nvcc.profile, include/crt/*.h;
// the rules and revisions are NixpkgsEdits') carry each string each edit
// replaces, in the deb that holds them (cuda-nvcc, or cuda-crt where the
// suite has it), so that the edits of every rule revision go through.
func TestNixpkgsEditsFind(t *testing.T) {
	for _, name := range Suites() {
		s, err := loadSuite(name)
		if err != nil {
			t.Fatal(err)
		}
		p := s.paths()
		files := func(pkg string) map[string]string {
			out := map[string]string{}
			if !s.has("common", pkg) {
				return out
			}
			pi, err := s.info("common", pkg)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range pi.build().files(DefaultPayload, DefaultSizeOf) {
				out[f.Name] = string(f.Body)
			}
			return out
		}
		nvcc, crt := files("cuda-nvcc-"+s.cudaDash), files("cuda-crt-"+s.cudaDash)
		read := func(pkg, rel string) (string, error) {
			if rel == "bin/nvcc.profile" {
				if b, ok := nvcc[p.root+"/"+rel]; ok {
					return b, nil
				}
			} else if b, ok := crt[p.tgt+"/"+rel]; ok {
				return b, nil
			} else if b, ok := nvcc[p.tgt+"/"+rel]; ok {
				return b, nil
			}
			return "", fmt.Errorf("not in the suite's cuda-nvcc or cuda-crt deb")
		}
		edits := NixpkgsEdits(s.cudaXY)
		if len(edits) < 10 {
			t.Fatalf("%s: only %d edits", name, len(edits))
		}
		if err := ApplyNixpkgsEdits(edits, read); err != nil {
			t.Errorf("suite %s (CUDA %s):\n%v", name, s.cudaXY, err)
		}
	}
}

// TestNVCCProfileByVersion: each CUDA generation's nvcc.profile is its own
// text, and the check tells them apart: the CUDA 11 text (the one text
// every version used to get) fails the rules of 12.6 (nixpkgs replaces
// $(TOP)/nvvm/) and 13.2 (the cccl include).
func TestNVCCProfileByVersion(t *testing.T) {
	p114, p126, p132 := NVCCProfile("11.4"), NVCCProfile("12.6"), NVCCProfile("13.2")
	if p114 == p126 || p126 == p132 || p114 == "" || NVCCProfile("12.4") != p114 || NVCCProfile("13.0") != p132 {
		t.Fatal("NVCCProfile does not follow the CUDA version")
	}
	for xy, missing := range map[string]string{"12.6": "$(TOP)/nvvm/", "13.2": "$(TOP)/$(_TARGET_DIR_)/include/cccl"} {
		var edits []NixpkgsEdit
		for _, e := range NixpkgsEdits(xy) {
			if e.Path == "bin/nvcc.profile" {
				edits = append(edits, e)
			}
		}
		err := ApplyNixpkgsEdits(edits, func(pkg, rel string) (string, error) { return p114, nil })
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q not found", missing)) {
			t.Errorf("CUDA %s with the CUDA 11 profile: %v, want %s not found", xy, err, missing)
		}
	}
}
