package debredist

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/nixoverlay"
	"github.com/debredist/debredist/internal/testutil"
)

// writeNixTree writes manifests and their provenance sidecars under
// dir/<product>/redist/, as Convert lays them out, each archive a real one
// (one LICENSE in the top directory its name says) whose size and hashes
// the manifest and the sidecar record: an OUT verify.Dir finds nothing
// wrong with, which nix reads. prov gives the CUDA a product's sidecar
// records (a product without a manifest gets a stray sidecar).
func writeNixTree(t *testing.T, dir string, ms []*redist.Manifest, prov map[string]string) {
	t.Helper()
	write := func(p string, b []byte) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sidecar := func(product, label string, recs []redist.Archive) {
		b, err := json.Marshal(
			redist.Provenance{Tool: "debredist test", Profile: Profile{CUDA: prov[product]}, Archives: recs},
		)
		if err != nil {
			t.Fatal(err)
		}
		write(filepath.Join(dir, product, "redist", redist.SidecarName(label)), b)
	}
	for _, m := range ms {
		d := filepath.Join(dir, m.ReleaseProduct, "redist")
		var recs []redist.Archive
		for name, c := range m.Components {
			for _, pa := range c.Artifacts() {
				rel, ok := redist.CleanRelativePath(pa.Artifact.RelativePath)
				if !ok {
					continue
				}
				var buf bytes.Buffer
				res, err := archive.Write(context.Background(), &buf, []archive.Entry{{
					Header: entry.Header{Path: "LICENSE", Type: entry.Regular, Mode: 0o644, Size: 1},
					Open:   func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("L")), nil },
				}}, archive.Options{Top: archive.TopName(filepath.Base(rel)), Workers: 1})
				if err != nil {
					t.Fatal(err)
				}
				write(filepath.Join(d, rel), buf.Bytes())
				pa.Artifact.Size, pa.Artifact.SHA256, pa.Artifact.MD5 = strconv.FormatInt(res.Size, 10), res.SHA256, res.MD5
				recs = append(
					recs,
					redist.Archive{Product: m.ReleaseProduct, PName: name, Platform: pa.Platform, CUDAVariant: pa.CUDAVariant,
						Version: c.Version, RelativePath: pa.Artifact.RelativePath, Size: res.Size, SHA256: res.SHA256, MD5: res.MD5,
						NAR: res.NAR},
				)
			}
		}
		var b bytes.Buffer
		if err := redist.WriteManifest(&b, m); err != nil {
			t.Fatal(err)
		}
		write(filepath.Join(d, "redistrib_"+m.ReleaseLabel+".json"), b.Bytes())
		sidecar(m.ReleaseProduct, m.ReleaseLabel, recs)
	}
	for product := range prov {
		if !slices.ContainsFunc(ms, func(m *redist.Manifest) bool { return m.ReleaseProduct == product }) {
			sidecar(product, "x", nil) // a product without a manifest here: a stray sidecar
		}
	}
}

func nixManifest(product, label string, comps ...*redist.Component) *redist.Manifest {
	m := &redist.Manifest{
		ReleaseDate:    "2026-01-15",
		ReleaseLabel:   label,
		ReleaseProduct: product,
		Components:     map[string]*redist.Component{},
	}
	for _, c := range comps {
		m.Components[c.Name] = c
	}
	return m
}

func plainComp(pname, version, rel string) *redist.Component {
	return &redist.Component{Name: pname, License: "L", Version: version, Platforms: map[string]*redist.Platform{
		"linux-aarch64": {Artifact: &redist.Artifact{RelativePath: rel, SHA256: strings.Repeat("a", 64), Size: "1"}},
	}}
}

func variantComp(pname, version, rel string) *redist.Component {
	return &redist.Component{
		Name:        pname,
		License:     "L",
		Version:     version,
		CUDAVariant: []string{"12"},
		Platforms: map[string]*redist.Platform{
			"linux-aarch64": {
				Variants: map[string]*redist.Artifact{"cuda12": {RelativePath: rel, SHA256: strings.Repeat("b", 64), Size: "2"}},
			},
		},
	}
}

func fullTree() []*redist.Manifest {
	return []*redist.Manifest{
		nixManifest("cuda", "12.6.68",
			plainComp("cuda_nvcc", "12.6.68", "cuda_nvcc/linux-aarch64/cuda_nvcc-linux-aarch64-12.6.68-archive.tar.xz"),
			plainComp("cuda_cudart", "12.6.68", "cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz")),
		nixManifest("cudnn", "9.3.0",
			variantComp("cudnn", "9.3.0.75", "cudnn/linux-aarch64/cudnn-linux-aarch64-9.3.0.75_cuda12-archive.tar.xz")),
		nixManifest(
			"tensorrt",
			"10.3.0",
			variantComp(
				"tensorrt",
				"10.3.0.30",
				"tensorrt/linux-aarch64/tensorrt-linux-aarch64-10.3.0.30_cuda12-archive.tar.xz",
			),
		),
	}
}

// nixData is what Nix reads of an output directory.
type nixData = nixoverlay.Data

func decodeNixData(t *testing.T, raw []byte) nixData {
	t.Helper()
	var d nixData
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// label is a manifest's release_label as the data carries it.
func label(t *testing.T, m json.RawMessage) string {
	t.Helper()
	var v struct {
		ReleaseLabel string `json:"release_label"`
	}
	if err := json.Unmarshal(m, &v); err != nil {
		t.Fatal(err)
	}
	return v.ReleaseLabel
}

func TestNixSnippet(t *testing.T) {
	tests := []struct {
		name      string
		subdir    string // output directory below t.TempDir()
		manifests []*redist.Manifest
		prov      map[string]string // product -> CUDA recorded in its provenance
		extra     map[string]string // more files: path below out -> content
		check     func(t *testing.T, d nixData, r *NixResult, out string)
		wantErr   string // substring of the error
	}{
		{name: "full", subdir: "out", manifests: fullTree(), check: checkNixFull},
		{
			name: "provenance sidecars and temp dir ignored", subdir: "out", manifests: fullTree(),
			prov:  map[string]string{"cuda": "12.6"},
			extra: map[string]string{".debredist-tmp/cuda/redist/redistrib_1.0.0.json": "{}"},
			check: checkNixFull,
		},
		{
			name: "no cuda manifest: CUDA from provenance", subdir: "out",
			manifests: []*redist.Manifest{
				nixManifest("cudnn", "9.12.0", variantComp("cudnn", "9.12.0.1", "cudnn/linux-sbsa/c.tar.xz")),
			},
			prov: map[string]string{"cudnn": "13.0"},
			check: func(t *testing.T, d nixData, r *NixResult, out string) {
				if d.Set != "cudaPackages_13_0" || d.MajorSet != "cudaPackages_13" || label(t, d.Manifests["cudnn"]) != "9.12.0" {
					t.Errorf("set %s/%s, manifests %v", d.Set, d.MajorSet, d.Manifests)
				}
			},
		},
		{
			name: "no cuda manifest, no provenance", subdir: "out",
			manifests: []*redist.Manifest{nixManifest("cudnn", "9.3.0", variantComp("cudnn", "9.3.0.75", "cudnn/x.tar.xz"))},
			wantErr:   "cannot name the cudaPackages set",
		},
		{
			name:    "empty directory",
			subdir:  "out",
			wantErr: "is not a debredist output directory (no redistrib_*.json, no .debredist)",
		},
		{
			name: "path with a space, quotes and an interpolation", subdir: `my "out" ${dir}`,
			manifests: []*redist.Manifest{
				nixManifest("cuda", "13.0.2", plainComp("cuda_nvcc", "13.0.2", "cuda_nvcc/linux-sbsa/n.tar.xz")),
			},
			check: func(t *testing.T, d nixData, r *NixResult, out string) {
				if want := "file://" + strings.ReplaceAll(
					strings.ReplaceAll(strings.ReplaceAll(out, " ", "%20"), `"`, "%22"), "{", "%7B",
				); !strings.HasPrefix(d.BaseURL, "file://") || !strings.Contains(d.BaseURL, "my%20%22out%22") {
					t.Errorf("base_url %q, want about %q", d.BaseURL, want)
				}
				if strings.Contains(r.Text, out) {
					t.Errorf("the directory's path is printed outside the data string:\n%s", r.Text)
				}
				if !slices.Contains(r.Archives, filepath.Join(out, "cuda", "redist", "cuda_nvcc", "linux-sbsa", "n.tar.xz")) {
					t.Errorf("archives %v", r.Archives)
				}
			},
		},
		{
			name: "unsafe relative_path", subdir: "out",
			manifests: []*redist.Manifest{nixManifest("cuda", "12.6.68", plainComp("cuda_nvcc", "12.6.68", "../../etc/passwd"))},
			wantErr: `cuda_nvcc.linux-aarch64.relative_path: "../../etc/passwd" is not a relative path below the manifest's ` +
				`directory`,
		},
		{
			name: "bad cuda label", subdir: "out",
			manifests: []*redist.Manifest{nixManifest("cuda", "twelve", plainComp("cuda_nvcc", "12.6.68", "n.tar.xz"))},
			wantErr:   `release_label: "twelve" is not dotted numbers`,
		},
		{
			name: "product not a product name", subdir: "out",
			manifests: []*redist.Manifest{nixManifest("cu da", "12.6.68", plainComp("cuda_nvcc", "12.6.68", "n.tar.xz"))},
			wantErr:   `release_product: "cu da" is not a product name`,
		},
		{
			name: "component that Nix reserves", subdir: "out",
			manifests: []*redist.Manifest{nixManifest("cuda", "12.6.68", plainComp("__functor", "12.6.68", "n.tar.xz"))},
			wantErr:   `component "__functor": not a redist package name`,
		},
		// issue 37: a NUL cuts the string in Nix's builtins.fromJSON
		{
			name: "NUL in a version", subdir: "out",
			manifests: []*redist.Manifest{
				nixManifest("cuda", "12.6.68", plainComp("cuda_nvcc", "12.6.68\x00-evil", "n/linux-aarch64/n.tar.xz")),
			},
			wantErr: `cuda_nvcc.version: "12.6.68\x00-evil" is not dotted numbers`,
		},
		{
			name: "NUL in a license", subdir: "out",
			manifests: []*redist.Manifest{nixManifest("cuda", "12.6.68", func() *redist.Component {
				c := plainComp("cuda_nvcc", "12.6.68", "n/linux-aarch64/n.tar.xz")
				c.License = "L\x00icense"
				return c
			}())},
			wantErr: `cuda_nvcc.license: "L\x00icense" holds the character U+0000`,
		},
		{
			name: "two manifests of one product", subdir: "out",
			manifests: []*redist.Manifest{nixManifest("cuda", "12.6.68", plainComp("a", "1", "a.tar.xz"))},
			extra: map[string]string{
				"cuda/redist/redistrib_12.6.77.json":            `{"release_label":"12.6.77","release_product":"cuda"}`,
				"cuda/redist/debredist-provenance_12.6.77.json": `{"tool":"t"}`,
			},
			wantErr: "two cuda manifests",
		},
		{
			name: "not a manifest", subdir: "out",
			extra:   map[string]string{"cuda/redist/redistrib_1.json": `{}`},
			wantErr: "not a redist manifest",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), tc.subdir)
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			writeNixTree(t, out, tc.manifests, tc.prov)
			for p, content := range tc.extra {
				p = filepath.Join(out, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Nix(context.Background(), out, NixOptions{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Nix error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Nix: %v", err)
			}
			d := decodeNixData(t, got.Data)
			if d.Schema != "debredist.nix/v1" {
				t.Errorf("schema %q", d.Schema)
			}
			if !strings.Contains(got.Text, "builtins.fromJSON ") {
				t.Errorf("the data is not read with builtins.fromJSON:\n%s", got.Text)
			}
			tc.check(t, d, got, out)
			checkNixParses(t, got.Text)
		})
	}
}

// TestNixRefusesReservedNames (issue 37): no name nixpkgs' CUDA package
// set uses for itself (profile.ReservedNames, and the "_" class) is ever
// handed to it as a package: Nix refuses a manifest component of that name.
func TestNixRefusesReservedNames(t *testing.T) {
	for _, name := range append(slices.Clone(profile.ReservedNames), "_cuda") {
		out := t.TempDir()
		rel := name + "/linux-aarch64/" + name + "-linux-aarch64-12.6.68-archive.tar.xz"
		writeNixTree(t, out, []*redist.Manifest{nixManifest("cuda", "12.6.68", plainComp(name, "12.6.68", rel))}, nil)
		_, err := Nix(context.Background(), out, NixOptions{})
		want := `component "` + name + `": not a redist package name`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("component %s: Nix error = %v, want one containing %q", name, err, want)
		}
	}
}

// checkNixFull checks the data of fullTree (its archives do not exist:
// notes say so as problems no override fixes).
func checkNixFull(t *testing.T, d nixData, r *NixResult, out string) {
	t.Helper()
	if d.CUDA != "12.6" || d.Set != "cudaPackages_12_6" || d.MajorSet != "cudaPackages_12" || d.OwnSet {
		t.Errorf("cuda %s set %s major %s own %v", d.CUDA, d.Set, d.MajorSet, d.OwnSet)
	}
	if d.BaseURL != "file://"+out {
		t.Errorf("base_url %q", d.BaseURL)
	}
	for _, p := range []string{"cuda", "cudnn", "tensorrt"} {
		if d.Manifests[p] == nil || len(d.Archives[p]) == 0 {
			t.Errorf("%s: manifest %v archives %v", p, d.Manifests[p], d.Archives[p])
		}
	}
	got := d.Packages["cudnn"].Releases["linux-aarch64"].RelativePath
	if got != "cudnn/linux-aarch64/cudnn-linux-aarch64-9.3.0.75_cuda12-archive.tar.xz" {
		t.Errorf("cudnn's release (its cuda12 variant chosen): %q", got)
	}
	if d.Packages["tensorrt"].Redist != "tensorrt" || d.Packages["cuda_cudart"].Redist != "cuda" {
		t.Errorf("packages %+v", d.Packages)
	}
	want := filepath.Join(
		out,
		"tensorrt",
		"redist",
		"tensorrt",
		"linux-aarch64",
		"tensorrt-linux-aarch64-10.3.0.30_cuda12-archive.tar.xz",
	)
	if len(r.Archives) != 4 || !slices.Contains(r.Archives, want) {
		t.Errorf("archives %v", r.Archives)
	}
	if !slices.ContainsFunc(
		r.Notes,
		func(n string) bool { return strings.Contains(n, "find a problem no override fixes") },
	) {
		t.Errorf("notes do not say the archives are missing: %v", r.Notes)
	}
}

func TestNixSnippetRelativeDir(t *testing.T) {
	dir := t.TempDir()
	writeNixTree(t, dir, fullTree(), nil)
	t.Chdir(dir)
	got, err := Nix(context.Background(), ".", NixOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Nix(context.Background(), dir, NixOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != want.Text || decodeNixData(t, got.Data).BaseURL != "file://"+dir {
		t.Errorf("relative dir: got\n%s\nwant\n%s", got.Text, want.Text)
	}
}

// checkNixParses runs nix-instantiate --parse (Nix is a required tool
// under DEBREDIST_REQUIRE_TOOLS).
func checkNixParses(t *testing.T, snippet string) {
	t.Helper()
	testutil.RequireTool(t, "nix-instantiate")
	out, err := exec.Command("nix-instantiate", "--parse", "-E", snippet).CombinedOutput()
	if err != nil {
		t.Errorf("nix-instantiate --parse failed: %v\n%s\nsnippet:\n%s", err, out, snippet)
	}
}

// TestNixHostileStrings writes an OUT whose manifests carry what an
// attacker who can edit OUT's JSON would try (quotes, ${, backslashes, a
// comment's end, Nix keywords as package names) and checks that the
// printed overlay parses, that evaluating it in the stand-in runs none of
// it (builtins.abort would end the evaluation), and that every string
// arrives as the same string; line breaks, U+2028, U+2029, a byte order
// mark or NUL (which builtins.fromJSON cuts at) are refused as OUT's
// readers all refuse them, naming the field (issue 37).
func TestNixHostileStrings(t *testing.T) {
	testutil.RequireTool(t, "nix-instantiate")
	if os.Getenv("NIX_CONFIG") == "" {
		t.Setenv("NIX_CONFIG", "build-users-group =")
	}
	hostile := []string{
		`1"; x = builtins.abort "pwned"; y = "`,
		`${builtins.abort "pwned"}`,
		`\${builtins.abort "pwned"}\`,
		"2 # x = builtins.abort \"pwned\";",
		"3 '' ${x} ''",
		"*/ builtins.abort \"pwned\" /*",
	}
	var comps []*redist.Component
	names := []string{"if", "in", "rec", "let", "or", "assert"}
	for i, v := range hostile {
		c := plainComp(names[i], "12.6."+strconv.Itoa(i), "x/"+names[i]+".tar.xz")
		c.License = v
		comps = append(comps, c)
	}
	for _, v := range []string{"2\n  x = builtins.abort \"pwned\";\n#", "3\u2028\u2029", "\ufeffL", "L\x00x"} {
		refused := filepath.Join(t.TempDir(), "out")
		c := plainComp("cuda_nvcc", "12.6.68", "n/n.tar.xz")
		c.License = v
		writeNixTree(t, refused, []*redist.Manifest{nixManifest("cuda", "12.6.68", c)}, nil)
		if _, err := Nix(context.Background(), refused, NixOptions{}); err == nil ||
			!strings.Contains(err.Error(), "cuda_nvcc.license: "+strconv.Quote(v)+" holds the character") {
			t.Errorf("license %q: %v, want it refused naming the field", v, err)
		}
	}
	out := filepath.Join(t.TempDir(), `o"${x}`)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	writeNixTree(t, out, []*redist.Manifest{nixManifest("cuda", "12.6.68", comps...)}, nil)
	for _, derivations := range []bool{false} {
		r, err := Nix(context.Background(), out, NixOptions{Derivations: derivations})
		if err != nil {
			t.Fatal(err)
		}
		checkNixParses(t, r.Text)
		for _, v := range hostile {
			if strings.Contains(r.Text, v) {
				t.Errorf("a manifest string is in the Nix as it was written: %q", v)
			}
		}
		file := filepath.Join(t.TempDir(), "overlay.nix")
		if err := os.WriteFile(file, []byte(r.Text), 0o644); err != nil {
			t.Fatal(err)
		}
		sel := make([]string, len(names))
		for i, n := range names {
			sel[i] = `{ v = s."` + n + `".version; l = s.manifests.cuda."` + n + `".license; }`
		}
		abs, _ := filepath.Abs(standIn + "/nixpkgs")
		expr := `let s = (import ` + abs + ` { config = { allowUnfree = true; }; overlays = [ (import ` + file +
			`) ]; }).cudaPackages_12_6; in [ ` + strings.Join(
			sel,
			" ",
		) + ` ]`
		o, err := exec.Command("nix-instantiate", "--eval", "--strict", "--json", "--expr", expr).CombinedOutput()
		if err != nil {
			t.Fatalf("evaluating the overlay: %v\n%s", err, o)
		}
		var got []struct{ V, L string }
		if err := json.Unmarshal(o, &got); err != nil {
			t.Fatalf("%v: %s", err, o)
		}
		for i, g := range got {
			if g.V != "12.6."+strconv.Itoa(i) || g.L != hostile[i] {
				t.Errorf("package %s: version %q license %q, want %q", names[i], g.V, g.L, hostile[i])
			}
		}
	}
}

// TestNixDerivationsHostileStrings: the file of nix --derivations embeds
// the provenance sidecar as it was read; hostile text in it (and in a
// manifest's display name) stays a string: the file parses, evaluating
// it runs nothing, and the sidecar Nix hands to build-archive is the
// sidecar's bytes.
func TestNixDerivationsHostileStrings(t *testing.T) {
	testutil.RequireTool(t, "nix-instantiate")
	if os.Getenv("NIX_CONFIG") == "" {
		t.Setenv("NIX_CONFIG", "build-users-group =")
	}
	out := t.TempDir()
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: sampleMirror, CacheDir: t.TempDir()},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: out, Only: []string{"cuda_cudart"}},
		},
	)
	hostile := `x"; y = builtins.abort "pwned"; z = "${builtins.abort "pwned"}\ # */`
	sidecar, err := filepath.EvalSymlinks(filepath.Join(out, "cuda", "redist", "debredist-provenance_12.6.68.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(sidecar)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(hostile)
	edited := strings.Replace(string(b), `"tool": "`, `"tool": `+string(q[:len(q)-1]), 1)
	if edited == string(b) {
		t.Fatal("the sidecar has no tool field")
	}
	if err := os.WriteFile(sidecar, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Nix(context.Background(), out, NixOptions{Derivations: true})
	if err != nil {
		t.Fatal(err)
	}
	checkNixParses(t, r.Text)
	if strings.Contains(r.Text, hostile) || strings.Contains(r.Text, `builtins.abort "pwned"`) {
		t.Error("the sidecar's text is in the Nix as it was written")
	}
	file := filepath.Join(t.TempDir(), "redist.nix")
	if err := os.WriteFile(file, []byte(r.Text), 0o644); err != nil {
		t.Fatal(err)
	}
	expr := `builtins.readFile (builtins.elemAt (import ` + file +
		` { debredist = "/x"; }).archives.cuda.cuda_cudart.args 3)`
	o, err := exec.Command("nix-instantiate", "--eval", "--strict", "--json", "--read-write-mode", "--expr", expr).
		CombinedOutput()
	if err != nil {
		t.Fatalf("evaluating the derivations file: %v\n%s", err, o)
	}
	var got string
	if err := json.Unmarshal(o, &got); err != nil || got != edited {
		t.Errorf("the sidecar Nix hands to build-archive differs from the file (%v):\n%s", err, o)
	}
}

// TestNixArchivesEveryManifest: NixResult.Archives (what nix --add-to-store
// adds) lists every archive of OUT, the l4t DLA compiler's too, although
// the overlay leaves that manifest out (a note says so); with
// CopyArchivesTo each is a copy of its bytes.
func TestNixArchivesEveryManifest(t *testing.T) {
	out := t.TempDir()
	mustConvert(
		t,
		Options{
			Source:  Source{Mirror: sampleMirror, CacheDir: t.TempDir()},
			Release: Release{JetPack: "6"},
			Build:   Build{Out: out, Only: []string{"cuda_cudart", "nvidia_l4t_dla_compiler"}},
		},
	)
	want := []string{
		filepath.Join(
			out,
			"cuda",
			"redist",
			"cuda_cudart",
			"linux-aarch64",
			"cuda_cudart-linux-aarch64-12.6.68-archive.tar.xz",
		),
		filepath.Join(
			out,
			"l4t",
			"redist",
			"nvidia_l4t_dla_compiler",
			"linux-aarch64",
			"nvidia_l4t_dla_compiler-linux-aarch64-36.5.0-archive.tar.xz",
		),
	}
	r, err := Nix(context.Background(), out, NixOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(slices.Values(r.Archives)); !slices.Equal(got, want) {
		t.Errorf("archives %q, want %q", got, want)
	}
	if !slices.ContainsFunc(r.Notes, func(n string) bool {
		return strings.Contains(n, "l4t (") && strings.Contains(n, "left out of the overlay")
	}) {
		t.Errorf("no note that l4t is left out of the overlay: %q", r.Notes)
	}
	copies := t.TempDir()
	r, err = Nix(context.Background(), out, NixOptions{CopyArchivesTo: copies})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Archives) != len(want) {
		t.Fatalf("copies %q, want %d", r.Archives, len(want))
	}
	var got, wantSums []string
	for i, p := range r.Archives {
		if !strings.HasPrefix(p, copies+string(filepath.Separator)) {
			t.Errorf("%s is not a copy in %s", p, copies)
		}
		s, err := files.SHA256(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
		if s, err = files.SHA256(context.Background(), want[i]); err != nil {
			t.Fatal(err)
		}
		wantSums = append(wantSums, s)
	}
	if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(wantSums))) {
		t.Errorf("copies' sha256s %q, archives' %q", got, wantSums)
	}
}
