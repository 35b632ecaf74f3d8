package debredist

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/sbom"
)

// SBOM formats ([SBOMOptions.Format]).
const (
	SBOMSPDX      string = "spdx"      // SPDX 2.3 JSON, the default
	SBOMCycloneDX string = "cyclonedx" // CycloneDX 1.6 JSON
)

// SBOMFileNames are the names of the documents Convert writes beside the
// manifest redistrib_<label>.json with [Build.SBOM] (never redistrib_*:
// NVIDIA's shell-parse.sh takes every such file for a release).
func SBOMFileNames(label string) (spdx, cyclonedx string) { return redist.SBOMNames(label) }

// SBOMOptions are the options of SBOM.
type SBOMOptions struct {
	// Format is SBOMSPDX (the default when empty) or SBOMCycloneDX.
	Format string
	// Created is the documents' creation time; zero: the latest release
	// date of OUT's manifests (the CLI sets it from SOURCE_DATE_EPOCH).
	Created time.Time
}

// SBOM writes the software bill of materials of OUT's current output to w,
// in o.Format (SPDX or CycloneDX): every
// archive of every manifest with its hashes, the debs it was made from
// (version, sha256, download location), the stubs and wheels debredist
// synthesized and what from, and the LICENSE texts. It reads the
// manifests, provenance sidecars, LICENSE files and archives (each is
// hashed, and those holding stubs or wheels decoded): an archive whose
// bytes are not those its manifest and provenance record is an error.
// The same OUT and options give the same bytes.
func SBOM(ctx context.Context, out string, o SBOMOptions, w io.Writer) error {
	format := o.Format
	if format == "" {
		format = SBOMSPDX
	}
	if format != SBOMSPDX && format != SBOMCycloneDX {
		return fault.Usagef("sbom format %q: want %s or %s", format, SBOMSPDX, SBOMCycloneDX)
	}
	out = filepath.Clean(out)
	snap, err := outdir.Open(out) // one generation for everything read below
	if err != nil {
		return fmt.Errorf("sbom %s: %w", out, err)
	}
	defer func() { _ = snap.Close() }()
	if len(snap.Foreign) > 0 {
		return fault.Errorf(
			"sbom %s: %d symbolic link(s) debredist did not write, not followed: %s (%s lists them)",
			out,
			len(snap.Foreign),
			strings.Join(snap.Paths(snap.Foreign), ", "),
			fault.RefVerify,
		)
	}
	if len(snap.Manifests) == 0 {
		return fmt.Errorf("sbom %s: no redistrib_*.json manifest (not a debredist output directory?)", out)
	}
	if err := verify.Readable(ctx, snap); err != nil {
		return fmt.Errorf("sbom %s: %w", out, err)
	}
	in, err := sbom.Read(ctx, snap, snap.Manifests, tool, o.Created)
	if err != nil {
		return err
	}
	return sbom.Write(w, in, sbom.Format(format))
}
