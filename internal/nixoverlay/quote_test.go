package nixoverlay

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/debredist/debredist/internal/testutil"
)

// FuzzNixString checks that nixString round-trips any string through the
// decoding Nix applies to a string literal, and that the literal has no
// interpolation and ends where it should.
func FuzzNixString(f *testing.F) {
	for _, s := range []string{
		"/a/b",
		"/a b",
		`/a"${x}\y`,
		"/it's",
		"/t\tab\nnl",
		"$HOME",
		"a/${b",
		`\${`,
		"\u2028",
		`";builtins.readFile /etc/hostname;"`,
		"''${x}",
		"$${x}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := nixString(s)
		if got := unNixString(t, lit); got != s {
			t.Errorf("nixString(%q) = %s decodes to %q", s, lit, got)
		}
	})
}

// TestNixStringEvaluates has Nix itself read nixString's literals back
// (and parse them), for the strings an attacker who writes OUT would try.
func TestNixStringEvaluates(t *testing.T) {
	testutil.RequireTool(t, "nix-instantiate")
	if os.Getenv("NIX_CONFIG") == "" {
		t.Setenv("NIX_CONFIG", "build-users-group =")
	}
	for _, s := range []string{
		`a"b`,
		`${builtins.readFile /etc/hostname}`,
		`\${x}`,
		"x\ny\r\tz",
		"\u2028\u2029",
		`'' ${x} ''`,
		"$",
		`\`,
		"if",
		`";builtins.abort "pwned";"`,
	} {
		lit := nixString(s)
		out, err := exec.Command("nix-instantiate", "--eval", "--json", "--expr", lit).CombinedOutput()
		if err != nil {
			t.Fatalf("nix-instantiate --eval %s: %v\n%s", lit, err, out)
		}
		var got string
		if err := json.Unmarshal(out, &got); err != nil || got != s {
			t.Errorf("Nix reads %s as %s (%v), want %q", lit, out, err, s)
		}
	}
}

// unNixString decodes a Nix double-quoted string literal the way Nix's
// lexer does (\n \r \t, \X is X), failing on an unescaped quote or ${.
func unNixString(t *testing.T, e string) string {
	t.Helper()
	if !strings.HasPrefix(e, `"`) || !strings.HasSuffix(e, `"`) || len(e) < 2 {
		t.Fatalf("not a string literal: %s", e)
	}
	body := e[1 : len(e)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\':
			i++
			if i == len(body) {
				t.Fatalf("trailing backslash in %s", e)
			}
			switch body[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(body[i])
			}
		case c == '"':
			t.Fatalf("unescaped quote in %s", e)
		case c == '$' && i+1 < len(body) && body[i+1] == '{':
			t.Fatalf("unescaped interpolation in %s", e)
		default:
			b.WriteByte(c)
		}
	}
	if !utf8.ValidString(b.String()) && utf8.ValidString(e) {
		t.Fatalf("decoding %s broke UTF-8", e)
	}
	return b.String()
}
