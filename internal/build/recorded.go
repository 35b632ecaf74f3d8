package build

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/plan"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/files"
)

// Recorded builds again the archive of prov whose relative_path is rel,
// from the debs at the given paths, into the new file out: what
// debredist.BuildArchive documents (and runs); tool is this tool and
// version ("debredist 0.1.0"), named in errors.
func Recorded(
	ctx context.Context,
	prov *redist.Provenance,
	rel string,
	debs []string,
	out string,
	limits entry.Limits,
	tool string,
) error {
	if err := checkNewFile(out); err != nil {
		return err
	}
	rec, err := RecordOf(prov, rel)
	if err != nil {
		return err
	}
	comp, preset, mtime, err := recordedEncoding(prov, rec, tool)
	if err != nil {
		return err
	}
	if err := checkRecord(rec, comp); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "debredist-build-archive-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	paths, err := copyDebs(ctx, rec, debs, tmp)
	if err != nil {
		return err
	}
	pkg := RecordedPackage(rec)
	staged := filepath.Join(tmp, "archive")
	r, err := Package(
		ctx,
		Options{Profile: prov.Profile, Package: pkg, Paths: paths, Work: filepath.Join(tmp, "work"), Staged: staged, Rel: rel,
			Compression: comp, Preset: preset, MTime: mtime, Budget: archive.NewBudget(2), Limits: limits,
			Decoders: make(chan struct{}, max(2, runtime.GOMAXPROCS(0))), Tool: tool},
	)
	if err != nil {
		return InPackage(pkg.PName, err)
	}
	if r.Empty {
		return fmt.Errorf("redist package %s: the debs carry no payload: %s", pkg.PName, NoPayloadReason)
	}
	if r.Archive.SHA256 != rec.SHA256 || r.Archive.Size != rec.Size {
		hint := ""
		if r.Archive.InputKey != rec.InputKey {
			hint = " (its inputs differ from the recorded ones: " + prov.Tool + " made it, this is " + tool + ")"
		}
		return fmt.Errorf(
			"archive %s: built %d bytes with sha256 %s, the manifest says %d bytes with sha256 %s%s",
			rel,
			r.Archive.Size,
			r.Archive.SHA256,
			rec.Size,
			rec.SHA256,
			hint,
		)
	}
	return copyFile(staged, out)
}

// RecordedPackage is the redist package a provenance record describes: its
// identity and its debs as they were listed (a record carries no name or
// license).
func RecordedPackage(rec *redist.Archive) plan.Package {
	pkg := plan.Package{
		PName:       rec.PName,
		Product:     rec.Product,
		Platform:    rec.Platform,
		CUDAVariant: rec.CUDAVariant,
		Version:     rec.Version,
	}
	for _, d := range rec.Debs {
		pkg.Debs = append(
			pkg.Debs,
			apt.Package{Repo: d.Repo, Name: d.Package, Version: d.Version, Filename: d.Filename, SHA256: d.SHA256, Size: d.Size},
		)
	}
	return pkg
}

// RecordOf returns the record of prov's archive whose relative_path is
// rel; an archive it does not record is a *fault.UsageError listing those
// it does.
func RecordOf(prov *redist.Provenance, rel string) (*redist.Archive, error) {
	var have []string
	for i := range slices.Backward(prov.Archives) { // the last record of a path is the current one
		if prov.Archives[i].RelativePath == rel {
			return &prov.Archives[i], nil
		}
		have = append(have, prov.Archives[i].RelativePath)
	}
	slices.Sort(have)
	return nil, fault.Usagef(
		"the provenance records no archive %s (it records: %s)",
		rel,
		strings.Join(slices.Compact(have), ", "),
	)
}

// CheckRecord checks that rec, an archive record of prov, is one Recorded
// can build: an encoding this debredist writes (tool names it), the
// entries' mtime, and the fields the build uses.
func CheckRecord(prov *redist.Provenance, rec *redist.Archive, tool string) error {
	comp, _, _, err := recordedEncoding(prov, rec, tool)
	if err != nil {
		return err
	}
	return checkRecord(rec, comp)
}

// recordedEncoding is how prov says its archives were compressed.
func recordedEncoding(
	prov *redist.Provenance,
	rec *redist.Archive,
	tool string,
) (archive.Compression, int, time.Time, error) {
	comp, ok := archive.CompressionOfExt(prov.Encoder.Format)
	if !ok {
		var exts []string
		for _, c := range archive.Compressions() {
			exts = append(exts, c.Ext())
		}
		return 0, 0, time.Time{}, fmt.Errorf(
			"provenance encoder: format %q: this debredist writes %s",
			prov.Encoder.Format,
			strings.Join(exts, " or "),
		)
	}
	if prov.Encoder.BlockSize != archive.BlockSize {
		return 0, 0, time.Time{}, fmt.Errorf(
			"provenance encoder: block size %d, this debredist writes %d",
			prov.Encoder.BlockSize,
			archive.BlockSize,
		)
	}
	if rec.MTime == nil {
		return 0, 0, time.Time{}, fmt.Errorf(
			"the provenance does not record the entries' mtime of %s (%s wrote it): convert again with %s",
			rec.RelativePath,
			prov.Tool,
			tool,
		)
	}
	return comp, cmp.Or(rec.Preset, prov.Encoder.Preset), time.Unix(*rec.MTime, 0).UTC(), nil
}

// checkNewFile checks, before any work, that the file out can be
// created: it does not exist, and its directory does.
func checkNewFile(out string) error {
	if _, err := os.Lstat(out); err == nil {
		return &fault.UsageError{
			Msg:  "out " + out + " exists: the archive is written to a new file only (remove it first)",
			File: out,
		}
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return &fault.UsageError{Msg: "out " + out + ": its directory " + filepath.Dir(out) + " is not there", File: out}
	}
	return nil
}

// checkRecord validates the fields of an archive's provenance record the
// build uses: the names as convert writes them, the relative path
// <pname>/<platform>/<archive name>, and every deb's sha256 and size.
func checkRecord(rec *redist.Archive, comp archive.Compression) error {
	bad := func(field, value, want string) error {
		return fault.Usagef("provenance: archive %q: field %s: %q is not %s", rec.RelativePath, field, value, want)
	}
	switch {
	case !profile.ValidName(rec.Product):
		return bad("product", rec.Product, "a product name ([a-z0-9_]+)")
	case !profile.ValidPName(rec.PName):
		return bad("pname", rec.PName, "a redist package name ([a-z0-9_]+)")
	case !profile.ValidPlatform(rec.Platform):
		return bad("platform", rec.Platform, "a redist platform")
	case !profile.ValidVersion(rec.Version):
		return bad("version", rec.Version, "a dotted version")
	case rec.CUDAVariant != "" && !profile.ValidVersion(rec.CUDAVariant):
		return bad("cuda_variant", rec.CUDAVariant, "a CUDA major version")
	}
	if want := path.Join(
		rec.PName,
		rec.Platform,
		redist.ArchiveName(rec.PName, rec.Platform, rec.Version, rec.CUDAVariant, comp.Ext()),
	); rec.RelativePath != want {
		return bad("relative_path", rec.RelativePath, want+" (its pname, platform and archive name)")
	}
	if len(rec.Debs) == 0 {
		return fault.Usagef("provenance: archive %q: field debs: none recorded", rec.RelativePath)
	}
	for i, d := range rec.Debs {
		field := fmt.Sprintf("debs[%d]", i)
		switch {
		case !isSHA256(d.SHA256):
			return bad(field+".sha256", d.SHA256, "64 lower-case hex digits")
		case d.Size <= 0:
			return bad(
				field+".size",
				strconv.FormatInt(d.Size, 10),
				"a size in bytes (written by debredist since the size was recorded: convert again)",
			)
		case d.Package == "" ||
			strings.ContainsFunc(d.Package, func(r rune) bool { return r <= ' ' || r == '/' || r == 0x7f }):
			return bad(field+".package", d.Package, "a package name")
		}
	}
	return nil
}

func isSHA256(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// copyDebs reads each deb file given once, up to its size as recorded and
// no further, into dir (hashing it on the way), and maps each recorded
// deb's sha256 to its copy: every recorded deb must be given, each once,
// nothing else.
func copyDebs(ctx context.Context, rec *redist.Archive, debs []string, dir string) (map[string]string, error) {
	want := map[string]redist.Deb{}
	sizes := map[int64]bool{}
	for _, d := range rec.Debs {
		want[d.SHA256] = d
		sizes[d.Size] = true
	}
	paths := map[string]string{}
	given := map[string]string{} // sha256 -> the file given
	for i, p := range debs {
		sum, err := copyDeb(ctx, p, sizes, filepath.Join(dir, fmt.Sprintf("%d.deb", i)))
		var se *sizeError
		if errors.As(err, &se) {
			return nil, fault.Usagef(
				"deb %s is %d bytes: it is none of the %d debs archive %s was made from (none has that size; a longer or shorter "+
					"file is not read)",
				p,
				se.size,
				len(rec.Debs),
				rec.RelativePath,
			)
		}
		if err != nil {
			var ue *fault.UsageError
			if errors.As(err, &ue) || ctx.Err() != nil {
				return nil, err
			}
			msg := "deb " + p + ": " + err.Error()
			if nr := (*files.NotRegularError)(nil); errors.As(err, &nr) {
				msg = "deb " + err.Error() // it names the file
			}
			return nil, &fault.UsageError{Msg: msg, Err: err, File: p}
		}
		if _, ok := want[sum]; !ok {
			return nil, fault.Usagef(
				"deb %s (sha256 %s) is none of the %d debs archive %s was made from",
				p,
				sum,
				len(rec.Debs),
				rec.RelativePath,
			)
		}
		if q, ok := given[sum]; ok {
			return nil, fault.Usagef("deb %s is given twice (as %s too, sha256 %s): give each deb once", p, q, sum)
		}
		given[sum] = p
		paths[sum] = filepath.Join(dir, fmt.Sprintf("%d.deb", i))
	}
	var missing []string
	for _, d := range rec.Debs {
		if _, ok := paths[d.SHA256]; !ok {
			missing = append(
				missing,
				fmt.Sprintf("%s %s (%s, sha256 %s)", d.Package, d.Version, path.Base(d.Filename), d.SHA256),
			)
		}
	}
	if len(missing) > 0 {
		return nil, fault.Usagef(
			"archive %s: %d of its %d debs not given: %s",
			rec.RelativePath,
			len(missing),
			len(want),
			strings.Join(slices.Compact(missing), "; "),
		)
	}
	return paths, nil
}

// copyDeb copies the regular file p, whose size (by stat) must be one of
// sizes, to dst, reading exactly that many bytes: a file that is longer or
// shorter when read is an error. It returns the sha256 of what it copied.
func copyDeb(ctx context.Context, p string, sizes map[int64]bool, dst string) (string, error) {
	in, err := files.OpenRegular(p)
	if err != nil {
		return "", err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return "", err
	}
	if !sizes[st.Size()] {
		return "", &sizeError{st.Size()}
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	n, err := io.CopyN(io.MultiWriter(out, h), files.ContextReader(ctx, in), st.Size())
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	switch {
	case errors.Is(err, io.EOF):
		return "", fault.Usagef("deb %s: shorter than its %d bytes when read (%d): it changed while read", p, st.Size(), n)
	case err != nil:
		return "", err
	}
	if k, _ := in.Read(make([]byte, 1)); k > 0 {
		return "", fault.Usagef("deb %s: longer than its %d bytes when read: it changed while read", p, st.Size())
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sizeError is a deb file of a size no recorded deb has.
type sizeError struct{ size int64 }

func (e *sizeError) Error() string {
	return fmt.Sprintf("%d bytes: no recorded deb has that size", e.size)
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
		_ = os.Remove(dst)
		return err
	}
	if err := out.Close(); err != nil {
		_ = os.Remove(dst)
		return err
	}
	return nil
}
