package debredist_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/fault"
)

// TestCheckSameAnswers: the checks the CLI makes are the library's: Plan,
// Fetch and Convert refuse the same options with the same *UsageError
// (the CLI prints it), and accept what they accept ("zst" included).
func TestCheckSameAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	out := t.TempDir()
	bad := []struct {
		o    debredist.Options
		want string
	}{
		{
			debredist.Options{Build: debredist.Build{Out: out}},
			"select a release with Release.JetPack, Release.L4T, Release.ProfileFile or Release.LockFile",
		},
		{
			debredist.Options{Release: debredist.Release{JetPack: "6", L4T: "r36.5"}, Build: debredist.Build{Out: out}},
			"give only one of Release.JetPack, Release.L4T and Release.ProfileFile",
		},
		{
			debredist.Options{Release: debredist.Release{JetPack: "6"}, Build: debredist.Build{Out: out, Jobs: -1}},
			"Build.Jobs -1: want a positive number",
		},
		{
			debredist.Options{Release: debredist.Release{JetPack: "6"}, Build: debredist.Build{Out: out, Compression: "gzip"}},
			`Build.Compression "gzip": want xz or zstd`,
		},
		{
			debredist.Options{Release: debredist.Release{JetPack: "6"}, Build: debredist.Build{Out: out, Preset: 7}},
			"Build.Preset 7",
		},
		{
			debredist.Options{
				Release: debredist.Release{JetPack: "6"},
				Build:   debredist.Build{Out: out, Compression: "zst", Preset: 5},
			},
			"Build.Preset 5",
		},
		{debredist.Options{Release: debredist.Release{JetPack: "6"}}, "Build.Out is required"},
	}
	for _, c := range bad {
		_, err := debredist.Convert(ctx, c.o)
		var ue *fault.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Convert(%+v) = %v, want a *UsageError %q", c.o, err, c.want)
		}
		if c.o.Build.Out == "" {
			continue
		}
		if err := c.o.Check(); err == nil || err.Error() != ue.Error() {
			t.Errorf("Check(%+v) = %v, Convert said %v", c.o, err, ue)
		}
		if _, err := debredist.Plan(ctx, c.o); !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Plan(%+v) = %v, want %q", c.o, err, c.want)
		}
	}
	for _, comp := range []string{"", "xz", "zstd", "zst"} {
		err := (debredist.Options{
			Release: debredist.Release{JetPack: "6"},
			Build:   debredist.Build{Out: out, Compression: comp, Preset: 4},
		}).Check()
		if err != nil {
			t.Errorf("--compress %q: %v", comp, err)
		}
	}
	if err := (debredist.DiffOptions{Source: debredist.Source{ParallelDownloads: -2}}).Check(); err == nil ||
		!strings.Contains(err.Error(), "Source.ParallelDownloads -2") {
		t.Errorf("Diff --jobs -2: %v", err)
	}
}
