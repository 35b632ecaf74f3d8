package debredist

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/redist"
	"github.com/debredist/debredist/internal/convert"
	"github.com/debredist/debredist/internal/fetch"
)

// Check reports the first option that does not make sense, as a
// [*fault.UsageError] naming the option ("Build.Preset 7: ..."; the CLI
// words it in its flags): not exactly one release selector
// ([Release.JetPack], [Release.L4T], [Release.ProfileFile], or
// [Release.LockFile] alone), a JetPack release or L4T suite no built-in
// profile has, a negative [Build.Jobs] or [Source.ParallelDownloads], an
// unknown [Build.Compression], a [Build.Preset] outside its range, an
// [Build.AllowWarnings] code that is none of [redist.WarningCodes] (or
// given without [Build.FailOnWarnings]), or a [Source.Mirror] that is no
// mirror URL (its Option is "Source.Mirror"; a mirror directory that is
// not there is one too, once an index or a deb not in the cache is to be
// read from it). Plan, Fetch and Convert call it first (Convert also
// wants [Build.Out]); the CLI calls it so that its answers are the
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
		return fault.Usagef("give only one of %s, %s and %s", fault.RefJetPack, fault.RefL4T, fault.RefProfileFile)
	case n == 0 && r.LockFile == "":
		return fault.Usagef(
			"select a release with %s, %s, %s or %s",
			fault.RefJetPack,
			fault.RefL4T,
			fault.RefProfileFile,
			fault.RefLockFile,
		)
	}
	if r.JetPack != "" {
		if _, err := profile.ForJetPack(r.JetPack); err != nil {
			return &fault.UsageError{Msg: err.Error(), Err: err}
		}
	}
	if r.L4T != "" {
		if _, err := profile.ForSuite(r.L4T); err != nil {
			return &fault.UsageError{Msg: err.Error(), Err: err}
		}
	}
	return o.checkBuild()
}

// checkBuild is Check less the release selection (ConvertPlan's plan
// selects the release).
func (o Options) checkBuild() error {
	if err := checkMirror(fault.RefMirror, o.Source.Mirror, false); err != nil {
		return err
	}
	if err := checkJobs(fault.RefJobs, o.Build.Jobs); err != nil {
		return err
	}
	if err := checkJobs(fault.RefParallelDownloads, o.Source.ParallelDownloads); err != nil {
		return err
	}
	comp, err := compression(o.Build.Compression)
	if err != nil {
		return err
	}
	for _, c := range o.Build.AllowWarnings {
		if !slices.Contains(redist.WarningCodes, c) {
			return fault.OptionErrorf(
				fault.RefAllowWarnings,
				nil,
				"%q: not a warning code (the codes: %s)",
				c,
				strings.Join(redist.WarningCodes, ", "),
			)
		}
	}
	if len(o.Build.AllowWarnings) > 0 && !o.Build.FailOnWarnings {
		return fault.Usagef("%s needs %s (warnings fail nothing without it)", fault.RefAllowWarnings, fault.RefFailOnWarnings)
	}
	if _, err := comp.Preset(o.Build.Preset); err != nil {
		var want []string
		for _, c := range Compressions() {
			want = append(want, fmt.Sprintf("1..%d for %s", c.MaxPreset, c.Name))
		}
		return fault.OptionErrorf(fault.RefPreset, err, "%d: want %s", o.Build.Preset, strings.Join(want, ", "))
	}
	return nil
}

// checkMirror reports a mirror base given as option (fault.RefMirror)
// that cannot be one (fetch.CheckBase), or with exists a mirror directory
// that is not there or no directory: a *fault.UsageError whose Option is
// option (File the directory not there). "" is the default mirror.
func checkMirror(option fault.Ref, base string, exists bool) error {
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

func checkJobs(option fault.Ref, n int) error {
	if n < 0 {
		return fault.OptionErrorf(option, nil, "%d: want a positive number", n)
	}
	return nil
}

// Check reports options Diff cannot use (a negative
// [Source.ParallelDownloads], a [Source.Mirror] that is no mirror URL);
// the releases are its arguments. Diff calls it first.
func (o DiffOptions) Check() error {
	if err := checkMirror(fault.RefMirror, o.Source.Mirror, false); err != nil {
		return err
	}
	return checkJobs(fault.RefParallelDownloads, o.Source.ParallelDownloads)
}
