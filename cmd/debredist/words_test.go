package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/debredist/debredist/debredist"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/profile"
	"github.com/debredist/debredist/debredist/verify"
)

// TestLibraryWordsInCLI: the library names its functions and options where
// the CLI names its commands and flags; inFlags and problemsInFlags word
// the library's own messages as the CLI always printed them.
func TestLibraryWordsInCLI(t *testing.T) {
	_, jpErr := profile.ForJetPack("99")
	_, findErr := debredist.FindProfile("nope")
	_, listErr := profile.Load(strings.NewReader(`{"schema": "`+profile.ListSchema+`", "profiles": []}`), "list.json")
	_, arrayErr := profile.Load(strings.NewReader(`[]`), "array.json")
	_, keyErr := profile.Load(strings.NewReader(`{"profiles": []}`), "key.json")
	missing := &fault.MissingError{Packages: []fault.MissingDeb{{Name: "cuda-cudart-12-6", Version: "12.6.68-1"}}, Mirror: "https://repo.download.nvidia.com/jetson"}
	for _, tc := range []struct {
		lib  error
		want string
	}{
		{jpErr, "; see `debredist profiles`)"},
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
		if strings.Contains(tc.lib.Error(), "debredist ") || strings.Contains(tc.lib.Error(), "--") {
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
	if inFlags("verify.Nixpkgs finds a problem") != "verify --nixpkgs finds a problem" {
		t.Errorf("verify.Nixpkgs is not worded verify --nixpkgs")
	}
}
