package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/reldiff"
)

const sampleMirror = "../../testdata/sample-mirror"

func TestDiffCLI(t *testing.T) {
	cache := t.TempDir()
	code, stdout, stderr := cli(t, "diff", "--quiet", "--mirror", sampleMirror, "--cache", cache, "r36.4", "r36.5")
	if code != exitOK {
		t.Fatalf("diff: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"from r36.4 (mirror: l4t-r36.4, L4T r36.4, CUDA 12.6, released 2025-06-16)\n",
		"to   r36.5 (mirror: jetpack6, L4T r36.5, CUDA 12.6, released 2026-01-15)\n",
		"cuda 12.6.68  (27 components unchanged)\n",
		"l4t 36.4.4 -> 36.5.0\n",
		"  ~ nvidia_l4t_dla_compiler 36.4.4 -> 36.5.0\n",
		"      ~ nvidia-l4t-dla-compiler 36.4.4-20250616085344 -> 36.5.0-20260115194252\n",
		"1 component changed, 0 added, 0 removed; 1 deb change\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("diff output lacks %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr = cli(
		t,
		"diff",
		"--quiet",
		"--mirror",
		sampleMirror,
		"--cache",
		cache,
		"--files",
		"--json",
		"jetpack5",
		"jetpack6",
	)
	if code != exitOK {
		t.Fatalf("diff --files --json: exit %d: %s", code, stderr)
	}
	var r reldiff.Result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("diff --json: %v\n%s", err, stdout)
	}
	if !r.Files || r.From.L4T != "r35.6" || r.To.L4T != "r36.5" || r.Empty() {
		t.Errorf("diff --json: %+v", r)
	}
	found := false
	for _, p := range r.Products {
		for _, c := range p.Components {
			if c.PName == "cuda_cudart" && c.Files != nil && len(c.Files.Added) > 0 && len(c.Files.Removed) > 0 {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("diff --files --json: no path changes for cuda_cudart:\n%s", stdout)
	}

	// The same release from the mirror and through an alias: empty, exit 0.
	code, stdout, _ = cli(t, "diff", "--quiet", "--mirror", sampleMirror, "--cache", cache, "r36.5", "6")
	if code != exitOK || !strings.HasSuffix(stdout, "\nno differences\n") {
		t.Errorf("self diff: exit %d:\n%s", code, stdout)
	}
}

func TestDiffCLIErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"diff", "r36.5"}, exitUsage, "want 2 arguments, FROM and TO; got 1"},
		{[]string{"diff", "--mirror", sampleMirror, "jetpack99", "r36.5"}, exitUsage, `"jetpack99" is no file or directory`},
		{[]string{"diff", "--mirror", t.TempDir(), "r36.5", "r36.4"}, exitUsage, "no such suite r36.5 on the mirror"},
		{
			[]string{"diff", "--allow-unverified-index", "--mirror", t.TempDir(), "r36.5", "r36.4"},
			exitUsage,
			"no such suite r36.5 on the mirror",
		},
		{[]string{"diff", "--downloads", "-2", "r36.4", "r36.5"}, exitUsage, "--downloads -2"},
	} {
		code, _, stderr := cli(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

func TestInventoryCLI(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r36.5-debs.json")
	code, _, stderr := cli(t, "inventory", "--quiet", "--mirror", sampleMirror, "--l4t", "r36.5", "-o", out)
	if code != exitOK {
		t.Fatalf("inventory: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var inv map[string]map[string]map[string]string
	if err := json.Unmarshal(b, &inv); err != nil {
		t.Fatalf("inventory output: %v", err)
	}
	if e := inv["common"]["cuda-cudart-12-6"]; e["version"] != "12.6.68-1" || e["source"] != "cuda-cudart" ||
		!strings.HasPrefix(string(b), "{\n  \"common\": {\n") {
		t.Errorf("inventory: cuda-cudart-12-6 %v\n%.200s", e, b)
	}
	// Read back as a lock (the file name gives the suite to diff): the
	// same release. The meta-packages jetpack-nixos leaves out are not
	// compared (the format does not list them), so nothing differs.
	code, stdout, stderr := cli(t, "diff", "--quiet", "--mirror", sampleMirror, "--cache", t.TempDir(), out, "r36.5")
	if code != exitOK || !strings.Contains(stdout, "no differences") || strings.Contains(stdout, "cuda-toolkit-12-6") {
		t.Errorf("diff inventory r36.5: exit %d: %s%s", code, stdout, stderr)
	}
	code, stdout, _ = cli(t, "inventory", "--quiet", "--mirror", sampleMirror, "--l4t", "r36.5", "--format", "lock")
	if code != exitOK || !strings.Contains(stdout, `"suite": "r36.5"`) {
		t.Errorf("inventory --format lock: exit %d:\n%.300s", code, stdout)
	}
	code, _, stderr = cli(t, "inventory", "--l4t", "r36.5", "--format", "yaml")
	if code != exitUsage || !strings.Contains(stderr, `--format "yaml"`) {
		t.Errorf("--format yaml: exit %d, %s", code, stderr)
	}
}

func TestPrintDiffFiles(t *testing.T) {
	added := []string{"lib/a", "lib/b", "lib/c", "lib/d", "lib/e", "lib/f", "lib/g"}
	r := &reldiff.Result{
		From: reldiff.Side{
			Ref:         "r36.5",
			Origin:      "mirror",
			Profile:     "jetpack6",
			L4T:         "r36.5",
			CUDA:        "12.6",
			ReleaseDate: "2026-01-15",
		},
		To:    reldiff.Side{Ref: "my.json", Origin: "profile", Profile: "my", L4T: "r36.6", CUDA: "12.6"},
		Files: true,
		Products: []reldiff.Product{
			{Product: "cuda", FromLabel: "12.6.68", ToLabel: "12.6.77", Unchanged: 3, Components: []reldiff.ComponentChange{{
				PName: "cuda_cudart", Status: "changed", FromVersion: "12.6.68", ToVersion: "12.6.77",
				DebsChanged: []reldiff.DebChange{{Name: "cuda-cudart-12-6", FromVersion: "12.6.68-1", ToVersion: "12.6.77-1"}},
				DebsRenamed: []reldiff.DebRename{
					{From: reldiff.Deb{Name: "a-11-4", Version: "1"}, To: reldiff.Deb{Name: "a-12-6", Version: "2"}},
				},
				Files: &reldiff.Files{
					Added: added, Removed: []string{"lib/old"},
					TypeChanged: []reldiff.TypeChange{{Path: "include/x", From: entry.Dir, To: entry.Symlink}},
					LinkChanged: []reldiff.LinkChange{
						{Path: "lib/libcudart.so", From: "libcudart.so.12.6.68", To: "libcudart.so.12.6.77"},
					},
					Unplaced: []fault.DebPath{{Deb: "cuda-cudart-12-6", Path: "srv/nvidia/x.json"}},
				},
			}}},
		},
	}
	var b strings.Builder
	if err := printDiff(&b, r, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"to   my.json (profile: my, L4T r36.6, CUDA 12.6, released -)\n",
		"cuda 12.6.68 -> 12.6.77  (3 components unchanged)\n",
		"  ~ cuda_cudart 12.6.68 -> 12.6.77\n",
		"      ~ cuda-cudart-12-6 12.6.68-1 -> 12.6.77-1\n",
		"      > a-11-4 1 => a-12-6 2\n",
		"      paths: 7 added, 1 removed, 1 changed type, 1 link changed, 1 UNPLACED\n",
		"        + lib/e\n        + … 2 more (-v lists all)\n",
		"        - lib/old\n",
		"        T include/x (dir -> symlink)\n",
		"        L lib/libcudart.so -> libcudart.so.12.6.77 (was libcudart.so.12.6.68)\n",
		"        ! unplaced cuda-cudart-12-6: srv/nvidia/x.json\n",
		"1 component changed, 0 added, 0 removed; 2 deb changes; 10 path changes, 1 unplaced path\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := printDiff(&b, r, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "        + lib/g\n") || strings.Contains(b.String(), "more (-v") {
		t.Errorf("-v does not list every path:\n%s", b.String())
	}
}
