package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/verify"
)

// cliWords are a command or flag of the CLI in a message.
var cliWords = regexp.MustCompile(`debredist (profiles|fetch|verify|convert|nix|sbom|diff|plan)\b|--[a-z]`)

// TestLibraryWordsInCLI: the library names its functions and options where
// the CLI names its commands and flags; inFlags and problemsInFlags word
// the library's own messages as the CLI always printed them.
func TestLibraryWordsInCLI(t *testing.T) {
	_, jpErr := profile.ForJetPack("99")
	_, findErr := debredist.FindProfile("nope")
	_, listErr := profile.Load(strings.NewReader(`{"schema": "`+profile.ListSchema+`", "profiles": []}`), "list.json")
	_, arrayErr := profile.Load(strings.NewReader(`[]`), "array.json")
	_, keyErr := profile.Load(strings.NewReader(`{"profiles": []}`), "key.json")
	empty := t.TempDir() // an OUT holding nothing but its lock file: no provenance
	os.WriteFile(filepath.Join(empty, ".debredist.lock"), nil, 0o644)
	_, diffErr := debredist.Diff(context.Background(), debredist.DiffOptions{}, empty, empty)
	missing := &fault.MissingError{Packages: []fault.MissingDeb{{Name: "cuda-cudart-12-6", Version: "12.6.68-1"}}, Mirror: "https://repo.download.nvidia.com/jetson"}
	for _, tc := range []struct {
		lib  error
		want string
	}{
		{jpErr, "; see `debredist profiles`)"},
		{diffErr, ": no debredist provenance record found (not an output directory of debredist convert?)"},
		{findErr, ": see 'debredist profiles')"},
		{listErr, "the list of profiles 'debredist profiles --json' prints (schema " + profile.ListSchema + "), not a profile; a profile file holds one profile: 'debredist profiles --json NAME' prints one"},
		{arrayErr, "an array of profiles, not a profile; a profile file holds one profile: 'debredist profiles --json NAME' prints one"},
		{keyErr, "unknown field \"profiles\" (the list 'debredist profiles --json' prints holds its profiles there); a profile file holds one profile: 'debredist profiles --json NAME' prints one"},
		{missing, "; run once without --offline (`debredist fetch` with the same release or lock) to download them into the cache, or give --cache DIR where they are"},
	} {
		if tc.lib == nil {
			t.Errorf("want an error worded %q, got none", tc.want)
			continue
		}
		if got := inFlags(tc.lib.Error()); !strings.Contains(got, tc.want) {
			t.Errorf("inFlags(%q) = %q, want it to hold %q", tc.lib, got, tc.want)
		}
		if cliWords.MatchString(tc.lib.Error()) {
			t.Errorf("library message %q names a command or flag", tc.lib)
		}
	}
	ps := []verify.Problem{verify.Problemf("redistrib_sbom_x.spdx.json", "bill of materials does not list the archive a.tar.xz (rerun Convert with Build.SBOM)"), verify.Problemf("other", "unchanged")}
	problemsInFlags(ps)
	b, err := json.Marshal(ps)
	if err != nil {
		t.Fatal(err)
	}
	if want := `["redistrib_sbom_x.spdx.json: bill of materials does not list the archive a.tar.xz (rerun convert --sbom)","other: unchanged"]`; string(b) != want {
		t.Errorf("problems as JSON: %s, want %s", b, want)
	}
	for lib, want := range map[string]string{
		"verify.Nixpkgs finds a problem":                                             "verify --nixpkgs finds a problem",
		"it changed since the conversion (verify.Dir tells more)":                    "it changed since the conversion (debredist verify tells more)",
		"not followed: a (verify.Dir lists them)":                                    "not followed: a (debredist verify lists them)",
		"no debredist provenance record found (not an output directory of Convert?)": "no debredist provenance record found (not an output directory of debredist convert?)",
	} {
		if got := inFlags(lib); got != want {
			t.Errorf("inFlags(%q) = %q, want %q", lib, got, want)
		}
	}
}
