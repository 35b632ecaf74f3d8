package convert

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/files"
	"github.com/debredist/debredist/internal/publish"
)

// checkWritten re-reads the manifests just written and checks that every
// artifact they name is the file this run built or kept: same size and the
// sha256 computed while writing it (or re-hashed when it was kept). It does
// not decode the archives again (verify.Dir does; `debredist verify`).
func checkWritten(out string, res *Outcome, jobs []*job) error {
	byPath := map[string]redist.Archive{}
	for _, j := range jobs {
		byPath[j.final] = j.res
	}
	var problems []verify.Problem
	for _, pr := range res.Products {
		mf := filepath.Join(out, filepath.FromSlash(pr.Manifest))
		f, err := files.OpenRegular(mf)
		if err != nil {
			return err
		}
		m, err := redist.ReadManifest(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", pr.Manifest, err)
		}
		for _, name := range slices.Sorted(maps.Keys(m.Components)) {
			for _, pa := range m.Components[name].Artifacts() {
				a := pa.Artifact
				p, ok := redist.CleanRelativePath(a.RelativePath)
				if !ok {
					problems = append(problems, verify.Problemf(pr.Manifest, "%s: unsafe relative_path %q", name, a.RelativePath))
					continue
				}
				file := filepath.Join(filepath.Dir(mf), p)
				rec, ok := byPath[file]
				size := publish.FileSize(file)
				switch {
				case !ok: // kept from an earlier run by --only: check the file itself
					if sum, err := files.SHA256(context.Background(), file); err != nil || sum != a.SHA256 ||
						strconv.FormatInt(size, 10) != a.Size {
						problems = append(
							problems,
							verify.Problemf(
								pr.Manifest,
								"%s: %s (kept from an earlier run) no longer matches the manifest",
								name,
								a.RelativePath,
							),
						)
					}
				case a.SHA256 != rec.SHA256 || a.Size != strconv.FormatInt(rec.Size, 10) || size != rec.Size:
					problems = append(
						problems,
						verify.Problemf(pr.Manifest, "%s: %s is %d bytes, manifest says %s bytes sha256 %s, written %d bytes sha256 %s",
							name, a.RelativePath, size, a.Size, a.SHA256, rec.Size, rec.SHA256),
					)
				}
			}
		}
	}
	if len(problems) > 0 {
		return &verify.Error{Problems: problems}
	}
	return nil
}
