package sbom

import (
	"bytes"
	"encoding/hex"
	"time"

	spdxjson "github.com/spdx/tools-golang/json"
	"github.com/spdx/tools-golang/spdx/v2/common"
	spdx "github.com/spdx/tools-golang/spdx/v2/v2_3"
)

const noAssertion = "NOASSERTION"

// spdxDoc renders in as SPDX 2.3 JSON:
//
//   - a package per archive (redist component at one version, platform
//     and variant: purl pkg:generic/nvidia/…), DESCRIBED by the document,
//     declaring its LicenseRef;
//   - the archive as a file (SHA256, SHA1, MD5), related to the package
//     by OTHER ("the archive file of this package": a package whose files
//     are not analyzed may CONTAIN nothing); each of its debs GENERATES it;
//   - a package per deb (version, SHA256, download location, purl
//     pkg:deb/nvidia/…), once however many archives use it;
//   - each synthesized stub library and wheel as a file the archive file
//     CONTAINS: the real library (a file too, which its deb GENERATES)
//     GENERATES the stub, a wheel's debs GENERATE it;
//   - each package's CPE (releaseCPE) beside its purl;
//   - each distinct LICENSE text as a LicenseRef-<name>-<hash> with the text.
//
// "B GENERATES A" says what "A GENERATED_FROM B" says, the other way round:
// syft reads an SPDX document's GENERATED_FROM targets as source packages
// and drops them (spdxhelpers.packageIDsToSkip), which would drop every deb.
func spdxDoc(in *Input) ([]byte, error) {
	doc := &spdx.Document{
		SPDXVersion:    spdx.Version,
		DataLicense:    spdx.DataLicense,
		SPDXIdentifier: "DOCUMENT",
		DocumentName:   docName(in),
		CreationInfo: &spdx.CreationInfo{
			Creators: []common.Creator{{CreatorType: "Tool", Creator: idChars(in.Tool)}},
			Created:  in.Created.UTC().Format(time.RFC3339),
			CreatorComment: "Generated from the manifests, provenance sidecars, LICENSE files and archives of a debredist " +
				"output directory; " +
				"license texts are those found in the debs' copyright files, as merged into each component's LICENSE.txt.",
		},
	}
	ids := uniq{}
	rel := func(a, b common.ElementID, typ string) {
		doc.Relationships = append(doc.Relationships, &spdx.Relationship{
			RefA: common.DocElementID{ElementRefID: a}, RefB: common.DocElementID{ElementRefID: b}, Relationship: typ})
	}
	debIDs := map[string]common.ElementID{}
	licIDs := map[string]bool{}
	supplier := &common.Supplier{SupplierType: "Organization", Supplier: Supplier}
	file := func(id common.ElementID, name string, f File, types []string, comment string) {
		sums := []common.Checksum{{Algorithm: common.SHA1, Value: f.SHA1}, {Algorithm: common.SHA256, Value: f.SHA256}}
		if f.MD5 != "" {
			sums = append(sums, common.Checksum{Algorithm: common.MD5, Value: f.MD5})
		}
		doc.Files = append(doc.Files, &spdx.File{FileName: name, FileSPDXIdentifier: id, FileTypes: types, Checksums: sums,
			LicenseConcluded: noAssertion, FileCopyrightText: noAssertion, FileComment: comment})
	}
	for ri := range in.Releases {
		r := &in.Releases[ri]
		for ci := range r.Components {
			c := &r.Components[ci]
			lic := licenseRef(c.License)
			cpe := releaseCPE(r)
			if !licIDs[lic] {
				licIDs[lic] = true
				doc.OtherLicenses = append(
					doc.OtherLicenses,
					&spdx.OtherLicense{LicenseIdentifier: lic, ExtractedText: c.License.Text, LicenseName: c.License.Name,
						LicenseComment: "NVIDIA's license text as found in the debs' copyright files (merged by debredist into the " +
							"component's LICENSE.txt)."},
				)
			}
			pkgID := common.ElementID(ids.id("Package-" + idChars(c.PName+"-"+c.Version+"-"+c.Platform)))
			if c.CUDAVariant != "" {
				pkgID = common.ElementID(ids.id("Package-" + idChars(c.PName+"-"+c.Version+"-"+c.Platform+"-cuda"+c.CUDAVariant)))
			}
			pkg := &spdx.Package{
				PackageName: c.PName, PackageSPDXIdentifier: pkgID, PackageVersion: c.Version,
				PackageFileName: "./" + c.Archive.Path, PackageSupplier: supplier,
				PackageDownloadLocation: noAssertion, FilesAnalyzed: false,
				PackageChecksums:        []common.Checksum{{Algorithm: common.SHA256, Value: c.Archive.SHA256}},
				PackageLicenseConcluded: noAssertion, PackageLicenseDeclared: lic, PackageCopyrightText: noAssertion,
				PackageSummary: c.Name,
				PackageComment: "Redistributable archive of " + r.Product + " " + r.Label + " (" + r.Manifest +
					"), built by debredist from the debs that GENERATE its archive file.",
				PackageExternalReferences: externalRefs(componentPURL(c), cpe),
				PrimaryPackagePurpose:     "ARCHIVE",
				ReleaseDate:               r.ReleaseDate + "T00:00:00Z",
			}
			if c.Archive.MD5 != "" {
				pkg.PackageChecksums = append(pkg.PackageChecksums, common.Checksum{Algorithm: common.MD5, Value: c.Archive.MD5})
			}
			doc.Packages = append(doc.Packages, pkg)
			rel("DOCUMENT", pkgID, common.TypeRelationshipDescribe)
			arID := common.ElementID(ids.id("File-" + idChars(c.Archive.Path)))
			file(arID, "./"+c.Archive.Path, c.Archive, []string{"ARCHIVE"}, "")
			// A package whose files are not analyzed may CONTAIN nothing:
			// its archive is named by packageFileName and tied to it here.
			doc.Relationships = append(doc.Relationships, &spdx.Relationship{RefA: common.DocElementID{ElementRefID: pkgID},
				RefB: common.DocElementID{ElementRefID: arID}, Relationship: common.TypeRelationshipOther,
				RelationshipComment: "the archive file of this package (its packageFileName)"})
			debByFile := map[string]common.ElementID{}
			debByName := map[string]common.ElementID{}
			for di := range c.Debs {
				d := &c.Debs[di]
				id, ok := debIDs[debKey(d)]
				if !ok {
					id = common.ElementID(ids.id("Deb-" + idChars(d.Package+"-"+d.Version)))
					debIDs[debKey(d)] = id
					loc := noAssertion
					if d.URL != "" {
						loc = d.URL
					}
					doc.Packages = append(doc.Packages, &spdx.Package{
						PackageName: d.Package, PackageSPDXIdentifier: id, PackageVersion: d.Version,
						PackageFileName: lastElem(d.Filename), PackageSupplier: supplier,
						PackageDownloadLocation: loc, FilesAnalyzed: false,
						PackageChecksums:        []common.Checksum{{Algorithm: common.SHA256, Value: d.SHA256}},
						PackageLicenseConcluded: noAssertion, PackageLicenseDeclared: noAssertion, PackageCopyrightText: noAssertion,
						PackageComment: "Debian package of NVIDIA's Jetson repository (" + d.Filename +
							"), hashed by debredist as it read it.",
						PackageExternalReferences: externalRefs(debPURL(d), cpe),
						PrimaryPackagePurpose:     "INSTALL",
					})
				}
				debByFile[lastElem(d.Filename)] = id
				debByName[d.Package] = id
				rel(id, arID, common.TypeRelationshipGenerates)
			}
			for _, s := range c.Stubs {
				sid := common.ElementID(ids.id("File-" + idChars(c.Archive.Path+"-"+s.File.Path)))
				fid := common.ElementID(ids.id("File-" + idChars(c.Archive.Path+"-"+s.From.Path)))
				file(
					sid,
					"./"+c.Archive.Path+"/"+s.File.Path,
					s.File,
					[]string{"BINARY"},
					"Stub library synthesized by debredist from "+s.From.Path+" (SONAME "+s.SOName+
						"): the same exported symbols, to link against, never to run.",
				)
				file(
					fid,
					"./"+c.Archive.Path+"/"+s.From.Path,
					s.From,
					[]string{"BINARY"},
					"The library "+s.File.Path+" was synthesized from, from "+s.FromDeb+".",
				)
				rel(arID, sid, common.TypeRelationshipContains)
				rel(arID, fid, common.TypeRelationshipContains)
				rel(fid, sid, common.TypeRelationshipGenerates)
				if id, ok := debByFile[s.FromDeb]; ok {
					rel(id, fid, common.TypeRelationshipGenerates)
				}
			}
			for _, w := range c.Wheels {
				wid := common.ElementID(ids.id("File-" + idChars(c.Archive.Path+"-"+w.File.Path)))
				file(
					wid,
					"./"+c.Archive.Path+"/"+w.File.Path,
					w.File,
					[]string{"ARCHIVE"},
					"Python wheel built by debredist from the dist-packages trees of its debs.",
				)
				rel(arID, wid, common.TypeRelationshipContains)
				for _, d := range w.Debs {
					if id, ok := debByName[d]; ok {
						rel(id, wid, common.TypeRelationshipGenerates)
					}
				}
			}
		}
	}
	// The namespace is derived from the content: render without it first.
	doc.DocumentNamespace = "https://spdx.org/spdxdocs/debredist"
	var b bytes.Buffer
	if err := spdxjson.Write(doc, &b, spdxjson.Indent("  "), spdxjson.EscapeHTML(false)); err != nil {
		return nil, err
	}
	sum := contentID(b.Bytes())
	doc.DocumentNamespace = "https://spdx.org/spdxdocs/debredist-" + idChars(
		in.Releases[0].Profile,
	) + "-" + hex.EncodeToString(
		sum[:16],
	)
	b.Reset()
	if err := spdxjson.Write(doc, &b, spdxjson.Indent("  "), spdxjson.EscapeHTML(false)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// externalRefs are a package's external references: its purl, and its CPE
// when its product has one.
func externalRefs(purl, cpe string) []*spdx.PackageExternalReference {
	r := []*spdx.PackageExternalReference{
		{Category: common.CategoryPackageManager, RefType: common.TypePackageManagerPURL, Locator: purl},
	}
	if cpe != "" {
		r = append(
			r,
			&spdx.PackageExternalReference{
				Category: common.CategorySecurity,
				RefType:  common.TypeSecurityCPE23Type,
				Locator:  cpe,
			},
		)
	}
	return r
}

func lastElem(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
