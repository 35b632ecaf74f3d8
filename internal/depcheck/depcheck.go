// Package depcheck reads the module's import graph (go list) and the
// exported declarations of its packages with their doc comments
// (go/parser, go/doc), so that the layering rules of docs/architecture.md
// (layering_test.go) and the names the public docs use (docs_test.go) are
// tests rather than prose. It is used by tests only; it changes nothing
// and runs nothing of debredist.
package depcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Package is one package of the module as go list describes it.
type Package struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	Imports    []string // non-test imports, standard library included
}

// Module lists the packages of the module rooted at dir (go list -json
// ./...), with their non-test imports.
func Module(dir string) (module string, pkgs map[string]*Package, err error) {
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("depcheck: go list in %s: %v: %s", dir, err, stderr.Bytes())
	}
	pkgs = map[string]*Package{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			Package
			Module *struct{ Path string }
		}
		if err := dec.Decode(&p); err != nil {
			return "", nil, fmt.Errorf("depcheck: go list in %s: %v", dir, err)
		}
		if p.Module != nil {
			module = p.Module.Path
		}
		pk := p.Package
		pkgs[pk.ImportPath] = &pk
	}
	return module, pkgs, nil
}

// ExportedMentions returns, for the package in dir, every exported
// declaration whose signature (a function's parameters and results, a
// type's definition with its exported fields and methods, a variable's or
// constant's declared type and value, an alias's target) names an
// identifier of an imported package for which bad reports true, and every
// doc comment of the exported API (the package's, a declaration's, an
// exported field's or constant's line comment; see Comments) that names
// such a package: an identifier of it ("build.Package", the package
// imported or one of known, which maps the names of the module's packages
// to their import paths) or its path (a key of known with a slash,
// "internal/build"). Each is "file:line: Name mentions path.Ident" or
// "file:line: Name's doc mentions ...".
func ExportedMentions(dir string, files []string, known map[string]string,
	bad func(importPath string) bool) ([]string, error) {
	fset := token.NewFileSet()
	var found []string
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("depcheck: %v", err)
		}
		imports := map[string]string{} // local name -> path
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			local := path[strings.LastIndex(path, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			imports[local] = path
		}
		check := func(decl string, n ast.Node) {
			if n == nil {
				return
			}
			ast.Inspect(n, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.StructType:
					for _, fl := range x.Fields.List {
						if exportedField(fl) {
							ast.Inspect(fl.Type, inspectSel(fset, name, decl, imports, bad, &found))
						}
					}
					return false
				case *ast.InterfaceType:
					for _, fl := range x.Methods.List {
						if exportedField(fl) {
							ast.Inspect(fl.Type, inspectSel(fset, name, decl, imports, bad, &found))
						}
					}
					return false
				}
				return inspectSel(fset, name, decl, imports, bad, &found)(n)
			})
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
					continue
				}
				check(d.Name.Name, d.Type)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							check(s.Name.Name, s.Type)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								// go doc shows the value too:
								// "const X = string(pkg.Y)".
								check(n.Name, s.Type)
								for _, v := range s.Values {
									check(n.Name, v)
								}
								break
							}
						}
					}
				}
			}
		}
		for _, c := range Comments(fset, []*ast.File{f}) {
			for _, m := range docRef.FindAllStringSubmatch(c.Text, -1) {
				path, ok := imports[m[1]]
				if !ok {
					path, ok = known[m[1]]
				}
				if ok && bad(path) {
					found = append(found, fmt.Sprintf("%s:%d: %s's doc mentions %s.%s", name, c.Pos.Line, c.Decl, path, m[2]))
				}
			}
			for k, path := range known {
				if strings.Contains(k, "/") && bad(path) && mentionsPath(c.Text, k) {
					found = append(found, fmt.Sprintf("%s:%d: %s's doc mentions %s", name, c.Pos.Line, c.Decl, k))
				}
			}
		}
	}
	sort.Strings(found)
	return found, nil
}

// mentionsPath reports whether text names the package path p as a whole
// word: "internal/build" in "see internal/build's" but not in
// "internal/buildinfo".
func mentionsPath(text, p string) bool {
	for i := strings.Index(text, p); i >= 0; {
		end := i + len(p)
		before := i == 0 || !isPathByte(text[i-1])
		after := end == len(text) || !isPathByte(text[end])
		if before && after {
			return true
		}
		j := strings.Index(text[i+1:], p)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func isPathByte(c byte) bool {
	return c == '/' || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// docRef is a reference to a package's identifier in a doc comment:
// "deb.Limits".
var docRef = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9]*)`)

func inspectSel(fset *token.FileSet, file, decl string, imports map[string]string, bad func(string) bool,
	found *[]string) func(ast.Node) bool {
	return func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if path, ok := imports[id.Name]; ok && bad(path) {
			*found = append(*found, fmt.Sprintf("%s:%d: %s mentions %s.%s",
				file, fset.Position(sel.Pos()).Line, decl, path, sel.Sel.Name))
		}
		return false
	}
}

func exportedField(f *ast.Field) bool {
	if len(f.Names) == 0 { // embedded: exported if its type name is
		t := f.Type
		if s, ok := t.(*ast.StarExpr); ok {
			t = s.X
		}
		switch t := t.(type) {
		case *ast.Ident:
			return t.IsExported()
		case *ast.SelectorExpr:
			return t.Sel.IsExported()
		}
		return true
	}
	for _, n := range f.Names {
		if n.IsExported() {
			return true
		}
	}
	return false
}

func exportedRecv(r *ast.FieldList) bool {
	if len(r.List) == 0 {
		return false
	}
	t := r.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}
