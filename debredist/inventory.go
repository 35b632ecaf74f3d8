package debredist

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/debredist/debredist/debredist/apt"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/files"
)

// Inventory formats.
const (
	// InventoryJetPackNixos is jetpack-nixos' sourceinfo/<suite>-debs.json
	// ([apt.WriteSourceInfo]): the newest version of every package of every
	// repo, meta-packages left out.
	InventoryJetPackNixos = "jetpack-nixos"
	// InventoryLock is debredist's lock format (every package, metas
	// included), for --lock.
	InventoryLock = "lock"
)

// Inventory writes the package inventory of the release o selects (from
// the mirror's indexes, or a lock file) to w in format
// ([InventoryJetPackNixos] or [InventoryLock]). Either output read back
// with [Release.LockFile] gives the same plan (a jetpack-nixos file needs
// the suite: [Release.L4T]).
func Inventory(ctx context.Context, o Options, w io.Writer, format string) error {
	if format != InventoryJetPackNixos && format != InventoryLock {
		return fault.Usagef("inventory format %q: want %s or %s", format, InventoryJetPackNixos, InventoryLock)
	}
	o.Build.Only = nil
	pl, err := PlanCached(ctx, o)
	if err != nil {
		return err
	}
	if format == InventoryJetPackNixos {
		return apt.WriteSourceInfo(w, pl.Inputs)
	}
	var b bytes.Buffer
	if err := apt.WriteLock(&b, &apt.Lock{Suite: pl.Profile.L4T, Packages: pl.Inputs}); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// ReadIndex reads the apt Packages index a user names (plain, gzip, xz or
// zstd, detected by content; a file name whose suffix promises another
// compression is refused): its packages that can be downloaded safely, in
// index order, and a Problem for every stanza that cannot (left out, as
// Plan refuses such an index whole). The file must be a regular file: a
// named pipe or device is refused, never waited on. A file that cannot be
// opened or parsed is a [*fault.UsageError] naming it.
func ReadIndex(file string) ([]apt.Package, []apt.Problem, error) {
	f, err := files.OpenRegular(file)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, nil, &fault.UsageError{Msg: fmt.Sprintf("index %s: %v", file, err), Err: err, File: file}
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(64)
	if err := apt.CheckCompressionName(file, head); err != nil {
		return nil, nil, &fault.UsageError{Msg: err.Error(), Err: err, File: file}
	}
	pkgs, problems, err := apt.ParsePackages(br, apt.ParseOptions{})
	if err != nil {
		return nil, nil, &fault.UsageError{Msg: fmt.Sprintf("index %s: %v", file, err), Err: err, File: file}
	}
	return pkgs, problems, nil
}
