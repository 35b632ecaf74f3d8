package debredist

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/sbom"
	"github.com/debredist/debredist/internal/testutil"
)

// sbomOuts holds one conversion (with Build.SBOM) of the sample mirror per
// JetPack, shared by the SBOM tests, which only read it.
var sbomOuts struct {
	sync.Mutex
	dirs map[string]string
	once map[string]*sync.Once
	errs map[string]error
}

func sbomOut(t *testing.T, jetpack string) string {
	t.Helper()
	sbomOuts.Lock()
	if sbomOuts.once == nil {
		sbomOuts.once, sbomOuts.dirs, sbomOuts.errs = map[string]*sync.Once{}, map[string]string{}, map[string]error{}
	}
	o := sbomOuts.once[jetpack]
	if o == nil {
		o = &sync.Once{}
		sbomOuts.once[jetpack] = o
	}
	sbomOuts.Unlock()
	o.Do(func() {
		dir, err := os.MkdirTemp("", "sbom-jp"+jetpack+"-")
		if err == nil {
			_, err = Convert(
				context.Background(),
				Options{Source: Source{Mirror: sampleMirror, CacheDir: filepath.Join(dir, "cache")},
					Release: Release{JetPack: jetpack}, Build: Build{Out: filepath.Join(dir, "out"), SBOM: true}},
			)
		}
		sbomOuts.Lock()
		sbomOuts.dirs[jetpack], sbomOuts.errs[jetpack] = filepath.Join(dir, "out"), err
		sbomOuts.Unlock()
	})
	sbomOuts.Lock()
	defer sbomOuts.Unlock()
	if err := sbomOuts.errs[jetpack]; err != nil {
		t.Fatalf("converting JetPack %s with --sbom: %v", jetpack, err)
	}
	return sbomOuts.dirs[jetpack]
}

func removeSBOMOuts() {
	for _, d := range sbomOuts.dirs {
		_ = os.RemoveAll(filepath.Dir(d))
	}
}

func sbomBytes(t *testing.T, out, format string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := SBOM(context.Background(), out, SBOMOptions{Format: format}, &b); err != nil {
		t.Fatalf("SBOM %s %s: %v", out, format, err)
	}
	return b.Bytes()
}

// outProvenance reads every sidecar of OUT's current output.
func outProvenance(t *testing.T, out string) map[string]*redist.Provenance {
	t.Helper()
	found, err := outdir.Find(out)
	if err != nil {
		t.Fatal(err)
	}
	ps := map[string]*redist.Provenance{}
	for _, mf := range found.Manifests { // relative to out
		p, _, err := redist.ReadSidecar(filepath.Join(out, mf))
		if err != nil {
			t.Fatal(err)
		}
		ps[mf] = p
	}
	if len(ps) == 0 {
		t.Fatalf("no manifest in %s", out)
	}
	return ps
}

type spdxTestDoc struct {
	SPDXVersion       string `json:"spdxVersion"`
	DataLicense       string `json:"dataLicense"`
	SPDXID            string `json:"SPDXID"`
	Name              string `json:"name"`
	DocumentNamespace string `json:"documentNamespace"`
	CreationInfo      struct {
		Creators []string `json:"creators"`
		Created  string   `json:"created"`
	} `json:"creationInfo"`
	Packages []struct {
		Name             string `json:"name"`
		SPDXID           string `json:"SPDXID"`
		VersionInfo      string `json:"versionInfo"`
		Supplier         string `json:"supplier"`
		DownloadLocation string `json:"downloadLocation"`
		LicenseDeclared  string `json:"licenseDeclared"`
		Checksums        []struct {
			Algorithm string `json:"algorithm"`
			Value     string `json:"checksumValue"`
		} `json:"checksums"`
		ExternalRefs []struct {
			Category string `json:"referenceCategory"`
			Type     string `json:"referenceType"`
			Locator  string `json:"referenceLocator"`
		} `json:"externalRefs"`
	} `json:"packages"`
	Files []struct {
		Name      string `json:"fileName"`
		SPDXID    string `json:"SPDXID"`
		Checksums []struct {
			Algorithm string `json:"algorithm"`
			Value     string `json:"checksumValue"`
		} `json:"checksums"`
	} `json:"files"`
	Licenses []struct {
		ID   string `json:"licenseId"`
		Text string `json:"extractedText"`
		Name string `json:"name"`
	} `json:"hasExtractedLicensingInfos"`
	Relationships []struct {
		A    string `json:"spdxElementId"`
		B    string `json:"relatedSpdxElement"`
		Type string `json:"relationshipType"`
	} `json:"relationships"`
}

func parseSPDX(t *testing.T, b []byte) *spdxTestDoc {
	t.Helper()
	var d spdxTestDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("SPDX document: %v", err)
	}
	return &d
}

// TestSBOMSample: on the sample mirror's JetPack 5, 6 and 7 conversions
// both documents come out the same twice; the SPDX document lists every
// archive of the provenance with its sha256 (as a package and as a file),
// every deb with its version, sha256 and purl, each of an archive's debs
// GENERATES it (never GENERATED_FROM, whose targets syft drops), each real
// library GENERATES its stub, a wheel's debs GENERATE it, and each
// component's LICENSE text as a LicenseRef with its name; every package
// carries the CPE of its product (cpe.json: CUDA Toolkit at the CUDA
// release's major.minor, cuDNN, TensorRT, Jetson Linux at their release);
// the CycloneDX document lists every archive with its sha256, every
// component with its CPE, and names each license (never by its LicenseRef
// alone).
func TestSBOMSample(t *testing.T) {
	t.Parallel()
	cpe := func(product, version string) string { return "cpe:2.3:" + product + ":" + version + ":*:*:*:*:*:*:*" }
	wantCPE := map[string]map[string]string{ // JetPack -> release product -> CPE
		"5": {
			"cuda":     cpe("a:nvidia:cuda_toolkit", "11.4"),
			"cudnn":    cpe("a:nvidia:cudnn", "8.6.0"),
			"tensorrt": cpe("a:nvidia:tensorrt", "8.5.2"),
		},
		"6": {
			"cuda":     cpe("a:nvidia:cuda_toolkit", "12.6"),
			"cudnn":    cpe("a:nvidia:cudnn", "9.3.0"),
			"tensorrt": cpe("a:nvidia:tensorrt", "10.3.0"),
			"l4t":      cpe("o:nvidia:jetson_linux", "36.5.0"),
		},
		"7": {
			"cuda":     cpe("a:nvidia:cuda_toolkit", "13.2"),
			"cudnn":    cpe("a:nvidia:cudnn", "9.20.0"),
			"tensorrt": cpe("a:nvidia:tensorrt", "10.16.2"),
		},
	}
	for _, jp := range []string{"5", "6", "7"} {
		t.Run("jetpack"+jp, func(t *testing.T) {
			t.Parallel()
			out := sbomOut(t, jp)
			spdx1, spdx2 := sbomBytes(t, out, SBOMSPDX), sbomBytes(t, out, SBOMSPDX)
			cdx1, cdx2 := sbomBytes(t, out, SBOMCycloneDX), sbomBytes(t, out, SBOMCycloneDX)
			if !bytes.Equal(spdx1, spdx2) || !bytes.Equal(cdx1, cdx2) {
				t.Fatal("two runs on the same OUT gave different bytes")
			}
			d := parseSPDX(t, spdx1)
			if d.SPDXVersion != "SPDX-2.3" || d.DataLicense != "CC0-1.0" ||
				!strings.HasPrefix(d.DocumentNamespace, "https://spdx.org/spdxdocs/debredist-") {
				t.Errorf("document header: %s %s %s", d.SPDXVersion, d.DataLicense, d.DocumentNamespace)
			}
			ids := map[string]string{} // SPDXID -> name
			pkgSHA := map[string]string{}
			pkgCPE := map[string]string{} // SPDXID -> its one CPE
			purlCPE := map[string]string{}
			for _, p := range d.Packages {
				ids[p.SPDXID] = p.Name + "@" + p.VersionInfo
				var cpes []string
				purl := ""
				for _, r := range p.ExternalRefs {
					switch {
					case r.Type == "cpe23Type" && r.Category == "SECURITY":
						cpes = append(cpes, r.Locator)
					case r.Type == "purl":
						purl = r.Locator
					}
				}
				if len(cpes) != 1 {
					t.Errorf("package %s: CPEs %v, want one (category SECURITY)", p.SPDXID, cpes)
				} else {
					pkgCPE[p.SPDXID], purlCPE[purl] = cpes[0], cpes[0]
				}
				for _, c := range p.Checksums {
					if c.Algorithm == "SHA256" {
						pkgSHA[p.SPDXID] = c.Value
					}
				}
				if l := p.LicenseDeclared; l != "NOASSERTION" && !strings.HasPrefix(l, "LicenseRef-") {
					t.Errorf("package %s declares %q: not a LicenseRef (no guessed SPDX id)", p.SPDXID, l)
				}
			}
			fileSHA := map[string]string{} // fileName -> sha256
			fileID := map[string]string{}
			for _, f := range d.Files {
				fileID[f.Name] = f.SPDXID
				for _, c := range f.Checksums {
					if c.Algorithm == "SHA256" {
						fileSHA[f.Name] = c.Value
					}
				}
			}
			rels := map[string]bool{}
			for _, r := range d.Relationships {
				rels[r.A+" "+r.Type+" "+r.B] = true
			}
			debID := func(name, version, sha string) string {
				for id, p := range ids {
					if p == name+"@"+version && pkgSHA[id] == sha {
						return id
					}
				}
				return ""
			}
			licTexts := map[string]bool{}
			for _, l := range d.Licenses {
				if !regexp.MustCompile(`^LicenseRef-[A-Za-z0-9.-]+$`).MatchString(l.ID) || l.Text == "" {
					t.Errorf("license %q: bad id or empty text", l.ID)
				}
				licTexts[l.Text] = true
			}
			archives, stubs, wheels := 0, 0, 0
			for mrel, p := range outProvenance(t, out) {
				for _, a := range p.Archives {
					archives++
					ar := "./" + path.Join(path.Dir(mrel), a.RelativePath)
					if fileSHA[ar] != a.SHA256 {
						t.Errorf("%s: file sha256 %q, provenance %s", ar, fileSHA[ar], a.SHA256)
					}
					want := wantCPE[jp][strings.SplitN(mrel, "/", 2)[0]]
					if want == "" {
						t.Fatalf("%s: no CPE expected for its product", mrel)
					}
					pkgID := ""
					for id, sum := range pkgSHA {
						if sum == a.SHA256 {
							pkgID = id
						}
					}
					if pkgID == "" {
						t.Errorf("%s: no package with its sha256", ar)
					} else if pkgCPE[pkgID] != want {
						t.Errorf("%s: package %s has the CPE %q, want %q", ar, pkgID, pkgCPE[pkgID], want)
					}
					for _, deb := range a.Debs {
						id := debID(deb.Package, deb.Version, deb.SHA256)
						if id == "" {
							t.Errorf("%s: deb %s %s (sha256 %s) is not a package", ar, deb.Package, deb.Version, deb.SHA256)
						} else if !rels[id+" GENERATES "+fileID[ar]] {
							t.Errorf("%s: %s does not GENERATE it", ar, id)
						} else if pkgCPE[id] != want {
							t.Errorf("%s: deb %s has the CPE %q, want %q", ar, id, pkgCPE[id], want)
						}
					}
					for _, s := range a.Stubs {
						sid, fid := fileID[ar+"/"+s.Path], fileID[ar+"/"+s.From]
						if sid == "" || fid == "" || fileSHA[ar+"/"+s.Path] != s.SHA256 || !rels[fid+" GENERATES "+sid] {
							t.Errorf(
								"%s: stub %s (from %s) missing, with another sha256, or its library does not GENERATE it",
								ar,
								s.Path,
								s.From,
							)
						}
						stubs++
					}
					for name, id := range fileID {
						if strings.HasPrefix(name, ar+"/python/") && strings.HasSuffix(name, ".whl") {
							wheels++
							if !slices.ContainsFunc(d.Relationships, func(r struct {
								A    string `json:"spdxElementId"`
								B    string `json:"relatedSpdxElement"`
								Type string `json:"relationshipType"`
							}) bool {
								return r.B == id && r.Type == "GENERATES" && strings.Contains(ids[r.A], "python3-libnvinfer")
							}) {
								t.Errorf("wheel %s: no python3-libnvinfer* deb GENERATES it", name)
							}
						}
					}
					lic, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(path.Dir(mrel)), a.PName, "LICENSE.txt"))
					if err != nil || !licTexts[string(lic)] {
						t.Errorf("%s: its LICENSE.txt is not a LicenseRef text (%v)", ar, err)
					}
				}
			}
			if archives == 0 || stubs == 0 {
				t.Errorf("%d archives, %d stubs in the document", archives, stubs)
			}
			if wheels == 0 {
				t.Errorf("JetPack %s: no wheel in the document", jp)
			}
			// CycloneDX: every archive with its sha256, by its path in OUT.
			var cd struct {
				BOMFormat, SpecVersion, SerialNumber string
				Metadata                             struct{ Timestamp string }
				Components                           []struct {
					Name, Version, Purl, Cpe string
					Hashes                   []struct{ Alg, Content string }
					Properties               []struct{ Name, Value string }
					Licenses                 []struct {
						License struct {
							ID, Name   string
							Properties []struct{ Name, Value string }
						}
					}
				}
			}
			if err := json.Unmarshal(cdx1, &cd); err != nil {
				t.Fatal(err)
			}
			if cd.BOMFormat != "CycloneDX" || cd.SpecVersion != "1.6" ||
				!regexp.MustCompile(`^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).
					MatchString(cd.SerialNumber) {
				t.Errorf("CycloneDX header: %s %s %s", cd.BOMFormat, cd.SpecVersion, cd.SerialNumber)
			}
			if cd.Metadata.Timestamp != d.CreationInfo.Created || !strings.HasSuffix(cd.Metadata.Timestamp, "T00:00:00Z") {
				t.Errorf("timestamps %s / %s: want the release date", cd.Metadata.Timestamp, d.CreationInfo.Created)
			}
			licName := map[string]string{} // SPDX LicenseRef -> name
			for _, l := range d.Licenses {
				licName[l.ID] = l.Name
			}
			cdxSHA := map[string]string{}
			for _, c := range cd.Components {
				if c.Cpe == "" || c.Cpe != purlCPE[c.Purl] {
					t.Errorf("CycloneDX: %s has the CPE %q, the SPDX document %q", c.Purl, c.Cpe, purlCPE[c.Purl])
				}
				for _, l := range c.Licenses {
					ref := ""
					for _, p := range l.License.Properties {
						if p.Name == "debredist:license_ref" {
							ref = p.Value
						}
					}
					if l.License.ID != "" || l.License.Name == "" || strings.HasPrefix(l.License.Name, "LicenseRef-") ||
						licName[ref] != l.License.Name {
						t.Errorf(
							"CycloneDX: %s: license id %q name %q (LicenseRef %q, named %q in the SPDX document): want the name, and the "+
								"LicenseRef as a property",
							c.Purl,
							l.License.ID,
							l.License.Name,
							ref,
							licName[ref],
						)
					}
				}
				for _, p := range c.Properties {
					if p.Name == "debredist:archive" {
						if len(c.Licenses) != 1 {
							t.Errorf("CycloneDX: archive %s: %d licenses, want 1", p.Value, len(c.Licenses))
						}
						for _, h := range c.Hashes {
							if h.Alg == "SHA-256" {
								cdxSHA["./"+p.Value] = h.Content
							}
						}
					}
				}
			}
			for name, sum := range fileSHA {
				if strings.HasSuffix(name, "-archive.tar.xz") && cdxSHA[name] != sum {
					t.Errorf("CycloneDX: %s sha256 %q, want %s", name, cdxSHA[name], sum)
				}
			}
		})
	}
}

// TestSBOMNTIAMinimumElements checks the NTIA minimum elements in the SPDX
// documents the way ntia-conformance-checker does (which cannot be
// installed here: not in Debian or npm, and PyPI is not reachable):
// author (creators) and timestamp of the document, and for every package a
// name, a version, a supplier and a unique identifier, plus the
// document's DESCRIBES relationships.
func TestSBOMNTIAMinimumElements(t *testing.T) {
	t.Parallel()
	for _, jp := range []string{"5", "6", "7"} {
		t.Run("jetpack"+jp, func(t *testing.T) {
			t.Parallel()
			d := parseSPDX(t, sbomBytes(t, sbomOut(t, jp), SBOMSPDX))
			if len(d.CreationInfo.Creators) == 0 || d.CreationInfo.Created == "" {
				t.Errorf("no author or timestamp: %v %q", d.CreationInfo.Creators, d.CreationInfo.Created)
			}
			seen := map[string]bool{}
			for _, p := range d.Packages {
				if p.Name == "" || p.VersionInfo == "" || p.Supplier == "" || p.Supplier == "NOASSERTION" || p.SPDXID == "" ||
					seen[p.SPDXID] {
					t.Errorf("package %q %q: name, version, supplier %q or unique id missing", p.SPDXID, p.Name, p.Supplier)
				}
				seen[p.SPDXID] = true
				if !slices.ContainsFunc(p.ExternalRefs, func(r struct {
					Category string `json:"referenceCategory"`
					Type     string `json:"referenceType"`
					Locator  string `json:"referenceLocator"`
				}) bool {
					return r.Type == "purl" && strings.HasPrefix(r.Locator, "pkg:")
				}) {
					t.Errorf("package %s: no purl", p.SPDXID)
				}
			}
			describes := 0
			for _, r := range d.Relationships {
				if r.A == "SPDXRef-DOCUMENT" && r.Type == "DESCRIBES" {
					describes++
				}
			}
			if len(d.Packages) == 0 || describes == 0 {
				t.Errorf("%d packages, %d DESCRIBES relationships", len(d.Packages), describes)
			}
		})
	}
}

// TestSBOMValidators runs the validators people use on the JetPack 5, 6
// and 7 documents: the SPDX project's pyspdxtools and the CycloneDX
// project's JSON schema check (cdx-validate: the CycloneDX JavaScript
// library, strict 1.6 schema); both installed by scripts/sbom-tools.sh.
// The documents convert --sbom wrote beside each manifest are checked too.
// JetPack 6 always; 5 and 7, a sweep, with DEBREDIST_LONG_TESTS=1 (CI).
func TestSBOMValidators(t *testing.T) {
	t.Parallel()
	spdxTool := testutil.RequireTool(t, "pyspdxtools")
	cdxTool := testutil.RequireTool(t, "cdx-validate")
	for _, jp := range []string{"5", "6", "7"} {
		t.Run("jetpack"+jp, func(t *testing.T) {
			if jp != "6" && !testutil.Long() {
				t.Skip("the sweep over JetPack 5 and 7 runs with DEBREDIST_LONG_TESTS=1, as CI does")
			}
			t.Parallel()
			out := sbomOut(t, jp)
			dir := t.TempDir()
			spdxFiles := []string{filepath.Join(dir, "out.spdx.json")}
			cdxFiles := []string{filepath.Join(dir, "out.cdx.json")}
			if err := os.WriteFile(spdxFiles[0], sbomBytes(t, out, SBOMSPDX), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cdxFiles[0], sbomBytes(t, out, SBOMCycloneDX), 0o644); err != nil {
				t.Fatal(err)
			}
			beside, _ := filepath.Glob(filepath.Join(out, "*", "redist", "debredist-sbom_*.json"))
			if len(beside) < 2 {
				t.Fatalf("convert --sbom wrote %v", beside)
			}
			// Every CycloneDX document in one run; of the SPDX documents
			// beside the manifests, cuda's (the largest): pyspdxtools takes
			// one file per run, half a second each.
			for _, f := range beside {
				switch {
				case strings.HasSuffix(f, ".cdx.json"):
					cdxFiles = append(cdxFiles, f)
				case strings.Contains(filepath.ToSlash(f), "/cuda/redist/"):
					spdxFiles = append(spdxFiles, f)
				}
			}
			if len(spdxFiles) != 2 || len(cdxFiles) != len(beside)/2+1 {
				t.Fatalf("documents beside the manifests: %v", beside)
			}
			for _, f := range spdxFiles {
				if b, err := exec.Command(spdxTool, "-i", f).CombinedOutput(); err != nil || len(bytes.TrimSpace(b)) > 0 {
					t.Errorf("pyspdxtools -i %s: %v\n%s", f, err, b)
				}
			}
			if b, err := exec.Command(cdxTool, cdxFiles...).CombinedOutput(); err != nil {
				t.Errorf("cdx-validate: %v\n%s", err, b)
			} else if n := strings.Count(string(b), "valid CycloneDX 1.6"); n != len(cdxFiles) {
				t.Errorf("cdx-validate said valid %d times for %d files:\n%s", n, len(cdxFiles), b)
			}
		})
	}
	// The validators do reject: a document with an unknown checksum
	// algorithm, and one with an unknown component type.
	out := sbomOut(t, "6")
	bad := filepath.Join(t.TempDir(), "bad.spdx.json")
	spdx := bytes.Replace(sbomBytes(t, out, SBOMSPDX), []byte(`"SHA1"`), []byte(`"SHA9"`), 1)
	testutil.Must(t, os.WriteFile(bad, spdx, 0o644))
	if b, err := exec.Command(spdxTool, "-i", bad).CombinedOutput(); err == nil && !bytes.Contains(b, []byte("SHA9")) {
		t.Errorf("pyspdxtools accepted a broken document: %s", b)
	}
	badc := filepath.Join(t.TempDir(), "bad.cdx.json")
	cdx := bytes.Replace(sbomBytes(t, out, SBOMCycloneDX), []byte(`"type": "library"`), []byte(`"type": "librar"`), 1)
	testutil.Must(t, os.WriteFile(badc, cdx, 0o644))
	if b, err := exec.Command(cdxTool, badc).CombinedOutput(); err == nil {
		t.Errorf("cdx-validate accepted a broken document: %s", b)
	}
}

// TestSBOMSyft reads both documents of the JetPack 6 sample conversion
// (5 and 7 too with DEBREDIST_LONG_TESTS=1) with syft, the SBOM tool
// scanners such as grype build on (scripts/sbom-tools.sh installs it):
// `syft convert` must keep every package of the document, each with its
// purl and the CPE the document gives it (syft drops an SPDX package that
// is the target of a GENERATED_FROM relationship: the debs were, until
// they became the source of a GENERATES).
func TestSBOMSyft(t *testing.T) {
	t.Parallel()
	syft := testutil.RequireTool(t, "syft")
	for _, jp := range []string{"5", "6", "7"} {
		t.Run("jetpack"+jp, func(t *testing.T) {
			if jp != "6" && !testutil.Long() {
				t.Skip("the sweep over JetPack 5 and 7 runs with DEBREDIST_LONG_TESTS=1, as CI does")
			}
			t.Parallel()
			out := sbomOut(t, jp)
			spdxDoc := sbomBytes(t, out, SBOMSPDX)
			want := map[string]string{} // purl -> CPE, from the SPDX document
			for _, p := range parseSPDX(t, spdxDoc).Packages {
				purl, cpe := "", ""
				for _, r := range p.ExternalRefs {
					switch r.Type {
					case "purl":
						purl = r.Locator
					case "cpe23Type":
						cpe = r.Locator
					}
				}
				if purl == "" || cpe == "" || want[purl] != "" {
					t.Fatalf("SPDX package %s: purl %q, CPE %q (or a purl twice)", p.SPDXID, purl, cpe)
				}
				want[purl] = cpe
			}
			dir := t.TempDir()
			for _, f := range []struct {
				name string
				doc  []byte
			}{{"out.spdx.json", spdxDoc}, {"out.cdx.json", sbomBytes(t, out, SBOMCycloneDX)}} {
				file := filepath.Join(dir, f.name)
				if err := os.WriteFile(file, f.doc, 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(syft, "convert", file, "-o", "syft-json", "-q")
				cmd.Env = append(os.Environ(), "SYFT_CHECK_FOR_APP_UPDATE=false")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				b, err := cmd.Output()
				if err != nil {
					t.Fatalf("syft convert %s: %v\n%s", f.name, err, stderr.Bytes())
				}
				var sj struct {
					Artifacts []struct {
						Name, Version, Purl string
						Cpes                []struct{ Cpe string }
					}
				}
				if err := json.Unmarshal(b, &sj); err != nil {
					t.Fatalf("syft convert %s: %v", f.name, err)
				}
				got := map[string]bool{}
				for _, a := range sj.Artifacts {
					got[a.Purl] = true
					if cpe, ok := want[a.Purl]; !ok {
						t.Errorf("syft, %s: package %s %s: purl %q is no package of the document", f.name, a.Name, a.Version, a.Purl)
					} else if !slices.ContainsFunc(a.Cpes, func(c struct{ Cpe string }) bool { return c.Cpe == cpe }) {
						t.Errorf("syft, %s: package %s %s: CPEs %v, want %s", f.name, a.Name, a.Version, a.Cpes, cpe)
					}
				}
				if len(sj.Artifacts) != len(want) || len(got) != len(want) {
					t.Errorf("syft kept %d of the %d packages of %s", len(got), len(want), f.name)
				}
			}
		})
	}
}

// TestSBOMRefusals: an archive whose bytes changed since the conversion,
// or a sidecar string that is not what debredist writes, fail naming the
// file and field; verify reports a bill of materials that disagrees with
// the archives; convert keeps the documents current in a later generation
// (here: every archive rebuilt for another mtime, without --sbom).
func TestSBOMRefusals(t *testing.T) {
	t.Parallel()
	cache, out := t.TempDir(), t.TempDir()
	opts := Options{
		Source:  Source{Mirror: sampleMirror, CacheDir: cache},
		Release: Release{JetPack: "6"},
		Build:   Build{Out: out, SBOM: true, Only: []string{"cuda_cudart", "libcublas"}},
	}
	mustConvert(t, opts)
	spdxDoc := filepath.Join(out, "cuda", "redist", "debredist-sbom_12.6.68.spdx.json")
	before, err := os.ReadFile(spdxDoc)
	if err != nil {
		t.Fatal(err)
	}
	// A later generation without --sbom rewrites the documents it carries.
	opts.Build.SBOM, opts.Build.MTime = false, mustTime(t, "2020-01-01")
	mustConvert(t, opts)
	after, err := os.ReadFile(spdxDoc)
	if err != nil {
		t.Fatalf("the document did not survive the next generation: %v", err)
	}
	if bytes.Equal(before, after) {
		t.Error("the document was carried over unchanged although every archive changed")
	}
	if rep, err := verify.Dir(context.Background(), out); err != nil || !rep.OK() {
		t.Fatalf("verify: %v %v", err, rep.Err())
	}
	// verify: a document that names another sha256.
	p := outProvenance(t, out)["cuda/redist/redistrib_12.6.68.json"]
	sum := p.Archives[0].SHA256
	testutil.Must(t, os.WriteFile(spdxDoc, bytes.ReplaceAll(after, []byte(sum), []byte(strings.Repeat("0", 64))), 0o644))
	rep, err := verify.Dir(context.Background(), out)
	if err != nil || rep.OK() ||
		!strings.Contains(
			rep.Err().Error(),
			"debredist-sbom_12.6.68.spdx.json: bill of materials gives cuda/redist/"+p.Archives[0].RelativePath,
		) {
		t.Errorf("verify of a wrong document: %v %v", err, rep.Err())
	}
	testutil.Must(t, os.WriteFile(spdxDoc, after, 0o644))

	// A changed archive.
	arch := filepath.Join(out, "cuda", "redist", filepath.FromSlash(p.Archives[0].RelativePath))
	orig, _ := os.ReadFile(arch)
	testutil.Must(t, os.WriteFile(arch, append(slices.Clone(orig), 0), 0o644))
	var b bytes.Buffer
	err = SBOM(context.Background(), out, SBOMOptions{Format: SBOMSPDX}, &b)
	if err == nil || !strings.Contains(err.Error(), p.Archives[0].RelativePath) ||
		!strings.Contains(err.Error(), "is not a valid output") ||
		!strings.Contains(err.Error(), "bytes, manifest says") ||
		b.Len() > 0 {
		t.Errorf("changed archive: %v (%d bytes written)", err, b.Len())
	}
	testutil.Must(t, os.WriteFile(arch, orig, 0o644))

	// A hostile sidecar: a deb version with a newline, a pool path that climbs.
	side := filepath.Join(out, "cuda", "redist", "debredist-provenance_12.6.68.json")
	sb, _ := os.ReadFile(side)
	for _, c := range []struct{ from, to, want string }{
		{
			`"version": "12.6.68-1"`,
			`"version": "12.6.68-1\nX"`,
			"archives[0].debs[0].version: \"12.6.68-1\\nX\" is not a Debian version",
		},
		{
			`"filename": "pool/`,
			`"filename": "../pool/`,
			"archives[0].debs[0].filename: \"../pool/main/c/cuda-cudart/cuda-cudart-12-6_12.6.68-1_arm64.deb\" is not a " +
				"relative path below the manifest's directory",
		},
	} {
		testutil.Must(t, os.WriteFile(side, bytes.Replace(sb, []byte(c.from), []byte(c.to), 1), 0o644))
		err := SBOM(context.Background(), out, SBOMOptions{Format: SBOMCycloneDX}, &b)
		if err == nil || !strings.Contains(err.Error(), "cuda/redist/redistrib_12.6.68.json") ||
			!strings.Contains(err.Error(), c.want) {
			t.Errorf("sidecar with %s: %v", c.to, err)
		}
	}
	testutil.Must(t, os.WriteFile(side, sb, 0o644))
	if err := SBOM(context.Background(), out, SBOMOptions{Format: "xml"}, &b); err == nil {
		t.Error("format xml accepted")
	}
}

func mustTime(t *testing.T, date string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The format names are literals, so that go doc shows them rather than an
// internal package's constants; they are the names internal/sbom writes.
func TestSBOMFormatNames(t *testing.T) {
	if SBOMSPDX != string(sbom.SPDX) || SBOMCycloneDX != string(sbom.CycloneDX) {
		t.Errorf("SBOMSPDX, SBOMCycloneDX = %q, %q; internal/sbom's: %q, %q",
			SBOMSPDX, SBOMCycloneDX, sbom.SPDX, sbom.CycloneDX)
	}
}
