package debredist

import (
	"context"
	"errors"
	"io/fs"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/build"
	"github.com/debredist/debredist/internal/convert"
	"github.com/debredist/debredist/internal/files"
)

// BuildArchive builds again one archive a conversion recorded, with no
// planning and no download: the archive of prov (a provenance sidecar,
// see [redist.ReadProvenance]) whose relative_path is rel, from the debs at
// the given paths, with the recorded profile, compression, preset and
// entry mtime. The debs are matched to the recorded ones by their
// sha256s, which they must have; every recorded deb must be given. The
// archive is written to out only when its size and sha256 are the
// recorded ones, so a build that would differ from the manifest fails,
// naming both hashes. It is what a Nix fixed-output derivation runs
// (debredist nix --derivations). Limits bound what each deb may expand to.
//
// out is checked first (it must not exist, its directory must), then the
// recorded fields the build uses (product, pname, platform, version,
// variant, the archive's path and name, each deb's sha256 and size). Each
// deb is read once, up to its recorded size and no further, into a private
// copy the build reads: a file of no recorded size, one that grows or
// shrinks while read, a named pipe or a device, and one deb given twice
// are refused, naming the file.
func BuildArchive(
	ctx context.Context,
	prov *redist.Provenance,
	rel string,
	debs []string,
	out string,
	limits DebLimits,
) error {
	return build.Recorded(ctx, prov, rel, debs, out, limits, tool)
}

// RecordedDebs makes sure the debs archive rel of prov was made from are
// in the cache, as [Fetch] does for a release: looked up by their
// recorded sha256 in the cache ([Source.CacheDir]), those not there
// fetched from [Source.Mirror], else the mirror the provenance records
// ([redist.Provenance.MirrorBase]), else NVIDIA's repository, and checked
// against that sha256 ([Source.Offline]: the cache only; a
// [*fault.MissingError] lists every deb not there). It returns their
// cache paths, to give [BuildArchive]. An archive prov does not record is
// a [*fault.UsageError] listing those it does. [Options.OnEvent] sees the
// fetch ([event.FetchPlan] first); [Options.Release] and [Options.Build]
// are not used.
func RecordedDebs(ctx context.Context, o Options, prov *redist.Provenance, rel string) ([]string, error) {
	rec, err := build.RecordOf(prov, rel)
	if err != nil {
		return nil, err
	}
	if err := checkMirror(fault.RefMirror, o.Source.Mirror, false); err != nil {
		return nil, err
	}
	if err := checkJobs(fault.RefParallelDownloads, o.Source.ParallelDownloads); err != nil {
		return nil, err
	}
	so := convert.Options{Source: o.Source.fetch(), Tool: tool, OnEvent: o.OnEvent}
	if so.RecordedMirror = o.Source.Mirror == ""; so.RecordedMirror {
		so.Source.Base = prov.MirrorBase()
	}
	return convert.New(so).RecordedDebs(ctx, rec)
}

// ReadProvenanceFile reads the provenance sidecar at p, a file the user
// names (build-archive --provenance): a regular file only (a named pipe
// or a device is refused, never waited on), at most [redist.MaxJSON] bytes,
// a key twice refused. A failure is a [*fault.UsageError] naming the file.
func ReadProvenanceFile(p string) (*redist.Provenance, error) {
	f, err := files.OpenRegular(p)
	if err != nil {
		msg := "provenance " + err.Error() // a *files.NotRegularError names the file
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			msg = "provenance " + p + ": " + pe.Err.Error()
		}
		return nil, &fault.UsageError{Msg: msg, Err: err, File: p}
	}
	defer f.Close()
	prov, err := redist.ReadProvenance(f)
	if err != nil {
		return nil, &fault.UsageError{Msg: "provenance " + p + ": " + err.Error(), Err: err, File: p}
	}
	return prov, nil
}
