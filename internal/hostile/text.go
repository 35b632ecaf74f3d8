package hostile

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/tools/txtar"
)

// KindProfile is a --profile file whose names try to reach paths outside
// OUT (or outside an archive's top directory).
const KindProfile = "profile"

// ErrProfileInvalid is the error kind of a refused profile: a
// *profile.InvalidError naming Case.Field, before anything is written.
const ErrProfileInvalid = "profile:invalid"

// textKinds gives the kind of the cases of a txtar archive by the
// beginning of its name: index-*.txtar hold Packages indexes,
// profile-*.txtar --profile files.
var textKinds = map[string]string{"index-": KindIndex, "profile-": KindProfile}

// loadText reads the cases of every txtar archive in dir (the format is
// in testdata/hostile/README.md).
func loadText(dir string) ([]Case, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("hostile: no txtar archive in %s", dir)
	}
	var cs []Case
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			return nil, err
		}
		kind := ""
		for prefix, k := range textKinds {
			if strings.HasPrefix(filepath.Base(p), prefix) {
				kind = k
			}
		}
		if kind == "" {
			return nil, fmt.Errorf("hostile: %s: the name says no kind (index-*.txtar, profile-*.txtar)", p)
		}
		c, err := archiveCases(a, kind)
		if err != nil {
			return nil, fmt.Errorf("hostile: %s: %w", p, err)
		}
		cs = append(cs, c...)
	}
	return cs, nil
}

// archiveCases reads the cases of a: each is the file NAME.want, its
// labels, followed by NAME's file (NAME.Packages, NAME.json).
func archiveCases(a *txtar.Archive, kind string) ([]Case, error) {
	if len(a.Files)%2 != 0 {
		return nil, fmt.Errorf("%d files: want pairs of NAME.want and NAME's file", len(a.Files))
	}
	var cs []Case
	for i := 0; i < len(a.Files); i += 2 {
		want, file := a.Files[i], a.Files[i+1]
		name, ok := strings.CutSuffix(want.Name, ".want")
		if !ok || !strings.HasPrefix(file.Name, name+".") {
			return nil, fmt.Errorf("files %s and %s: want NAME.want followed by NAME's file", want.Name, file.Name)
		}
		c, err := parseWant(want.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", want.Name, err)
		}
		data := file.Data
		c.Name, c.File, c.Kind = name, file.Name, kind
		c.build = func() ([]byte, error) { return data, nil }
		cs = append(cs, c)
	}
	return cs, nil
}

// parseWant reads the "key: value" lines of a NAME.want file.
func parseWant(b []byte) (Case, error) {
	var c Case
	seen := map[string]bool{}
	for i, line := range strings.Split(string(bytes.TrimSuffix(b, []byte("\n"))), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok || seen[k] {
			return c, fmt.Errorf("line %d: %q: want one \"key: value\" per key", i+1, line)
		}
		seen[k] = true
		var err error
		switch k {
		case "reason":
			c.Reason = v
		case "expect":
			c.Expect = v
		case "error":
			c.Error = v
		case "field":
			c.Field = v
		case "newest":
			c.Newest = v
		case "packages":
			c.Packages, err = strconv.Atoi(v)
		case "problems":
			c.Problems, err = strconv.Atoi(v)
		default:
			err = fmt.Errorf("unknown key %q", k)
		}
		if err != nil {
			return c, fmt.Errorf("line %d: %w", i+1, err)
		}
	}
	return c, nil
}
