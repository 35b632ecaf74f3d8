package debredist

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// shapeOf describes a manifest component by its keys: the JSON structure
// with values replaced by their kind, relative paths by their pattern
// (versions and hashes vary; the form must not).
func shapeOf(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, e := range x {
				switch k {
				case "relative_path":
					s := regexp.MustCompile(`-[0-9.]+(_cuda[0-9.]+)?-archive`).ReplaceAllString(e.(string), "-VERSION$1-archive")
					out[k] = s
				case "sha256", "md5", "size", "version", "name", "license":
					out[k] = "string"
				default:
					out[k] = walk(e)
				}
			}
			return out
		}
		return v
	}
	b, _ := json.Marshal(walk(v))
	return string(b)
}

// TestCUDACompatInNVIDIAForm: cuda_compat is written in NVIDIA's exact
// form for each CUDA major: flat for CUDA 12 (as redistrib_cuda_12.6.3.json
// has it: debredist/testdata/nvidia, a copy of NVIDIA's file), nested under the set's CUDA major.minor for CUDA
// 13 (as NVIDIA's CUDA 13.2 manifests give it: "cuda_variant": ["13.2"],
// "cuda13.2" keys, _cuda13.2 file names), cuda_compat_orin flat.
func TestCUDACompatInNVIDIAForm(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	component := func(jp, label, name string) json.RawMessage {
		out := t.TempDir()
		mustConvert(
			t,
			Options{
				Source:  Source{Mirror: filepath.Join("..", "testdata", "sample-mirror"), CacheDir: cache},
				Release: Release{JetPack: jp},
				Build:   Build{Out: out, Only: []string{"cuda_compat", "cuda_compat_orin"}[:map[string]int{"6": 1, "7": 2}[jp]]},
			},
		)
		var m map[string]json.RawMessage
		err := json.Unmarshal(must(os.ReadFile(filepath.Join(out, "cuda", "redist", "redistrib_"+label+".json"))), &m)
		if err != nil {
			t.Fatal(err)
		}
		return m[name]
	}
	var nvidia map[string]json.RawMessage
	if err := json.Unmarshal(must(os.ReadFile("testdata/nvidia/redistrib_cuda_12.6.3.json")), &nvidia); err != nil {
		t.Fatal(err)
	}
	if got, want := shapeOf(t, component("6", "12.6.68", "cuda_compat")), shapeOf(t, nvidia["cuda_compat"]); got != want {
		t.Errorf("CUDA 12 cuda_compat:\n%s\nNVIDIA's 12.6.3:\n%s", got, want)
	}
	// NVIDIA's CUDA 13.2.x form, written out by hand (linux-aarch64 is
	// debredist's second key for Orin, see also_platforms).
	want13 := `{"cuda_variant":["13.2"],"license":"string","license_path":"cuda_compat/LICENSE.txt",` +
		`"linux-aarch64":{"cuda13.2":{"md5":"string",` +
		`"relative_path":"cuda_compat/linux-sbsa/cuda_compat-linux-sbsa-VERSION_cuda13.2-archive.tar.xz",` +
		`"sha256":"string","size":"string"}},` +
		`"linux-sbsa":{"cuda13.2":{"md5":"string",` +
		`"relative_path":"cuda_compat/linux-sbsa/cuda_compat-linux-sbsa-VERSION_cuda13.2-archive.tar.xz",` +
		`"sha256":"string","size":"string"}},` +
		`"name":"string","version":"string"}`
	if got := shapeOf(t, component("7", "13.2.75", "cuda_compat")); got != want13 {
		t.Errorf("CUDA 13 cuda_compat:\n%s\nwant NVIDIA's 13.2 form:\n%s", got, want13)
	}
	if got := shapeOf(t, component("7", "13.2.75", "cuda_compat_orin")); strings.Contains(got, "cuda_variant") ||
		!strings.Contains(
			got,
			`"relative_path":"cuda_compat_orin/linux-sbsa/cuda_compat_orin-linux-sbsa-VERSION-archive.tar.xz"`,
		) {
		t.Errorf("cuda_compat_orin is not flat as in NVIDIA's manifest: %s", got)
	}
}
