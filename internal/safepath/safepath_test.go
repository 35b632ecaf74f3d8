package safepath

import (
	"errors"
	"path"
	"strings"
	"testing"
)

func links(m map[string]string) func(string) (string, bool) {
	return func(p string) (string, bool) { t, ok := m[p]; return t, ok }
}

func TestResolve(t *testing.T) {
	tree := map[string]string{
		"lib/self":  ".",
		"lib/up":    "..",
		"lib/abs":   "/etc",
		"lib/loop1": "loop2",
		"lib/loop2": "loop1",
		"lib/deep":  "self/self/self",
		"lib64":     "lib",
		"lib/empty": "",
	}
	for _, tt := range []struct {
		dir, target string
		want        error // nil: resolves inside
		via         string
	}{
		{"lib", "libfoo.so.1", nil, ""},
		{"lib", "../include/x.h", nil, ""},
		{".", "lib64/self/up/lib", nil, ""},
		{"lib", "self/self/..", nil, ""},
		{"lib", "deep/../x", nil, ""},
		{"", "a/./b//c", nil, ""},
		{"lib", "", ErrEmpty, ""},
		{"lib", "a\x00b", ErrNUL, ""},
		{"lib", "/usr/lib/x", ErrAbsolute, ""},
		{"lib", "../..", ErrEscapes, ""},
		{".", "..", ErrEscapes, ""},
		{"a/b", "../../../etc/passwd", ErrEscapes, ""},
		{"lib", "up/..", ErrEscapes, ""},         // lexically inside, escapes through lib/up
		{"lib", "self/../../..", ErrEscapes, ""}, // "s/.." where s -> "."
		{".", "lib64/up/..", ErrEscapes, ""},     // two links deep
		{"lib", "abs/passwd", ErrAbsolute, "lib/abs"},
		{".", "lib64/abs", ErrAbsolute, "lib/abs"},
		{"lib", "loop1", ErrLoop, ""},
		{"lib", "empty/x", ErrEmpty, "lib/empty"},
	} {
		err := Resolve(tt.dir, tt.target, links(tree))
		if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("Resolve(%q, %q) = %v, want %v", tt.dir, tt.target, err, tt.want)
			continue
		}
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Via != tt.via || e.Target != tt.target) {
			t.Errorf("Resolve(%q, %q) = %#v, want Via %q", tt.dir, tt.target, err, tt.via)
		}
	}
	// Without a tree only the lexical walk is checked.
	if err := Resolve("lib", "up/..", nil); err != nil {
		t.Errorf("Resolve without links: %v", err)
	}
	if err := Resolve("lib", "../../x", nil); !errors.Is(err, ErrEscapes) {
		t.Errorf("Resolve without links: %v, want ErrEscapes", err)
	}
}

func TestRootRelative(t *testing.T) {
	for _, tt := range []struct{ name, target, want string }{
		{"usr/lib/y/z", "/usr/lib/x", "../x"},
		{"usr/lib/libx.so", "/usr/bin/su", "../bin/su"},
		{"usr/lib/x", "/usr/lib", "."},
		{"usr/lib/x/y", "/usr", "../.."},
		{"x", "/", "."},
		{"usr/x", "/", ".."},
		{"usr/x", "//usr/./lib/../y", "y"},
		{"usr/x", "rel/target", "rel/target"},
		{"a", "/a/b", "a/b"},
	} {
		if got := RootRelative(tt.name, tt.target); got != tt.want {
			t.Errorf("RootRelative(%q, %q) = %q, want %q", tt.name, tt.target, got, tt.want)
		}
	}
}

func TestRel(t *testing.T) {
	for _, tt := range []struct{ dir, target, want string }{
		{"lib", "lib/libfoo.so.1", "libfoo.so.1"},
		{".", "lib/x", "lib/x"},
		{"", "x", "x"},
		{"a/b", "a/c/d", "../c/d"},
		{"a/b/c", "a/b", "../../b"}, // names what it points at, never ".."
		{"lib/stubs", "lib/libcuda.so", "../libcuda.so"},
		{"targets/aarch64-linux/lib", "lib/x", "../../../lib/x"},
	} {
		if got := Rel(tt.dir, tt.target); got != tt.want {
			t.Errorf("Rel(%q, %q) = %q, want %q", tt.dir, tt.target, got, tt.want)
		}
	}
}

// reference is an independent (recursive) resolver: the rule Resolve must
// implement, written differently.
func reference(dir, target string, tree map[string]string) error {
	if target == "" || strings.ContainsRune(target, 0) || strings.HasPrefix(target, "/") {
		return errors.New("bad target")
	}
	hops := 0
	var walk func(stack []string, target string) ([]string, error)
	walk = func(stack []string, target string) ([]string, error) {
		for _, c := range strings.Split(target, "/") {
			switch c {
			case "", ".":
				continue
			case "..":
				if len(stack) == 0 {
					return nil, errors.New("escapes")
				}
				stack = stack[:len(stack)-1]
				continue
			}
			stack = append(stack, c)
			t, ok := tree[strings.Join(stack, "/")]
			if !ok {
				continue
			}
			if hops++; hops > MaxHops {
				return nil, errors.New("loop")
			}
			if t == "" || strings.ContainsRune(t, 0) || strings.HasPrefix(t, "/") {
				return nil, errors.New("bad link")
			}
			var err error
			if stack, err = walk(append([]string(nil), stack[:len(stack)-1]...), t); err != nil {
				return nil, err
			}
		}
		return stack, nil
	}
	_, err := walk(split(dir), target)
	return err
}

// FuzzResolve compares Resolve with the reference resolver on a tree of up
// to three fuzzed symlinks, and checks the lexical consequence of success.
// It also checks that RootRelative and Rel build links that reach their
// target.
func FuzzResolve(f *testing.F) {
	f.Add("lib", "self/../..", "lib/self", ".", "lib/up", "..", "x", "/etc")
	f.Add("a/b", "../c", "a/c", "../../..", "", "", "", "")
	f.Add(".", "l/l/l", "l", ".", "l/l", "/", "q", "q")
	f.Fuzz(func(t *testing.T, dir, target, n1, t1, n2, t2, n3, t3 string) {
		dir = strings.Trim(path.Clean("/"+dir), "/")
		tree := map[string]string{}
		for _, kv := range [][2]string{{n1, t1}, {n2, t2}, {n3, t3}} {
			if n := strings.Trim(path.Clean("/"+kv[0]), "/"); n != "" {
				tree[n] = kv[1]
			}
		}
		err := Resolve(dir, target, links(tree))
		if ref := reference(dir, target, tree); (err == nil) != (ref == nil) {
			t.Fatalf("Resolve(%q, %q, %q) = %v, reference %v", dir, target, tree, err, ref)
		}
		if err == nil {
			if j := path.Join(dir, target); j == ".." || strings.HasPrefix(j, "../") {
				t.Fatalf("Resolve(%q, %q) accepted a lexical escape %q", dir, target, j)
			}
		}
		name := path.Join(dir, "link")
		want := strings.Trim(path.Clean("/"+target), "/")
		if want == "" {
			want = "."
		}
		if rr := RootRelative(name, "/"+target); path.Join(dir, rr) != want {
			t.Fatalf("RootRelative(%q, %q) = %q reaches %q", name, "/"+target, rr, path.Join(dir, rr))
		}
		if tg := strings.Trim(path.Clean("/"+target), "/"); tg != "" {
			r := Rel(dir, tg)
			if path.Join(dir, r) != tg || path.Base(r) != path.Base(tg) {
				t.Fatalf("Rel(%q, %q) = %q reaches %q", dir, tg, r, path.Join(dir, r))
			}
		}
	})
}

func TestJoinCheckName(t *testing.T) {
	for _, tt := range []struct {
		link, target, want string
		ok                 bool
	}{
		{"usr/lib/a", "b", "usr/lib/b", true},
		{"usr/lib/a", "../../x", "x", true},
		{"usr/lib/a", "../../../x", "../x", false},
		{"a", "..", "..", false},
		{"usr/lib/a", "/etc/../usr/x", "usr/x", true},
		{"usr/lib/a", "/", ".", true},
		{"a", ".", ".", true},
	} {
		if got, ok := Join(tt.link, tt.target); got != tt.want || ok != tt.ok {
			t.Errorf("Join(%q, %q) = %q, %v; want %q, %v", tt.link, tt.target, got, ok, tt.want, tt.ok)
		}
	}
	for name, want := range map[string]error{
		"a/b": nil, "a-b.c": nil, "": ErrNameEmpty, "a\x00b": ErrNameNUL, "/a": ErrNameAbsolute,
		"a//b": ErrNameComponent, "a/": ErrNameComponent, "./a": ErrNameComponent,
		"a/../b": ErrNameComponent, "..": ErrNameComponent,
	} {
		if err := CheckName(name); err != want {
			t.Errorf("CheckName(%q) = %v, want %v", name, err, want)
		}
	}
	for p, want := range map[string]bool{"..": true, "../a": true, "..a": false, "a/..": false, ".": false} {
		if Escapes(p) != want {
			t.Errorf("Escapes(%q) = %v", p, !want)
		}
	}
}

// TestCheckNameMax: a 255-byte component passes, a 256-byte one anywhere
// in the name is ErrNameTooLong.
func TestCheckNameMax(t *testing.T) {
	n255, n256 := strings.Repeat("a", 255), strings.Repeat("a", 256)
	for name, want := range map[string]error{
		n255: nil, "lib/" + n255: nil, n256: ErrNameTooLong, "lib/" + n256 + "/x": ErrNameTooLong,
	} {
		if err := CheckName(name); !errors.Is(err, want) && err != want {
			t.Errorf("CheckName(%d bytes): %v, want %v", len(name), err, want)
		}
	}
}
