package apt

import (
	"fmt"
	"strings"

	"pault.ag/go/debian/version"
)

// maxFilenameBytes bounds a pool path.
const maxFilenameBytes = 1024

// CheckFilename reports why a pool path taken from an index or lock file is
// unsafe to join to a repository base, or nil. A safe Filename is relative,
// uses "/" only, has no empty, "." or ".." segment, and contains no NUL,
// control character or backslash.
func CheckFilename(name string) error {
	if msg := filenameProblem(name); msg != "" {
		return fmt.Errorf("apt: unsafe Filename %q: %s", truncateString(name, 200), msg)
	}
	return nil
}

func filenameProblem(name string) string {
	switch {
	case name == "":
		return "empty"
	case len(name) > maxFilenameBytes:
		return fmt.Sprintf("longer than %d bytes", maxFilenameBytes)
	case name[0] == '/':
		return "absolute path"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == 0:
			return "contains NUL"
		case c == '\\':
			return "contains a backslash"
		case c < 0x20 || c == 0x7f:
			return "contains a control character"
		}
	}
	for seg := range strings.SplitSeq(name, "/") {
		switch seg {
		case "":
			return "empty path segment"
		case ".", "..":
			return "contains a " + seg + " segment"
		}
	}
	return ""
}

// sha256Problem checks for exactly 64 hex digits and returns the lowercase
// form.
func sha256Problem(s string) (string, string) {
	if s == "" {
		return "", "missing SHA256"
	}
	if len(s) != 64 {
		return "", fmt.Sprintf("malformed SHA256 %q: want 64 hex digits", truncateString(s, 80))
	}
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
		case c >= 'A' && c <= 'F':
			upper = true
		default:
			return "", fmt.Sprintf("malformed SHA256 %q: want 64 hex digits", truncateString(s, 80))
		}
	}
	if upper {
		s = strings.ToLower(s)
	}
	return s, ""
}

// nameProblem checks a Debian package name: lowercase letters, digits and
// "+-.", starting with a letter or digit.
func nameProblem(n string) string {
	if n == "" {
		return "missing Package field"
	}
	if len(n) > 256 {
		return "package name longer than 256 bytes"
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		alnum := (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
		if !alnum && (i == 0 || (c != '+' && c != '-' && c != '.')) {
			return fmt.Sprintf("invalid package name %q", truncateString(n, 80))
		}
	}
	return ""
}

func versionProblem(v string) string {
	if v == "" {
		return "missing Version field"
	}
	if _, err := version.Parse(v); err != nil || strings.TrimSpace(v) != v {
		return fmt.Sprintf("invalid Version %q", truncateString(v, 80))
	}
	return ""
}

// parseSize accepts a non-negative decimal without sign.
func parseSize(s string) (int64, string) {
	if s == "" {
		return 0, "missing Size field"
	}
	if len(s) > 18 {
		return 0, fmt.Sprintf("Size %q out of range", truncateString(s, 40))
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, fmt.Sprintf("Size %q is not a non-negative integer", truncateString(s, 40))
		}
		n = n*10 + int64(c-'0')
	}
	return n, ""
}

// SplitSource splits a Source field such as "tensorrt (8.5.2-1+cuda11.4)"
// into name and version; the version is empty when absent.
func SplitSource(s string) (name, ver string, err error) {
	s = strings.TrimSpace(s)
	name, rest, found := strings.Cut(s, " ")
	if !found {
		if msg := nameProblem(name); msg != "" {
			return "", "", fmt.Errorf("apt: Source %q: %s", truncateString(s, 200), msg)
		}
		return name, "", nil
	}
	rest = strings.TrimSpace(rest)
	if len(rest) < 3 || rest[0] != '(' || rest[len(rest)-1] != ')' {
		return "", "", fmt.Errorf("apt: Source %q: want \"name\" or \"name (version)\"", truncateString(s, 200))
	}
	ver = strings.TrimSpace(rest[1 : len(rest)-1])
	if msg := nameProblem(name); msg != "" {
		return "", "", fmt.Errorf("apt: Source %q: %s", truncateString(s, 200), msg)
	}
	if msg := versionProblem(ver); msg != "" {
		return "", "", fmt.Errorf("apt: Source %q: %s", truncateString(s, 200), msg)
	}
	return name, ver, nil
}

func truncateString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
