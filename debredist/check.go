package debredist

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/convert"
	"github.com/debredist/debredist/internal/fetch"
)

// Check reports the first option that does not make sense (a
// *fault.UsageError naming the option, "Build.Preset 7: ..."; the CLI
// words it in its flags): not exactly one release
// selector (JetPack, L4T, ProfileFile, or LockFile alone), a negative
// Jobs or Downloads, an unknown Compression, a Preset outside its
// range, or an AllowWarnings code that is none of redist.WarningCodes (or
// given without FailOnWarnings), a Source.Mirror that is no mirror URL (a
// *fault.UsageError whose Option is "Source.Mirror"; a mirror directory
// that is not there is one too, once an index or a deb not in the cache
// is to be read from it). Plan, Fetch and Convert call it first (Convert
// also wants Build.Out); the CLI calls it so that its answers are the
// library's.
func (o Options) Check() error {
	r := o.Release
	n := 0
	for _, s := range []string{r.JetPack, r.L4T, r.ProfileFile} {
		if s != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return fault.Usagef("give only one of Release.JetPack, Release.L4T and Release.ProfileFile")
	case n == 0 && r.LockFile == "":
		return fault.Usagef("select a release with Release.JetPack, Release.L4T, Release.ProfileFile or Release.LockFile")
	}
	return o.checkBuild()
}

// checkBuild is Check less the release selection (ConvertPlan's plan
// selects the release).
func (o Options) checkBuild() error {
	if err := checkMirror("Source.Mirror", o.Source.Mirror, false); err != nil {
		return err
	}
	if err := checkJobs("Build.Jobs", o.Build.Jobs); err != nil {
		return err
	}
	if err := checkJobs("Source.ParallelDownloads", o.Source.ParallelDownloads); err != nil {
		return err
	}
	comp, err := compression(o.Build.Compression)
	if err != nil {
		return err
	}
	for _, c := range o.Build.AllowWarnings {
		if !slices.Contains(redist.WarningCodes, c) {
			return fault.Usagef("Build.AllowWarnings %q: not a warning code (the codes: %s)", c, strings.Join(redist.WarningCodes, ", "))
		}
	}
	if len(o.Build.AllowWarnings) > 0 && !o.Build.FailOnWarnings {
		return fault.Usagef("Build.AllowWarnings needs Build.FailOnWarnings (warnings fail nothing without it)")
	}
	if _, err := comp.Preset(o.Build.Preset); err != nil {
		var want []string
		for _, c := range Compressions() {
			want = append(want, fmt.Sprintf("1..%d for %s", c.MaxPreset, c.Name))
		}
		return &fault.UsageError{Msg: fmt.Sprintf("Build.Preset %d: want %s", o.Build.Preset, strings.Join(want, ", ")), Err: err}
	}
	return nil
}

// checkMirror reports a mirror base given as option ("Source.Mirror")
// that cannot be one (fetch.CheckBase), or with exists a mirror directory
// that is not there or no directory: a *fault.UsageError whose Option is
// option (File the directory not there). "" is the default mirror.
func checkMirror(option, base string, exists bool) error {
	if base == "" {
		return nil
	}
	if err := fetch.CheckBase(base); err != nil {
		return &fault.UsageError{Option: option, Msg: err.Error(), Err: err}
	}
	if !exists {
		return nil
	}
	err := fetch.CheckMirrorDir(base)
	if nf := (*fault.NotFoundError)(nil); errors.As(err, &nf) {
		return convert.MirrorNotFound(option, nf)
	} else if err != nil {
		return &fault.UsageError{Option: option, Msg: err.Error(), Err: err}
	}
	return nil
}

func checkJobs(option string, n int) error {
	if n < 0 {
		return fault.Usagef("%s %d: want a positive number", option, n)
	}
	return nil
}

// Check reports options Diff cannot use (a negative ParallelDownloads); the
// releases are its arguments. Diff calls it first.
func (o DiffOptions) Check() error {
	if err := checkMirror("Source.Mirror", o.Source.Mirror, false); err != nil {
		return err
	}
	return checkJobs("Source.ParallelDownloads", o.Source.ParallelDownloads)
}
