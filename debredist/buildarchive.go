package debredist

import (
	"context"
	"errors"
	"io/fs"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/build"
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
//
// out is checked first (it must not exist, its directory must), then the
// recorded fields the build uses (product, pname, platform, version,
// variant, the archive's path and name, each deb's sha256 and size). Each
// deb is read once, up to its recorded size and no further, into a private
// copy the build reads: a file of no recorded size, one that grows or
// shrinks while read, a named pipe or a device, and one deb given twice
// are refused, naming the file.
func BuildArchive(ctx context.Context, prov *redist.Provenance, rel string, debs []string, out string, limits DebLimits) error {
	return build.Recorded(ctx, prov, rel, debs, out, limits, "debredist "+Version)
}

// maxUserFile bounds what is read of a JSON file the user names (a lock
// file, a profile, a provenance sidecar).
const maxUserFile = redist.MaxJSON

// ReadProvenanceFile reads the provenance sidecar at p, a file the user
// names (build-archive --provenance): a regular file only (a named pipe
// or a device is refused, never waited on), at most redist.MaxJSON bytes,
// a key twice refused. A failure is a *fault.UsageError naming the file.
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
