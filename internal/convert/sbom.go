package convert

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/outdir"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/sbom"
)

// writeSBOMs writes, beside each manifest under root (a generation being
// built), its SPDX and CycloneDX documents: all of them when force, else
// those that are already there (carried over from the previous generation,
// they must describe the new one), created as their creation time (zero:
// the latest release date).
func writeSBOMs(ctx context.Context, root, tmp, tool string, created time.Time, force bool) error {
	snap, err := outdir.Open(root)
	if err != nil {
		return err
	}
	defer func() { _ = snap.Close() }()
	for _, mf := range snap.Manifests {
		label := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(mf), redist.ManifestPrefix), ".json")
		sp, cd := redist.SBOMNames(label)
		sp, cd = filepath.Join(filepath.Dir(snap.Path(mf)), sp), filepath.Join(filepath.Dir(snap.Path(mf)), cd)
		if !force && !exists(sp) && !exists(cd) {
			continue
		}
		in, err := sbom.Read(ctx, snap, []string{mf}, tool, created)
		if err != nil {
			return err
		}
		for _, f := range []struct {
			name   string
			format sbom.Format
		}{{sp, sbom.SPDX}, {cd, sbom.CycloneDX}} {
			var b strings.Builder
			if err := sbom.Write(&b, in, f.format); err != nil {
				return err
			}
			if err := files.Write(f.name, []byte(b.String()), tmp); err != nil {
				return err
			}
		}
	}
	return nil
}

// sbomMissing reports whether a manifest under out lacks its documents.
func sbomMissing(out string) bool {
	found, err := outdir.Find(out)
	if err != nil {
		return true
	}
	for _, mf := range found.Manifests {
		label := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(mf), redist.ManifestPrefix), ".json")
		sp, cd := redist.SBOMNames(label)
		dir := filepath.Join(out, filepath.Dir(mf))
		if !exists(filepath.Join(dir, sp)) || !exists(filepath.Join(dir, cd)) {
			return true
		}
	}
	return false
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }
