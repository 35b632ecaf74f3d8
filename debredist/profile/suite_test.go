package profile

import "testing"

func TestValidSuite(t *testing.T) {
	for s, want := range map[string]bool{
		"r36.5": true, "r35.6": true, "r39.2": true, "r100.10": true, "r123456789.1": true, "r1234567890.1": false,
		"": false, "r36": false, "36.5": false, "r36.5.1": false, "r36.": false, "r.5": false,
		"R36.5": false, "r36.5/..": false, "r3a.5": false, "r-1.5": false,
	} {
		if got := ValidSuite(s); got != want {
			t.Errorf("ValidSuite(%q) = %v, want %v", s, got, want)
		}
	}
}
