package sbom

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

// cdxDoc renders in as CycloneDX 1.6 JSON: a component per archive (purl
// pkg:generic/nvidia/…, CPE, the archive's hashes, its license by name
// with the text and its LicenseRef id as the SPDX document gives it, its
// debs as pedigree ancestors), holding the synthesized stubs and wheels as
// file components whose ancestors are what they were made from; each deb
// also as a top-level component (purl pkg:deb/nvidia/…, CPE).
func cdxDoc(in *Input) ([]byte, error) {
	supplier := &cdx.OrganizationalEntity{Name: Supplier}
	bom := cdx.NewBOM()
	r0 := in.Releases[0]
	rootVersion := r0.L4T
	if r0.JetPack != "" {
		rootVersion = r0.JetPack
	}
	tool := cdx.Component{Type: cdx.ComponentTypeApplication, Name: "debredist", Version: toolVersion(in.Tool)}
	bom.Metadata = &cdx.Metadata{
		Timestamp: in.Created.UTC().Format(time.RFC3339),
		Tools:     &cdx.ToolsChoice{Components: &[]cdx.Component{tool}},
		Component: &cdx.Component{BOMRef: "release", Type: cdx.ComponentTypePlatform, Name: r0.Profile, Version: rootVersion,
			Description: docName(in), Supplier: supplier},
		Supplier: supplier,
	}
	var comps []cdx.Component
	var debs []cdx.Component
	seenDeb := map[string]bool{}
	refs := uniq{}
	var top []string
	debComp := func(d *Deb, cpe string, withRef bool) cdx.Component {
		c := cdx.Component{Type: cdx.ComponentTypeLibrary, Name: d.Package, Version: d.Version, Supplier: supplier,
			PackageURL: debPURL(d), CPE: cpe, Hashes: &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: d.SHA256}},
			Properties: &[]cdx.Property{{Name: "debredist:filename", Value: d.Filename}}}
		if d.URL != "" {
			c.ExternalReferences = &[]cdx.ExternalReference{{Type: cdx.ERTypeDistribution, URL: d.URL}}
		}
		if withRef {
			c.BOMRef = debPURL(d) + "#sha256:" + d.SHA256
		}
		return c
	}
	for ri := range in.Releases {
		r := &in.Releases[ri]
		for ci := range r.Components {
			c := &r.Components[ci]
			lic := licenseRef(c.License)
			cpe := releaseCPE(r)
			ref := refs.id(componentPURL(c))
			top = append(top, ref)
			hashes := []cdx.Hash{
				{Algorithm: cdx.HashAlgoSHA256, Value: c.Archive.SHA256},
				{Algorithm: cdx.HashAlgoSHA1, Value: c.Archive.SHA1},
			}
			if c.Archive.MD5 != "" {
				hashes = append(hashes, cdx.Hash{Algorithm: cdx.HashAlgoMD5, Value: c.Archive.MD5})
			}
			var anc []cdx.Component
			byFile := map[string]*Deb{}
			byName := map[string]*Deb{}
			for di := range c.Debs {
				d := &c.Debs[di]
				anc = append(anc, debComp(d, cpe, false))
				byFile[lastElem(d.Filename)] = d
				byName[d.Package] = d
				if !seenDeb[debKey(d)] {
					seenDeb[debKey(d)] = true
					debs = append(debs, debComp(d, cpe, true))
				}
			}
			var sub []cdx.Component
			for _, s := range c.Stubs {
				from := cdx.Component{Type: cdx.ComponentTypeFile, Name: s.From.Path,
					Hashes: &[]cdx.Hash{
						{Algorithm: cdx.HashAlgoSHA256, Value: s.From.SHA256},
						{Algorithm: cdx.HashAlgoSHA1, Value: s.From.SHA1},
					}}
				if d, ok := byFile[s.FromDeb]; ok {
					from.Pedigree = &cdx.Pedigree{Ancestors: &[]cdx.Component{debComp(d, cpe, false)}}
				}
				sub = append(
					sub,
					cdx.Component{BOMRef: refs.id(ref + "#" + s.File.Path), Type: cdx.ComponentTypeFile, Name: s.File.Path,
						Hashes: &[]cdx.Hash{
							{Algorithm: cdx.HashAlgoSHA256, Value: s.File.SHA256},
							{Algorithm: cdx.HashAlgoSHA1, Value: s.File.SHA1},
						},
						Pedigree: &cdx.Pedigree{
							Ancestors: &[]cdx.Component{from},
							Notes: "stub library synthesized by debredist from " + s.From.Path + " (SONAME " + s.SOName + ", from " +
								s.FromDeb + "): the same exported symbols, to link against, never to run",
						}},
				)
			}
			for _, w := range c.Wheels {
				var wa []cdx.Component
				for _, n := range w.Debs {
					if d, ok := byName[n]; ok {
						wa = append(wa, debComp(d, cpe, false))
					}
				}
				wc := cdx.Component{BOMRef: refs.id(ref + "#" + w.File.Path), Type: cdx.ComponentTypeFile, Name: w.File.Path,
					Hashes: &[]cdx.Hash{
						{Algorithm: cdx.HashAlgoSHA256, Value: w.File.SHA256},
						{Algorithm: cdx.HashAlgoSHA1, Value: w.File.SHA1},
					}}
				wc.Pedigree = &cdx.Pedigree{Notes: "Python wheel built by debredist from the dist-packages trees of its debs"}
				if len(wa) > 0 {
					wc.Pedigree.Ancestors = &wa
				}
				sub = append(sub, wc)
			}
			props := []cdx.Property{
				{Name: "debredist:manifest", Value: r.Manifest},
				{Name: "debredist:archive", Value: c.Archive.Path},
				{Name: "debredist:archive_size", Value: strconv.FormatInt(c.Archive.Size, 10)},
				{Name: "debredist:platform", Value: c.Platform},
			}
			if c.CUDAVariant != "" {
				props = append(props, cdx.Property{Name: "debredist:cuda_variant", Value: c.CUDAVariant})
			}
			comp := cdx.Component{
				BOMRef:      ref,
				Type:        cdx.ComponentTypeLibrary,
				Supplier:    supplier,
				Name:        c.PName,
				Version:     c.Version,
				Description: c.Name,
				Hashes:      &hashes,
				PackageURL:  componentPURL(c),
				CPE:         cpe,
				// A LicenseRef is no SPDX license id (the schema's id is an
				// enumeration): the license goes by its name, with its
				// text and the SPDX document's LicenseRef as a property.
				Licenses: &cdx.Licenses{
					{
						License: &cdx.License{
							BOMRef:          refs.id(lic + "@" + ref),
							Name:            c.License.Name,
							Acknowledgement: cdx.LicenseAcknowledgementDeclared,
							Text:            &cdx.AttachedText{ContentType: "text/plain", Content: c.License.Text},
							Properties:      &[]cdx.Property{{Name: "debredist:license_ref", Value: lic}},
						},
					},
				},
				Pedigree: &cdx.Pedigree{
					Ancestors: &anc,
					Notes: fmt.Sprintf(
						"built by debredist from %d deb(s); license %q as found in their copyright files",
						len(c.Debs),
						c.License.Name,
					),
				},
				Properties: &props,
			}
			if len(sub) > 0 {
				comp.Components = &sub
			}
			comps = append(comps, comp)
		}
	}
	all := append(comps, debs...)
	bom.Components = &all
	bom.Dependencies = &[]cdx.Dependency{{Ref: "release", Dependencies: &top}}
	// The serial number is derived from the content: render without it first.
	var b bytes.Buffer
	if err := encodeCDX(&b, bom); err != nil {
		return nil, err
	}
	sum := contentID(b.Bytes())
	u := sum[:16]
	u[6] = u[6]&0x0f | 0x50 // version 5 (name-based, SHA hash)
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	bom.SerialNumber = fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
	b.Reset()
	if err := encodeCDX(&b, bom); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func encodeCDX(b *bytes.Buffer, bom *cdx.BOM) error {
	enc := cdx.NewBOMEncoder(b, cdx.BOMFileFormatJSON)
	enc.SetPretty(true)
	enc.SetEscapeHTML(false)
	return enc.EncodeVersion(bom, cdx.SpecVersion1_6)
}

// toolVersion is the version of a "debredist 0.1.0" tool string.
func toolVersion(tool string) string {
	for i := len(tool) - 1; i >= 0; i-- {
		if tool[i] == ' ' {
			return tool[i+1:]
		}
	}
	return tool
}
