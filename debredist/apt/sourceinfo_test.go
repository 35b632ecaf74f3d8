package apt

import "testing"

func TestPyString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`plain`: `"plain"`, `q"b\`: `"q\"b\\"`, "tab\t\x01": `"tab\t\u0001"`,
		"é": `"\u00e9"`, "\x7f": `"\u007f"`, "😀": `"\ud83d\ude00"`, "<&>": `"<&>"`,
	} {
		if got := pyString(in); got != want {
			t.Errorf("pyString(%q) = %s, want %s", in, got, want)
		}
	}
}
