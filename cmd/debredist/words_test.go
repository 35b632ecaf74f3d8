package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/testutil"
)

// cliWords are a command or flag of the CLI in a message.
var cliWords = regexp.MustCompile(`debredist (profiles|fetch|verify|convert|nix|sbom|diff|plan)\b|--[a-z]`)

// TestLibraryWordsInCLI: the library names its options and calls as data
// (fault.Ref) where the CLI names its flags and commands; inFlags and
// problemsInFlags word real library errors through the table, never by
// matching their prose.
func TestLibraryWordsInCLI(t *testing.T) {
	_, jpErr := profile.ForJetPack("99")
	_, findErr := debredist.FindProfile("nope")
	_, listErr := profile.Load(strings.NewReader(`{"schema": "`+profile.ListSchema+`", "profiles": []}`), "list.json")
	_, arrayErr := profile.Load(strings.NewReader(`[]`), "array.json")
	_, keyErr := profile.Load(strings.NewReader(`{"profiles": []}`), "key.json")
	empty := t.TempDir() // an OUT holding nothing but its lock file: no provenance
	testutil.Must(t, os.WriteFile(filepath.Join(empty, ".debredist.lock"), nil, 0o644))
	_, diffErr := debredist.Diff(context.Background(), debredist.DiffOptions{}, empty, empty)
	missing := &fault.MissingError{
		Packages: []fault.MissingDeb{{Name: "cuda-cudart-12-6", Version: "12.6.68-1"}},
		Mirror:   "https://repo.download.nvidia.com/jetson",
	}
	presetErr := debredist.Options{Release: debredist.Release{JetPack: "6"}, Build: debredist.Build{Preset: 9}}.Check()
	wrapped := fmt.Errorf("convert: %w; later", presetErr)
	for _, tc := range []struct {
		lib  error
		want string
	}{
		{jpErr, "; see 'debredist profiles')"},
		{diffErr, ": no debredist provenance record found (not an output directory of debredist convert?)"},
		{findErr, ": see 'debredist profiles')"},
		{
			listErr,
			"the list of profiles (schema " + profile.ListSchema +
				"), not a profile; a profile file holds one profile: what 'debredist profiles --json NAME' prints",
		},
		{
			arrayErr,
			"an array of profiles, not a profile; a profile file holds one profile: what 'debredist profiles --json NAME' " +
				"prints",
		},
		{
			keyErr,
			"unknown field \"profiles\" (a list of profiles holds its profiles there); a profile file holds one profile: what " +
				"'debredist profiles --json NAME' prints",
		},
		{
			missing,
			"; run once without --offline (`debredist fetch` with the same release or lock) to download them into the cache, " +
				"or give --cache DIR where they are",
		},
		{presetErr, "--preset 9: want 1..6 for xz, 1..4 for zstd"},
		{wrapped, "convert: --preset 9: want 1..6 for xz, 1..4 for zstd; later"},
	} {
		if tc.lib == nil {
			t.Errorf("want an error worded %q, got none", tc.want)
			continue
		}
		if got := inFlags(tc.lib); !strings.Contains(got, tc.want) {
			t.Errorf("inFlags(%q) = %q, want it to hold %q", tc.lib, got, tc.want)
		}
		if cliWords.MatchString(tc.lib.Error()) {
			t.Errorf("library message %q names a command or flag", tc.lib)
		}
	}
	ps := []verify.Problem{
		verify.Problemf(
			"redistrib_sbom_x.spdx.json",
			"bill of materials does not list the archive a.tar.xz (rerun %s with %s)",
			fault.RefConvert,
			fault.RefSBOM,
		),
		verify.Problemf("other", "unchanged (rerun Convert with Build.SBOM, as prose)"),
	}
	problemsInFlags(ps)
	b, err := json.Marshal(ps)
	if err != nil {
		t.Fatal(err)
	}
	want := `["redistrib_sbom_x.spdx.json: bill of materials does not list the archive a.tar.xz (rerun debredist ` +
		`convert with --sbom)",` +
		`"other: unchanged (rerun Convert with Build.SBOM, as prose)"]`
	if string(b) != want {
		t.Errorf("problems as JSON: %s, want %s", b, want)
	}
}

// TestEveryRefWorded: the CLI words every Ref the library may name.
func TestEveryRefWorded(t *testing.T) {
	for _, r := range fault.Refs {
		w, ok := words[r]
		if !ok || w == "" || w == string(r) {
			t.Errorf("fault.%s (%q) has no CLI word", r, string(r))
		}
	}
	if len(words) != len(fault.Refs) {
		t.Errorf("%d words for %d Refs", len(words), len(fault.Refs))
	}
}
