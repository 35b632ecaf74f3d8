package debredist

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/files"
)

// BuildArchive builds again one archive a conversion recorded, with no
// planning and no download: the archive of prov (a provenance sidecar,
// see redist.ReadProvenance) whose relative_path is rel, from the debs at
// the given paths, with the recorded profile, compression, preset and
// entry mtime. The debs are matched to the recorded ones by their
// sha256s, which they must have; every recorded deb must be given. The
// archive is written to out only when its size and sha256 are the
// recorded ones, so a build that would differ from the manifest fails,
// naming both hashes. It is what a Nix fixed-output derivation runs
// (debredist nix --derivations). Limits bound what each deb may expand to.
func BuildArchive(ctx context.Context, prov *redist.Provenance, rel string, debs []string, out string, limits DebLimits) error {
	var rec *redist.Archive
	for i := range prov.Archives {
		if prov.Archives[i].RelativePath == rel {
			rec = &prov.Archives[i]
		}
	}
	if rec == nil {
		return fault.Usagef("the provenance records no archive %s", rel)
	}
	comp, preset, mtime, err := recordedEncoding(prov, rec)
	if err != nil {
		return err
	}
	paths, err := debsBySHA256(ctx, rec, debs)
	if err != nil {
		return err
	}
	pkg := plan.Package{PName: rec.PName, Product: rec.Product, Platform: rec.Platform, CUDAVariant: rec.Variant, Version: rec.Version}
	for _, d := range rec.Debs {
		pkg.Debs = append(pkg.Debs, apt.Package{Repo: d.Repo, Name: d.Package, Version: d.Version, Filename: d.Filename, SHA256: d.SHA256, Size: d.Size})
	}
	o := newRun(Options{Build: Build{Limits: limits}})
	tmp, err := os.MkdirTemp("", "debredist-build-archive-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	j := &job{pkg: pkg, profile: prov.Profile, comp: comp, preset: preset, mtime: mtime, rel: rel,
		budget: archive.NewBudget(2), staged: filepath.Join(tmp, "archive")}
	if err := j.build(ctx, o, paths, filepath.Join(tmp, "work")); err != nil {
		return inPackage(pkg.PName, err)
	}
	if j.empty {
		return fmt.Errorf("redist package %s: the debs carry no payload: %s", pkg.PName, noPayloadReason)
	}
	if j.res.SHA256 != rec.SHA256 || j.res.Size != rec.Size {
		hint := ""
		if j.res.InputKey != rec.InputKey {
			hint = " (its inputs differ from the recorded ones: " + prov.Tool + " made it, this is debredist " + Version + ")"
		}
		return fmt.Errorf("archive %s: built %d bytes with sha256 %s, the manifest says %d bytes with sha256 %s%s", rel, j.res.Size, j.res.SHA256, rec.Size, rec.SHA256, hint)
	}
	return copyFile(j.staged, out)
}

// recordedEncoding is how prov says its archives were compressed.
func recordedEncoding(prov *redist.Provenance, rec *redist.Archive) (archive.Compression, int, time.Time, error) {
	var comp archive.Compression
	switch prov.Encoder.Format {
	case archive.XZ.Ext():
		comp = archive.XZ
	case archive.Zstd.Ext():
		comp = archive.Zstd
	default:
		return 0, 0, time.Time{}, fmt.Errorf("provenance encoder: format %q: this debredist writes %s or %s", prov.Encoder.Format, archive.XZ.Ext(), archive.Zstd.Ext())
	}
	if prov.Encoder.BlockSize != archive.BlockSize {
		return 0, 0, time.Time{}, fmt.Errorf("provenance encoder: block size %d, this debredist writes %d", prov.Encoder.BlockSize, archive.BlockSize)
	}
	if rec.MTime == nil {
		return 0, 0, time.Time{}, fmt.Errorf("the provenance does not record the entries' mtime of %s (%s wrote it): convert again with debredist %s", rec.RelativePath, prov.Tool, Version)
	}
	return comp, cmp.Or(rec.Preset, prov.Encoder.Preset), time.Unix(*rec.MTime, 0).UTC(), nil
}

// debsBySHA256 hashes the given deb files and maps each recorded deb's
// sha256 to its file: every recorded deb must be given, nothing else.
func debsBySHA256(ctx context.Context, rec *redist.Archive, debs []string) (map[string]string, error) {
	want := map[string]redist.Deb{}
	for _, d := range rec.Debs {
		want[d.SHA256] = d
	}
	paths := map[string]string{}
	for _, p := range debs {
		sum, err := files.SHA256(ctx, p)
		if err != nil {
			return nil, &fault.UsageError{Msg: "deb " + p + ": " + err.Error(), Err: err, File: p}
		}
		if _, ok := want[sum]; !ok {
			return nil, fault.Usagef("deb %s (sha256 %s) is none of the %d debs archive %s was made from", p, sum, len(rec.Debs), rec.RelativePath)
		}
		paths[sum] = p
	}
	for sum, d := range want {
		if _, ok := paths[sum]; !ok {
			return nil, fault.Usagef("archive %s: deb %s %s (sha256 %s) not given", rec.RelativePath, d.Package, d.Version, sum)
		}
	}
	return paths, nil
}

// copyFile copies src to a new file dst (0444, as Nix makes outputs).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(dst)
		return err
	}
	return nil
}
