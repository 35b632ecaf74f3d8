package main

import (
	"bytes"

	"github.com/debredist/debredist/debredist"
)

var sbomCmd = &command{
	name:    "sbom",
	args:    "OUT [--format spdx|cyclonedx] [-o FILE]",
	summary: "write the software bill of materials of OUT (SPDX 2.3 or CycloneDX 1.6 JSON)",
	help: `Writes the bill of materials of OUT's current output: SPDX 2.3 JSON (the default) or
CycloneDX 1.6 JSON with --format cyclonedx. One package (component) per archive, with its purl
(pkg:generic/nvidia/<pname>@<version>), the archive as a file with its sha256, sha1 and md5;
every source deb as a package with its version, sha256, download location (the mirror's URL;
NOASSERTION for a local mirror) and purl (pkg:deb/nvidia/<package>@<version>); the archive
generated from its debs, each synthesized stub library from the real one and each wheel from
its debs; the LICENSE text of each component, as found in the debs' copyright files, as a
LicenseRef-<name>-<hash> (never a guessed SPDX identifier). Every archive is hashed (those
with stubs or wheels decoded) and must be the one its manifest and provenance record.
The same OUT gives the same bytes: created at the release date (SOURCE_DATE_EPOCH when set),
namespace and serial number derived from the content. convert --sbom writes both documents
beside each manifest; verify checks them when present.`,
	example: `debredist sbom ./out > out.spdx.json
debredist sbom ./out --format cyclonedx -o out.cdx.json`,
	flags: func(a *app, fs *flagSet) func([]string) error {
		format := fs.String(
			"format",
			debredist.SBOMSPDX,
			"document `format`: spdx (SPDX 2.3 JSON) or cyclonedx (CycloneDX 1.6 JSON)",
		)
		out := fs.String("out", "", "write to `file` instead of stdout (written whole, or not at all)")
		fs.alias("o", "out")
		return func(args []string) error {
			if len(args) != 1 {
				return usagef("sbom takes one argument, the output directory OUT")
			}
			switch *format {
			case debredist.SBOMSPDX, debredist.SBOMCycloneDX:
			default:
				return usagef("--format %q: want spdx or cyclonedx", *format)
			}
			if err := namedDir(args[0]); err != nil {
				return err
			}
			created, err := a.sourceDateEpoch()
			if err != nil {
				return err
			}
			var b bytes.Buffer
			if err := debredist.SBOM(a.ctx, args[0], debredist.SBOMOptions{Format: *format, Created: created}, &b); err != nil {
				return err
			}
			if *out != "" {
				return writeFile(*out, b.Bytes())
			}
			_, err = a.stdout.Write(b.Bytes())
			return err
		}
	},
}
