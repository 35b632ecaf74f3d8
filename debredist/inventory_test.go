package debredist

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/internal/mirrorgen"
)

func inventory(t *testing.T, o Options, format string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Inventory(context.Background(), o, &b, format); err != nil {
		t.Fatalf("inventory %s %s: %v", o.Release.L4T, format, err)
	}
	return b.Bytes()
}

// indexSHA256 maps repo/package to the SHA256 of a generated mirror's index.
func indexSHA256(t *testing.T, m, suite string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, repo := range []string{"common", "t234", "som"} {
		f, err := os.Open(filepath.Join(m, repo, "dists", suite, "main", "binary-arm64", "Packages"))
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs, _, err := apt.ParsePackages(f, apt.ParseOptions{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			out[repo+"/"+p.Name] = p.SHA256
		}
	}
	return out
}

// withSHA256 rewrites the "sha256" values of a jetpack-nixos inventory text
// (real debs) to those of the fixture's debs, touching nothing else.
func withSHA256(t *testing.T, real []byte, sums map[string]string) []byte {
	t.Helper()
	var out []string
	repo, pkg := "", ""
	for _, line := range strings.Split(string(real), "\n") {
		key, _, _ := strings.Cut(strings.TrimSpace(line), ":")
		switch {
		case strings.HasPrefix(line, "  \"") && !strings.HasPrefix(line, "   "):
			repo = strings.Trim(key, `"`)
		case strings.HasPrefix(line, "    \"") && !strings.HasPrefix(line, "     "):
			pkg = strings.Trim(key, `"`)
		case key == `"sha256"`:
			sum, ok := sums[repo+"/"+pkg]
			if !ok {
				t.Fatalf("%s/%s: in the real inventory, not in the fixture's index", repo, pkg)
			}
			comma := ""
			if strings.HasSuffix(line, ",") {
				comma = ","
			}
			line = fmt.Sprintf("      \"sha256\": %q%s", sum, comma)
		}
		out = append(out, line)
	}
	return []byte(strings.Join(out, "\n"))
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, x, y)
		}
	}
	return "same lines"
}

// planDigest is what a plan selects: products, and per component its
// version and debs (repo, name, version, filename, sha256).
func planDigest(p *plan.Plan) string {
	var b strings.Builder
	for _, pr := range p.Products {
		fmt.Fprintf(&b, "product %s %s\n", pr.Product, pr.Label)
	}
	for _, pkg := range p.Packages {
		fmt.Fprintf(&b, "%s %s %s %s %s\n", pkg.Product, pkg.PName, pkg.Version, pkg.Platform, pkg.CUDAVariant)
		var debs []string
		for _, d := range pkg.Debs {
			debs = append(debs, fmt.Sprintf("  %s/%s %s %s %s", d.Repo, d.Name, d.Version, d.Filename, d.SHA256))
		}
		sort.Strings(debs)
		b.WriteString(strings.Join(debs, "\n") + "\n")
	}
	fmt.Fprintf(&b, "release date %s cuda %s\n", p.Profile.ReleaseDate, p.Profile.CUDA)
	return b.String()
}

// TestInventory, for every fixture suite (every package of the real
// inventory in the mirror): the jetpack-nixos output equals the repo's copy
// of the real inventory byte for byte (with the fixture's sha256s), and both
// formats read back with --lock give the same plan as the mirror.
func TestInventory(t *testing.T) {
	t.Parallel()
	for _, suite := range mirrorgen.Suites() {
		t.Run(suite, func(t *testing.T) {
			m := mirror(t, mirrorgen.Options{Only: func(string, string) bool { return true }, Suites: []string{suite}})
			o := Options{Source: Source{Mirror: m, CacheDir: t.TempDir()}, Release: Release{L4T: suite}}
			got := inventory(t, o, InventoryJetPackNixos)
			real, err := os.ReadFile(filepath.Join("..", "testdata", "inventories", suite+"-debs.json"))
			if err != nil {
				t.Fatal(err)
			}
			if want := withSHA256(t, real, indexSHA256(t, m, suite)); !bytes.Equal(got, want) {
				t.Errorf("jetpack-nixos inventory differs from testdata/inventories/%s-debs.json: %s", suite, firstDiff(got, want))
			}

			pl, err := Plan(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			want := planDigest(pl)
			dir := t.TempDir()
			for _, c := range []struct{ format, l4t string }{{InventoryLock, ""}, {InventoryJetPackNixos, suite}} {
				file := filepath.Join(dir, c.format+".json")
				if err := os.WriteFile(file, inventory(t, o, c.format), 0o644); err != nil {
					t.Fatal(err)
				}
				back, err := Plan(context.Background(), Options{Release: Release{LockFile: file, L4T: c.l4t}})
				if err != nil {
					t.Fatalf("%s read back: %v", c.format, err)
				}
				if d := planDigest(back); d != want {
					t.Errorf("%s read back with --lock plans differently:\n%s\nwant\n%s", c.format, d, want)
				}
				// Reading a lock and writing it again is stable.
				again := inventory(t, Options{Release: Release{LockFile: file, L4T: c.l4t}}, c.format)
				if c.format == InventoryLock && !bytes.Equal(again, inventory(t, o, c.format)) {
					t.Errorf("lock -> inventory --format lock changed the bytes: %s", firstDiff(again, inventory(t, o, c.format)))
				}
			}
		})
	}
}

// TestInventoryR364R365 checks facts read by hand from the two real
// inventories: r36.5 drops cupva-2.5-l4t, deepstream-7.1, nvidia-cudnn9,
// nvidia-cudnn9-dev and nvidia-jetson-services from common and adds
// holoscan-cuda-12; nvidia-jetpack goes 6.2.1+b38 -> 6.2.2+b24 with its
// Source "nvidia-jetpack (6.2.1)" -> "(6.2.2)".
func TestInventoryR364R365(t *testing.T) {
	t.Parallel()
	all := func(string, string) bool { return true }
	m := mirror(t, mirrorgen.Options{Only: all, Suites: []string{"r36.4", "r36.5"}})
	read := func(suite string) map[string]map[string]map[string]string {
		var v map[string]map[string]map[string]string
		err := json.Unmarshal(
			inventory(t, Options{Source: Source{Mirror: m}, Release: Release{L4T: suite}}, InventoryJetPackNixos),
			&v,
		)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a, b := read("r36.4"), read("r36.5")
	var removed, added []string
	for n := range a["common"] {
		if _, ok := b["common"][n]; !ok {
			removed = append(removed, n)
		}
	}
	for n := range b["common"] {
		if _, ok := a["common"][n]; !ok {
			added = append(added, n)
		}
	}
	sort.Strings(removed)
	sort.Strings(added)
	if want := []string{"cupva-2.5-l4t", "deepstream-7.1", "nvidia-cudnn9", "nvidia-cudnn9-dev",
		"nvidia-jetson-services"}; !reflect.DeepEqual(
		removed,
		want,
	) {
		t.Errorf("removed in r36.5: %v, want %v", removed, want)
	}
	if want := []string{"holoscan-cuda-12"}; !reflect.DeepEqual(added, want) {
		t.Errorf("added in r36.5: %v, want %v", added, want)
	}
	x, y := a["common"]["nvidia-jetpack"], b["common"]["nvidia-jetpack"]
	if x["version"] != "6.2.1+b38" || y["version"] != "6.2.2+b24" || x["source"] != "nvidia-jetpack (6.2.1)" ||
		y["source"] != "nvidia-jetpack (6.2.2)" {
		t.Errorf("nvidia-jetpack: %v -> %v", x, y)
	}
	if _, ok := a["common"]["cuda-toolkit-12-6"]; ok {
		t.Error("cuda-toolkit-12-6 (first Description line says meta-package) is in the inventory")
	}
}
