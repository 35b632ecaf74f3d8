package apt

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func sum256(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestParseRelease(t *testing.T) {
	pk := "Package: a\n"
	in := fmt.Sprintf("Origin: NVIDIA\r\nLabel: Jetson\nSuite: r36.5\nCodename: r36.5\n"+
		"Date: Tue, 07 Jan 2025 17:41:45 UTC\nArchitectures: arm64 all\nComponents: main\n"+
		"Description: L4T\nMD5Sum:\n 0123 10 main/binary-arm64/Packages\n"+
		"SHA256:\n %s %d main/binary-arm64/Packages\n %s 0 main/binary-arm64/Packages.gz\n\n",
		sum256(pk), len(pk), strings.ToUpper(sum256("")))
	rel, err := ParseReleaseFile(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if rel.Origin != "NVIDIA" || rel.Label != "Jetson" || rel.Suite != "r36.5" || rel.Codename != "r36.5" ||
		rel.Date != "Tue, 07 Jan 2025 17:41:45 UTC" || strings.Join(rel.Architectures, ",") != "arm64,all" ||
		strings.Join(rel.Components, ",") != "main" || rel.Fields["Description"] != "L4T" {
		t.Errorf("fields: %+v", rel)
	}
	if len(rel.SHA256) != 2 || !rel.Has("main/binary-arm64/Packages") || rel.Has("main/binary-arm64/Packages.xz") {
		t.Fatalf("SHA256 entries: %+v", rel.SHA256)
	}
	if got := rel.SHA256["main/binary-arm64/Packages.gz"]; got.SHA256 != sum256("") || got.Size != 0 {
		t.Errorf("uppercase hash not normalised: %+v", got)
	}

	tests := []struct {
		name, path, data string
		mismatch         bool
		notListed        bool
	}{
		{"match", "main/binary-arm64/Packages", pk, false, false},
		{"empty match", "main/binary-arm64/Packages.gz", "", false, false},
		{"tampered same size", "main/binary-arm64/Packages", "Package: b\n", true, false},
		{"tampered longer", "main/binary-arm64/Packages", pk + "x", true, false},
		{"not listed", "main/binary-arm64/Packages.xz", pk, false, true},
	}
	for _, tt := range tests {
		err := rel.Verify(tt.path, strings.NewReader(tt.data))
		var me *MismatchError
		switch {
		case tt.mismatch:
			if !errors.As(err, &me) || me.Path != tt.path || me.ExpectedSHA256 != sum256(pk) ||
				me.ActualSHA256 != sum256(tt.data) ||
				me.ExpectedSize != int64(len(pk)) ||
				me.ActualSize != int64(len(tt.data)) {
				t.Errorf("%s: err = %#v", tt.name, err)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("%s: error %q does not name the path", tt.name, err)
			}
		case tt.notListed:
			if !errors.Is(err, ErrNotListed) {
				t.Errorf("%s: err = %v, want ErrNotListed", tt.name, err)
			}
		default:
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
		}
	}
}

func TestParseReleaseErrors(t *testing.T) {
	h := sum256("")
	tests := []struct {
		name, in, want string
		syntax         bool // a *SyntaxError (deb822's rules)
	}{
		{"empty", "", "empty file", true},
		{"clearsigned", "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\nOrigin: x\n", "clearsigned", false},
		{"short hash", "Origin: x\nSHA256:\n abc 1 main/Packages\n", "64 hex", false},
		{"bad size", "Origin: x\nSHA256:\n " + h + " -1 main/Packages\n", "non-negative", false},
		{"two columns", "Origin: x\nSHA256:\n " + h + " 1\n", "hash size path", false},
		{"duplicate path", "Origin: x\nSHA256:\n " + h + " 0 p\n " + h + " 0 p\n", "duplicate path", false},
		{"two stanzas", "Origin: x\n\nPackage: y\n", "second stanza", true},
		{"junk", "Origin: x\n\x00\x01\n", "control character", true},
		{"duplicate field", "Origin: x\nOrigin: y\n", "duplicate field", true},
		// Field would read one of the two, the SHA256 line numbers the other.
		{
			"case-variant duplicate field",
			"Origin: x\nSHA256:\n " + h + " 0 p\nsha256:\n " + h + " 0 q\n",
			`line 4: duplicate field "sha256"`,
			true,
		},
		{"case-variant duplicate scalar", "Suite: a\nSUITE: b\n", `line 2: duplicate field "SUITE"`, true},
	}
	for _, tt := range tests {
		_, err := ParseReleaseFile(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.name, err, tt.want)
		}
		var se *SyntaxError
		if errors.As(err, &se) != tt.syntax {
			t.Errorf("%s: err = %v (%T), want a *SyntaxError: %v", tt.name, err, err, tt.syntax)
		}
	}
	if _, err := ParseReleaseFile(strings.NewReader("-----BEGIN PGP SIGNED MESSAGE-----\n")); !errors.Is(
		err,
		ErrClearsigned,
	) {
		t.Errorf("clearsigned: err = %v", err)
	}
}
