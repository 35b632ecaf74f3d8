package nixoverlay

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestNixPathAndQuote(t *testing.T) {
	tests := []struct{ in, path, shell string }{
		{"/a/b-c_d.e+f/x.json", "/a/b-c_d.e+f/x.json", "/a/b-c_d.e+f/x.json"},
		{"/a b/x", `(/. + "/a b/x")`, `'/a b/x'`},
		{`/a"${b}\c`, `(/. + "/a\"\${b}\\c")`, `'/a"${b}\c'`},
		{"/it's", `(/. + "/it's")`, `'/it'\''s'`},
	}
	for _, tc := range tests {
		if got := nixPath(tc.in); got != tc.path {
			t.Errorf("nixPath(%q) = %s, want %s", tc.in, got, tc.path)
		}
		if got := shellQuote(tc.in); got != tc.shell {
			t.Errorf("shellQuote(%q) = %s, want %s", tc.in, got, tc.shell)
		}
	}
}

// FuzzNixQuote checks that nixPath and shellQuote round-trip any path: the
// Nix string (or literal) and the shell word decode back to the input.
func FuzzNixQuote(f *testing.F) {
	for _, s := range []string{"/a/b", "/a b", `/a"${x}\y`, "/it's", "/t\tab\nnl", "/$HOME", "/a/${b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !strings.HasPrefix(s, "/") {
			s = "/" + s
		}
		if got := unNixPath(t, nixPath(s)); got != filepath.ToSlash(s) {
			t.Errorf("nixPath(%q) = %s decodes to %q", s, nixPath(s), got)
		}
		if got := unShellQuote(t, shellQuote(s)); got != s {
			t.Errorf("shellQuote(%q) = %s decodes to %q", s, shellQuote(s), got)
		}
	})
}

// unNixPath decodes what nixPath produces: a path literal or
// (/. + "<Nix string>").
func unNixPath(t *testing.T, e string) string {
	t.Helper()
	if nixPathRE.MatchString(e) {
		return e
	}
	const pre, post = `(/. + "`, `")`
	if !strings.HasPrefix(e, pre) || !strings.HasSuffix(e, post) {
		t.Fatalf("not a path expression: %s", e)
	}
	body := e[len(pre) : len(e)-len(post)]
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
	return b.String()
}

// unShellQuote decodes a word made of plain characters and '...' parts.
func unShellQuote(t *testing.T, w string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		switch c := w[i]; c {
		case '\'':
			j := strings.IndexByte(w[i+1:], '\'')
			if j < 0 {
				t.Fatalf("unterminated quote in %s", w)
			}
			b.WriteString(w[i+1 : i+1+j])
			i += j + 1
		case '\\':
			i++
			b.WriteByte(w[i])
		default:
			if !shellSafeRE.MatchString(string(c)) {
				t.Fatalf("unquoted %q in %s", c, w)
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}
