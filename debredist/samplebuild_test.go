package debredist

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/mirrorgen"
	"github.com/debredist/debredist/internal/testutil"
)

// neededOutsideTheSet are the NEEDED sonames the sample's converted
// archives may name that no archive of a release provides: what a build
// of them resolves elsewhere. Named one by one (never a pattern), with who
// provides each, so a build harness can allow exactly these.
var neededOutsideTheSet = map[string]string{
	"libc.so.6": "glibc", "libm.so.6": "glibc", "libdl.so.2": "glibc", "libpthread.so.0": "glibc",
	"librt.so.1": "glibc", "ld-linux-aarch64.so.1": "glibc",
	"libstdc++.so.6": "GCC's libstdc++", "libgcc_s.so.1": "GCC's libgcc_s",
	"libz.so.1":       "zlib (cuDNN)",
	"libibverbs.so.1": "rdma-core (libcufile_rdma)",
	"libnuma.so.1":    "numactl (gdsio)",
	"libexpat.so.1":   "expat (cuda-gdb)",
	"libgmp.so.10":    "gmp (cuda-gdb, CUDA 12 on)",
	"libcuda.so.1":    "the driver: L4T's nvidia-l4t-cuda (JetPack 5, 6), the driver or cuda_compat (JetPack 7)",
	// L4T driver libraries (nvidia-l4t-core, nvidia-l4t-cuda,
	// nvidia-l4t-dla-compiler on JetPack 5 where it is part of the core).
	"libnvdla_compiler.so": "L4T nvidia-l4t-core (JetPack 5) / nvidia-l4t-dla-compiler",
	"libnvdla_runtime.so":  "L4T nvidia-l4t-core (cuDLA on JetPack 5)",
	"libnvcudla.so":        "L4T nvidia-l4t-cuda (cuDLA on JetPack 6, 7)",
	"libnvrm_gpu.so":       "L4T nvidia-l4t-core (cuda_compat)",
	"libnvrm_mem.so":       "L4T nvidia-l4t-core (cuda_compat)",
}

// sampleELF is one ELF file of a converted archive.
type sampleELF struct {
	archive, path string
	body          []byte
	exec          bool // mode has an executable bit
}

// sampleArchives reads every archive of a conversion: its ELF files, and
// the other regular files and links by archive and path.
type sampleArchives struct {
	elves []sampleELF
	files map[string]map[string][]byte // archive -> path -> content (non-ELF regular files)
	links map[string]map[string]string // archive -> path -> target
}

func readSampleArchives(t *testing.T, out string) sampleArchives {
	t.Helper()
	s := sampleArchives{files: map[string]map[string][]byte{}, links: map[string]map[string]string{}}
	err := walkOut(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if _, _, ok := archive.TrimExt(d.Name()); !ok {
			return nil
		}
		name := d.Name()
		s.files[name], s.links[name] = map[string][]byte{}, map[string]string{}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		top := archive.TopName(name)
		return archive.Walk(context.Background(), f, top, func(h entry.Header, r io.Reader) error {
			switch h.Type {
			case entry.Symlink:
				s.links[name][h.Path] = h.Link
			case entry.Regular:
				b, err := io.ReadAll(r)
				if err != nil {
					return err
				}
				if bytes.HasPrefix(b, []byte(elf.ELFMAG)) {
					s.elves = append(s.elves, sampleELF{name, h.Path, b, h.Mode&0o111 != 0})
				} else {
					s.files[name][h.Path] = b
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.files) == 0 {
		t.Fatalf("no archives in %s", out)
	}
	return s
}

// archiveOf returns the name of the conversion's archive of a redist
// package ("cuda_nvcc-linux-aarch64-12.6.68-archive.tar.xz"), or "".
func (s sampleArchives) archiveOf(pname string) string {
	for name := range s.files {
		if strings.HasPrefix(name, pname+"-linux-") {
			return name
		}
	}
	return ""
}

// TestSampleAsTheBuilderMeetsIt converts the sample mirror's JetPack 5, 6
// and 7 and reads every archive the way nixpkgs' builder does: every file
// that starts with the ELF magic parses (debug/elf) as a 64-bit aarch64
// executable or shared library; an executable has the glibc interpreter
// and a dynamic section, a library a SONAME it is found by in its
// directory; every NEEDED resolves to a library of the release's archives
// or is one of neededOutsideTheSet; the compiler files carry every string
// nixpkgs' substituteInPlace --replace-fail edits replace for that CUDA
// version (mirrorgen.NixpkgsEdits names the rule revisions); and the real
// patchelf edits bin/trtexec (TensorRT's postFixup: --add-needed
// libnvinfer_plugin.so.<major>), JetPack 5's lib/libcudnn.so (cuDNN 8's
// postFixup) and, as auto-patchelf does, sets interpreter and RUNPATH.
func TestSampleAsTheBuilderMeetsIt(t *testing.T) {
	for _, jp := range []string{"5", "6", "7"} {
		t.Run("jetpack"+jp, func(t *testing.T) {
			s := readSampleArchives(t, sbomOut(t, jp))
			checkSampleELF(t, s)
			checkSampleEdits(t, s)
			checkSamplePatchelf(t, s)
		})
	}
}

func checkSampleELF(t *testing.T, s sampleArchives) {
	t.Helper()
	provided := map[string]bool{}
	type lib struct {
		sampleELF
		needed []string
	}
	var all []lib
	for _, e := range s.elves {
		where := e.archive + ": " + e.path
		f, err := elf.NewFile(bytes.NewReader(e.body))
		if err != nil {
			t.Errorf("%s: starts with the ELF magic but does not parse: %v", where, err)
			continue
		}
		if f.Machine != elf.EM_AARCH64 || f.Class != elf.ELFCLASS64 {
			t.Errorf("%s: %v %v, want a 64-bit EM_AARCH64 file", where, f.Class, f.Machine)
		}
		needed, err := f.DynString(elf.DT_NEEDED)
		if err != nil || f.Section(".dynamic") == nil {
			t.Errorf("%s: no dynamic section (%v)", where, err)
		}
		all = append(all, lib{e, needed})
		interp := ""
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				b := make([]byte, p.Filesz)
				p.ReadAt(b, 0) //nolint:errcheck // checked by the comparison below
				interp = strings.TrimRight(string(b), "\x00")
			}
		}
		switch {
		case f.Type == elf.ET_EXEC || interp != "":
			if interp != "/lib/ld-linux-aarch64.so.1" || !e.exec {
				t.Errorf("%s: executable with interpreter %q, executable bit %v", where, interp, e.exec)
			}
		case f.Type == elf.ET_DYN:
			so, _ := f.DynString(elf.DT_SONAME)
			if len(so) != 1 || so[0] == "" {
				t.Errorf("%s: shared library with SONAME %v", where, so)
				continue
			}
			provided[so[0]] = true
			provided[path.Base(e.path)] = true
			dir := path.Dir(e.path)
			if path.Base(dir) != "stubs" && path.Base(e.path) != so[0] &&
				s.links[e.archive][path.Join(dir, so[0])] != path.Base(e.path) {
				t.Errorf("%s: SONAME %s: no such file or link next to it", where, so[0])
			}
		default:
			t.Errorf("%s: ELF type %v", where, f.Type)
		}
	}
	for a, links := range s.links {
		for p, target := range links {
			for _, e := range s.elves {
				if e.archive == a && e.path == path.Join(path.Dir(p), target) {
					provided[path.Base(p)] = true
				}
			}
		}
	}
	t.Logf("%d ELF files, %d provided names", len(all), len(provided))
	if len(all) < 20 {
		t.Fatalf("only %d ELF files in the archives", len(all))
	}
	for _, l := range all {
		for _, n := range l.needed {
			if !provided[n] && neededOutsideTheSet[n] == "" {
				t.Errorf(
					"%s: %s: NEEDED %s: no archive of the release has it, and it is not named as outside the set",
					l.archive,
					l.path,
					n,
				)
			}
		}
	}
}

var archiveVersionRE = regexp.MustCompile(`^cuda_nvcc-linux-[a-z0-9]+-(\d+\.\d+)\.`)

func checkSampleEdits(t *testing.T, s sampleArchives) {
	t.Helper()
	nvcc := s.archiveOf("cuda_nvcc")
	m := archiveVersionRE.FindStringSubmatch(nvcc)
	if m == nil {
		t.Fatalf("no cuda_nvcc archive (%q)", nvcc)
	}
	err := mirrorgen.ApplyNixpkgsEdits(mirrorgen.NixpkgsEdits(m[1]), func(pkg, rel string) (string, error) {
		a := s.archiveOf(pkg)
		b, ok := s.files[a][rel]
		if !ok {
			return "", fmt.Errorf("no %s in %q", rel, a)
		}
		return string(b), nil
	})
	if err != nil {
		t.Errorf("CUDA %s:\n%v", m[1], err)
	}
}

// checkSamplePatchelf runs the real patchelf on the files nixpkgs' fixups
// patch.
func checkSamplePatchelf(t *testing.T, s sampleArchives) {
	t.Helper()
	patchelf := testutil.RequireTool(t, "patchelf")
	trt := s.archiveOf("tensorrt")
	var plugin string // libnvinfer_plugin.so.<major>
	for _, e := range s.elves {
		if e.archive == trt && strings.HasPrefix(path.Base(e.path), "libnvinfer_plugin.so.") {
			if f, err := elf.NewFile(bytes.NewReader(e.body)); err == nil {
				if so, _ := f.DynString(elf.DT_SONAME); len(so) == 1 {
					plugin = so[0]
				}
			}
		}
	}
	targets := map[string][]string{trt + ": bin/trtexec": {"--add-needed", plugin}}
	if cudnn := s.archiveOf("cudnn"); s.links[cudnn]["lib/libcudnn.so"] == "libcudnn.so.8" {
		// cuDNN 8: patchelf lib/libcudnn.so --add-needed libcudnn_cnn_infer.so
		// follows lib/libcudnn.so -> libcudnn.so.8 -> libcudnn.so.8.x.y.
		targets[cudnn+": lib/"+s.links[cudnn]["lib/libcudnn.so.8"]] = []string{"--add-needed", "libcudnn_cnn_infer.so"}
	}
	if plugin == "" {
		t.Fatalf("%s: no libnvinfer_plugin library", trt)
	}
	var names []string
	for k := range targets {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		a, p, _ := strings.Cut(k, ": ")
		var body []byte
		for _, e := range s.elves {
			if e.archive == a && e.path == p {
				body = e.body
			}
		}
		if body == nil {
			t.Errorf("%s: not an ELF file of the archive", k)
			continue
		}
		file := filepath.Join(t.TempDir(), path.Base(p))
		if err := os.WriteFile(file, body, 0o755); err != nil {
			t.Fatal(err)
		}
		edit := targets[k]
		steps := [][]string{edit, {"--set-rpath", "/nix/store/00000000000000000000000000000000-deps/lib"}}
		if strings.HasPrefix(p, "bin/") {
			steps = append(
				steps,
				[]string{"--set-interpreter", "/nix/store/00000000000000000000000000000000-glibc/lib/ld-linux-aarch64.so.1"},
			)
		}
		for _, args := range steps {
			if b, err := exec.Command(patchelf, append(args, file)...).CombinedOutput(); err != nil {
				t.Errorf("%s: patchelf %s: %v\n%s", k, strings.Join(args, " "), err, b)
			}
		}
		f, err := elf.Open(file)
		if err != nil {
			t.Errorf("%s: after patchelf: %v", k, err)
			continue
		}
		needed, _ := f.DynString(elf.DT_NEEDED)
		rpath, _ := f.DynString(elf.DT_RUNPATH)
		if !strings.Contains(" "+strings.Join(needed, " ")+" ", " "+edit[1]+" ") || len(rpath) != 1 {
			t.Errorf("%s: after patchelf: NEEDED %v, RUNPATH %v", k, needed, rpath)
		}
		_ = f.Close()
	}
}
