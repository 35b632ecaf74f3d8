package sbom

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/debredist/debredist/internal/testutil"
)

func sampleInput() *Input {
	f := func(p, c string) File {
		return File{Path: p, SHA256: strings.Repeat(c, 64), SHA1: strings.Repeat(c, 40), MD5: strings.Repeat(c, 32), Size: 10}
	}
	return &Input{Tool: "debredist 0.1.0", Created: time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC), Releases: []Release{{
		Manifest: "cuda/redist/redistrib_12.6.68.json", Product: "cuda", Label: "12.6.68", Profile: "jetpack6",
		JetPack: "6.2.2", L4T: "r36.5", ReleaseDate: "2026-01-15",
		Components: []Component{{
			PName: "libcublas", Name: "CUDA cuBLAS", Version: "12.6.1.4", Platform: "linux-aarch64",
			Archive: f("cuda/redist/libcublas/linux-aarch64/libcublas-linux-aarch64-12.6.1.4-archive.tar.xz", "a"),
			License: License{Name: "CUDA Toolkit", Text: "NVIDIA Software License Agreement\n"},
			Debs: []Deb{
				{
					Package:  "libcublas-12-6",
					Version:  "12.6.1.4-1",
					Filename: "pool/main/c/libcublas-12-6_12.6.1.4-1_arm64.deb",
					SHA256:   strings.Repeat("b", 64),
					URL:      "https://repo.download.nvidia.com/jetson/common/pool/main/c/libcublas-12-6_12.6.1.4-1_arm64.deb",
				},
			},
			Stubs: []Stub{
				{
					File:    f("lib/stubs/libcublas.so", "c"),
					From:    f("lib/libcublas.so.12.6.1.4", "d"),
					FromDeb: "libcublas-12-6_12.6.1.4-1_arm64.deb",
					SOName:  "libcublas.so.12",
				},
			},
		}},
	}}}
}

// TestWriteReproducible: the same Input gives the same bytes in both
// formats, and another content another namespace and serial number.
func TestWriteReproducible(t *testing.T) {
	for _, f := range []Format{SPDX, CycloneDX} {
		var a, b, c bytes.Buffer
		in := sampleInput()
		if err := Write(&a, in, f); err != nil {
			t.Fatal(err)
		}
		if err := Write(&b, sampleInput(), f); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%s: two writes differ", f)
		}
		in.Releases[0].Components[0].Debs[0].SHA256 = strings.Repeat("e", 64)
		if err := Write(&c, in, f); err != nil {
			t.Fatal(err)
		}
		var d1, d2 map[string]any
		testutil.Must(t, json.Unmarshal(a.Bytes(), &d1))
		testutil.Must(t, json.Unmarshal(c.Bytes(), &d2))
		key := "documentNamespace"
		if f == CycloneDX {
			key = "serialNumber"
		}
		if d1[key] == nil || d1[key] == d2[key] {
			t.Errorf("%s: %s %v does not change with the content (%v)", f, key, d1[key], d2[key])
		}
		if !bytes.Contains(a.Bytes(), []byte("2026-01-15T00:00:00Z")) {
			t.Errorf("%s: creation time is not the Input's", f)
		}
	}
}

// TestCheckRefuses: strings from OUT that could not be written faithfully
// are refused, naming the manifest, the archive and the field.
func TestCheckRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(in *Input)
		want string
	}{
		{
			"version with newline",
			func(in *Input) { in.Releases[0].Components[0].Debs[0].Version = "1\n2" },
			"not a Debian version",
		},
		{
			"deb path climbs",
			func(in *Input) { in.Releases[0].Components[0].Debs[0].Filename = "../x.deb" },
			"not a relative .deb path",
		},
		{"short sha256", func(in *Input) { in.Releases[0].Components[0].Archive.SHA256 = "abc" }, "sha256 \"abc\""},
		{
			"upper-case sha1",
			func(in *Input) { in.Releases[0].Components[0].Stubs[0].From.SHA1 = strings.Repeat("A", 40) },
			"sha1",
		},
		{"pname", func(in *Input) { in.Releases[0].Components[0].PName = "Lib/x" }, "pname \"Lib/x\""},
		{"url with quote", func(in *Input) { in.Releases[0].Components[0].Debs[0].URL = "https://x/\"y" }, "download URL"},
		{
			"empty license",
			func(in *Input) { in.Releases[0].Components[0].License.Text = " \n" },
			"license text (CUDA Toolkit) is empty",
		},
		{
			"control character in license",
			func(in *Input) { in.Releases[0].Components[0].License.Text = "a\x1bb" },
			"control character",
		},
		{"release date", func(in *Input) { in.Releases[0].ReleaseDate = "tomorrow" }, "release_date"},
		{
			"absolute stub path",
			func(in *Input) { in.Releases[0].Components[0].Stubs[0].File.Path = "/lib/x.so" },
			"stub path",
		},
	} {
		in := sampleInput()
		c.mod(in)
		err := Write(&bytes.Buffer{}, in, SPDX)
		if err == nil || !strings.Contains(err.Error(), c.want) ||
			!strings.HasPrefix(err.Error(), "cuda/redist/redistrib_12.6.68.json: ") {
			t.Errorf("%s: %v, want an error naming the manifest and %q", c.name, err, c.want)
		}
	}
	if err := Write(&bytes.Buffer{}, sampleInput(), "xml"); err == nil {
		t.Error("format xml accepted")
	}
}

// TestLicenseRefs: the license is a LicenseRef carrying the text, never an
// SPDX identifier; the deb's purl and download location are there.
func TestLicenseRefs(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, sampleInput(), SPDX); err != nil {
		t.Fatal(err)
	}
	var d struct {
		Licenses []struct{ LicenseID, ExtractedText, Name string } `json:"hasExtractedLicensingInfos"`
		Packages []struct {
			Name, LicenseDeclared, DownloadLocation string
			ExternalRefs                            []struct{ ReferenceLocator string }
		}
	}
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Licenses) != 1 || !strings.HasPrefix(d.Licenses[0].LicenseID, "LicenseRef-CUDA-Toolkit-") ||
		d.Licenses[0].ExtractedText != "NVIDIA Software License Agreement\n" {
		t.Fatalf("licenses: %+v", d.Licenses)
	}
	if len(d.Packages) != 2 || d.Packages[0].LicenseDeclared != d.Licenses[0].LicenseID ||
		d.Packages[1].DownloadLocation != "https://repo.download.nvidia.com/jetson/common/pool/main/c/"+
			"libcublas-12-6_12.6.1.4-1_arm64.deb" ||
		d.Packages[1].ExternalRefs[0].ReferenceLocator != "pkg:deb/nvidia/libcublas-12-6@12.6.1.4-1?arch=arm64" ||
		d.Packages[0].ExternalRefs[0].ReferenceLocator != "pkg:generic/nvidia/libcublas@12.6.1.4?platform=linux-aarch64" {
		t.Errorf("packages: %+v", d.Packages)
	}
}

// TestCPEs: every package and component carries its product's CPE 2.3
// (cpe.json) beside its purl, in both formats: CUDA Toolkit at the CUDA
// release's major.minor, another product at its release label, escaped
// for the formatted string binding; a product cpe.json does not list gets
// none, rather than a guessed one.
func TestCPEs(t *testing.T) {
	type doc struct {
		Packages []struct {
			Name         string
			ExternalRefs []struct{ ReferenceCategory, ReferenceType, ReferenceLocator string }
		}
		Components []struct{ Name, Purl, Cpe string }
	}
	for _, c := range []struct {
		product, label, want string
	}{
		{"cuda", "12.6.68", `cpe:2.3:a:nvidia:cuda_toolkit:12.6:*:*:*:*:*:*:*`},
		{"tensorrt", "10.3.0", `cpe:2.3:a:nvidia:tensorrt:10.3.0:*:*:*:*:*:*:*`},
		{"cudnn", "9.3.0+jp6", `cpe:2.3:a:nvidia:cudnn:9.3.0\+jp6:*:*:*:*:*:*:*`},
		{"l4t", "36.5.0", `cpe:2.3:o:nvidia:jetson_linux:36.5.0:*:*:*:*:*:*:*`},
		{"cusparselt", "0.7.1", ""},
	} {
		in := sampleInput()
		in.Releases[0].Product, in.Releases[0].Label = c.product, c.label
		for _, f := range []Format{SPDX, CycloneDX} {
			var b bytes.Buffer
			if err := Write(&b, in, f); err != nil {
				t.Fatal(err)
			}
			var d doc
			if err := json.Unmarshal(b.Bytes(), &d); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range d.Packages {
				cpe := ""
				for _, r := range p.ExternalRefs {
					if r.ReferenceType == "cpe23Type" && r.ReferenceCategory == "SECURITY" {
						cpe = r.ReferenceLocator
					}
				}
				got = append(got, p.Name+" "+cpe)
			}
			for _, c := range d.Components {
				got = append(got, c.Name+" "+c.Cpe)
			}
			if want := []string{"libcublas " + c.want, "libcublas-12-6 " + c.want}; strings.Join(
				got,
				"|",
			) != strings.Join(
				want,
				"|",
			) {
				t.Errorf("%s %s, %s: %q, want %q", c.product, c.label, f, got, want)
			}
		}
	}
}

// TestCycloneDXLicenseName: a CycloneDX license goes by its name ("CUDA
// Toolkit"), with its text and the SPDX document's LicenseRef as a
// property; never by the LicenseRef alone (a LicenseRef is no SPDX id).
func TestCycloneDXLicenseName(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, sampleInput(), CycloneDX); err != nil {
		t.Fatal(err)
	}
	var d struct {
		Components []struct {
			Licenses []struct {
				License struct {
					ID, Name   string
					Text       struct{ Content string }
					Properties []struct{ Name, Value string }
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	l := d.Components[0].Licenses
	if len(l) != 1 || l[0].License.ID != "" || l[0].License.Name != "CUDA Toolkit" ||
		l[0].License.Text.Content != "NVIDIA Software License Agreement\n" ||
		len(l[0].License.Properties) != 1 ||
		l[0].License.Properties[0].Name != "debredist:license_ref" ||
		l[0].License.Properties[0].Value != licenseRef(sampleInput().Releases[0].Components[0].License) {
		t.Errorf("licenses: %+v", l)
	}
}

// TestCPETable: cpe.json names each product as part:vendor:product with a
// known version rule and its evidence; a malformed entry is refused.
func TestCPETable(t *testing.T) {
	for p, r := range cpeRules {
		if r.Bulletins == "" || len(r.Evidence) < 40 {
			t.Errorf("cpe.json: %s: bulletins %q or evidence %q missing", p, r.Bulletins, r.Evidence)
		}
	}
	for _, bad := range []string{
		`{"products": {"cuda": {"cpe": "cpe:2.3:a:nvidia:cuda_toolkit:12.6", "version": "release", "evidence": "x"}}}`,
		`{"products": {"cuda": {"cpe": "cpe:2.3:a:nvidia:cuda_toolkit", "version": "component", "evidence": "x"}}}`,
		`{"products": {"cuda": {"cpe": "cpe:2.3:a:nvidia:cuda_toolkit", "version": "release"}}}`,
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("accepted %s", bad)
				}
			}()
			loadCPERules([]byte(bad))
		}()
	}
}
