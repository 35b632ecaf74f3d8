package depcheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Comment is one doc comment a user of a package reads (go doc, pkgsite,
// an editor's hover): the package's, an exported declaration's, or a line
// or doc comment of an exported field, method or constant in one.
type Comment struct {
	Pos  token.Position
	Decl string // "package verify", "Options", "Options.Release"
	Text string // as go/ast's CommentGroup.Text gives it
}

// Comments returns the doc comments of the exported API of the files.
func Comments(fset *token.FileSet, files []*ast.File) []Comment {
	var out []Comment
	add := func(decl string, groups ...*ast.CommentGroup) {
		for _, g := range groups {
			if g != nil {
				out = append(out, Comment{fset.Position(g.Pos()), decl, g.Text()})
			}
		}
	}
	fields := func(decl string, t ast.Expr) {
		var list *ast.FieldList
		switch t := t.(type) {
		case *ast.StructType:
			list = t.Fields
		case *ast.InterfaceType:
			list = t.Methods
		default:
			return
		}
		for _, f := range list.List {
			if exportedField(f) {
				name := decl
				if len(f.Names) > 0 {
					name += "." + f.Names[0].Name
				}
				add(name, f.Doc, f.Comment)
			}
		}
	}
	for _, f := range files {
		add("package "+f.Name.Name, f.Doc)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv)) {
					add(d.Name.Name, d.Doc)
				}
			case *ast.GenDecl:
				exported := false
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							exported = true
							add(s.Name.Name, s.Doc, s.Comment)
							fields(s.Name.Name, s.Type)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								exported = true
								add(n.Name, s.Doc, s.Comment)
								break
							}
						}
					}
				}
				if exported {
					add(declName(d), d.Doc)
				}
			}
		}
	}
	return out
}

// declName names a declaration group by its first exported name.
func declName(d *ast.GenDecl) string {
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			if s.Name.IsExported() {
				return s.Name.Name
			}
		case *ast.ValueSpec:
			for _, n := range s.Names {
				if n.IsExported() {
					return n.Name
				}
			}
		}
	}
	return d.Tok.String()
}

// API is what doc links and names in doc comments may refer to: the
// packages of the module and those of the standard library (and other
// modules) that one of them imports, each loaded once, when first named.
type API struct {
	root     string // the module's directory
	fset     *token.FileSet
	pkgs     map[string]*apiPackage // by import path
	mod      map[string]*Package    // the module's packages, from go list
	modNames map[string]string      // package name -> import path, of the module's packages
}

// NewAPI reads packages on demand from the module rooted at root.
func NewAPI(root string) *API {
	return &API{root: root, fset: token.NewFileSet(), pkgs: map[string]*apiPackage{}}
}

// apiPackage is one package's documented API as go/doc sees it.
type apiPackage struct {
	path     string
	doc      *doc.Package
	comments []Comment                // of the exported API, read before go/doc consumes them
	types    map[string]*ast.TypeSpec // exported types
	imports  map[string]string        // local name -> import path, of every non-test file
}

// load parses the non-test files of the package at importPath (its
// exported API only, as go doc shows it).
func (a *API) load(importPath string) (*apiPackage, error) {
	if p, ok := a.pkgs[importPath]; ok {
		if p == nil {
			return nil, fmt.Errorf("no package %s", importPath)
		}
		return p, nil
	}
	a.pkgs[importPath] = nil
	dir, names, err := a.goFiles(importPath)
	if err != nil {
		return nil, err
	}
	p := &apiPackage{path: importPath, types: map[string]*ast.TypeSpec{}, imports: map[string]string{}}
	var files []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(a.fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			local := path[strings.LastIndex(path, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			p.imports[local] = path
		}
		files = append(files, f)
	}
	p.comments = Comments(a.fset, files)
	// go/doc filters the files' ASTs to the exported API, and takes their
	// doc comments out of them.
	p.doc, err = doc.NewFromFiles(a.fset, files, importPath)
	if err != nil {
		return nil, err
	}
	for _, t := range p.doc.Types {
		for _, s := range t.Decl.Specs {
			if s, ok := s.(*ast.TypeSpec); ok && s.Name.Name == t.Name {
				p.types[t.Name] = s
			}
		}
	}
	a.pkgs[importPath] = p
	return p, nil
}

// goFiles finds a package's directory and non-test Go files: the
// standard library's through go/build, the others through go list.
func (a *API) goFiles(importPath string) (string, []string, error) {
	if p, ok := a.module()[importPath]; ok {
		return p.Dir, p.GoFiles, nil
	}
	if isStd(importPath) {
		bp, err := build.Default.Import(importPath, "", 0)
		if err != nil {
			return "", nil, err
		}
		return bp.Dir, bp.GoFiles, nil
	}
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}\n{{range .GoFiles}}{{.}}\n{{end}}", importPath)
	cmd.Dir = a.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("go list %s: %v: %s", importPath, err, stderr.Bytes())
	}
	lines := strings.Fields(string(out))
	if len(lines) == 0 {
		return "", nil, fmt.Errorf("go list %s: no directory", importPath)
	}
	return lines[0], lines[1:], nil
}

// isStd reports whether path is a standard library package's.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// linkable reports whether go doc makes [recv.name] (or [name], recv
// empty) a link in p: a package-level name, a method or a field.
func (p *apiPackage) linkable(recv, name string) bool {
	return p.doc.Parser().LookupSym(recv, name)
}

// member resolves name in the type named typ of p, following aliases,
// embedded fields and the types of fields: it returns the package and
// type name of the member's type when it is a field of a named type (for
// a chain of fields, Options.Release.LockFile), and whether it exists.
func (a *API) member(p *apiPackage, typ, name string) (*apiPackage, string, bool) {
	for range 8 { // aliases of aliases, bounded
		s := p.types[typ]
		if s == nil {
			return nil, "", false
		}
		if s.Assign == 0 {
			break
		}
		q, t, ok := a.named(p, s.Type)
		if !ok {
			return nil, "", false
		}
		p, typ = q, t
	}
	if p.linkable(typ, name) {
		if s, ok := p.types[typ].Type.(*ast.StructType); ok {
			for _, f := range s.Fields.List {
				for _, n := range f.Names {
					if n.Name == name {
						if q, t, ok := a.named(p, f.Type); ok {
							return q, t, true
						}
					}
				}
			}
		}
		return nil, "", true
	}
	if s, ok := p.types[typ].Type.(*ast.StructType); ok {
		for _, f := range s.Fields.List {
			if len(f.Names) == 0 { // embedded: its members are promoted
				if q, t, ok := a.named(p, f.Type); ok {
					if q2, t2, ok := a.member(q, t, name); ok {
						return q2, t2, true
					}
				}
			}
		}
	}
	return nil, "", false
}

// named resolves a type expression of p to the package and name of the
// named type it is or points to (T, *T, pkg.T; []T and maps are not).
func (a *API) named(p *apiPackage, e ast.Expr) (*apiPackage, string, bool) {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		if _, ok := p.types[e.Name]; ok {
			return p, e.Name, true
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if path, ok := p.imports[x.Name]; ok {
				if q, err := a.load(path); err == nil {
					if _, ok := q.types[e.Sel.Name]; ok {
						return q, e.Sel.Name, true
					}
				}
			}
		}
	}
	return nil, "", false
}

// DocProblem is a name in a doc comment that is wrong: a doc link or a
// Go name that does not resolve, or a resolvable name not written as a
// doc link.
type DocProblem struct {
	Pos     token.Position
	Decl    string
	Text    string // the link or name as written
	Why     string
	NotLink bool           // Text resolves, but go doc would link it: write [Text]
	Comment token.Position // where the comment starts
}

func (d DocProblem) String() string {
	return fmt.Sprintf("%s: %s's doc: %s: %s", d.Pos, d.Decl, d.Text, d.Why)
}

// goName is a Go name in prose: pkg.Name, Type.Member, pkg.Type.Member,
// Type.Field.Member (a chain of fields), with an optional leading "*".
// It is not part of a path, a file name or a larger dotted word.
var goName = regexp.MustCompile(`(^|[^\w./\[*-])(\*?)([a-zA-Z]\w*(?:\.[A-Z]\w*)+)\b`)

// brokenLink is what the comment parser leaves as text although it looks
// like a doc link: "[Event]s".
var brokenLink = regexp.MustCompile(`\[\*?[A-Za-z][\w.]*\]`)

// DocNames checks the doc comments of the package at importPath: every
// doc link ([Name], [Type.Member], [pkg.Name], [pkg.Type.Member]) must
// name a declaration go doc links it to (a package-level name, a method
// or a field, of this package or one it imports or a standard library
// package), and every Go name written in prose or in a code block
// (pkg.Name, Type.Member, or a chain of fields) must exist; one that go
// doc would link must be written as a doc link. Names and links of the
// packages for which skip reports true are not checked (internal
// packages: ExportedMentions reports any mention of them in a public
// package's docs).
func (a *API) DocNames(importPath string, skip func(string) bool) ([]DocProblem, error) {
	p, err := a.load(importPath)
	if err != nil {
		return nil, err
	}
	// The doc as written: links are whatever is bracketed, resolved below.
	lax := &comment.Parser{
		LookupPackage: func(name string) (string, bool) { return name, token.IsIdentifier(name) },
		LookupSym:     func(string, string) bool { return true },
	}
	var probs []DocProblem
	for _, c := range p.comments {
		report := func(text, why string) {
			pos := c.Pos
			if i := strings.Index(c.Text, text); i >= 0 {
				pos.Line += strings.Count(c.Text[:i], "\n")
			}
			probs = append(probs, DocProblem{pos, c.Decl, text, why, strings.HasPrefix(why, writeLink), c.Pos})
		}
		var walkText func([]comment.Text)
		walkText = func(ts []comment.Text) {
			for _, t := range ts {
				switch t := t.(type) {
				case comment.Plain:
					a.proseNames(p, string(t), docQuotes, true, skip, report)
					for _, m := range brokenLink.FindAllString(string(t), -1) {
						report(m, "go doc prints it with its brackets: no doc link (a letter touches it?)")
					}
				case comment.Italic:
					a.proseNames(p, string(t), docQuotes, true, skip, report)
				case *comment.Link:
					walkText(t.Text)
				case *comment.DocLink:
					if why := a.checkLink(p, t, skip); why != "" {
						report(linkText(t), why)
					}
				}
			}
		}
		var walk func([]comment.Block)
		walk = func(bs []comment.Block) {
			for _, b := range bs {
				switch b := b.(type) {
				case *comment.Paragraph:
					walkText(b.Text)
				case *comment.Heading:
					walkText(b.Text)
				case *comment.List:
					for _, it := range b.Items {
						walk(it.Content)
					}
				case *comment.Code:
					a.proseNames(p, b.Text, docQuotes, false, skip, report)
				}
			}
		}
		walk(lax.Parse(c.Text).Content)
	}
	sort.SliceStable(probs, func(i, j int) bool {
		if probs[i].Pos.Filename != probs[j].Pos.Filename {
			return probs[i].Pos.Filename < probs[j].Pos.Filename
		}
		return probs[i].Pos.Line < probs[j].Pos.Line
	})
	return probs, nil
}

const writeLink = "write it as a doc link, "

// TextNames checks the Go names in text, a document outside the Go
// sources (the README): as in a doc comment of the package at
// importPath, every pkg.Name (a package of the module, internal ones
// too, or the standard library's), Type.Member or chain of fields must
// exist; nothing need be a link. Each problem's Pos is its line in text.
func (a *API) TextNames(importPath, text string) ([]DocProblem, error) {
	p, err := a.load(importPath)
	if err != nil {
		return nil, err
	}
	var probs []DocProblem
	for i, line := range strings.Split(text, "\n") {
		// Markdown's backquotes make code, not a quoted value.
		a.proseNames(p, line, `"'`, false, func(string) bool { return false }, func(name, why string) {
			probs = append(probs, DocProblem{Pos: token.Position{Line: i + 1}, Text: name, Why: why})
		})
	}
	return probs, nil
}

// linkText is a doc link as written between its brackets.
func linkText(l *comment.DocLink) string {
	var b strings.Builder
	for _, t := range l.Text {
		if s, ok := t.(comment.Plain); ok {
			b.WriteString(string(s))
		}
	}
	return "[" + b.String() + "]"
}

// checkLink says why a doc link of p does not resolve as go doc resolves
// it, or "".
func (a *API) checkLink(p *apiPackage, l *comment.DocLink, skip func(string) bool) string {
	target := p
	if l.ImportPath != "" {
		path, ok := l.ImportPath, true
		if !strings.Contains(path, "/") {
			path, ok = p.doc.Parser().LookupPackage(l.ImportPath)
			if !ok {
				path, ok = comment.DefaultLookupPackage(l.ImportPath)
			}
		}
		switch {
		case !ok:
			return fmt.Sprintf("no package %s among %s's imports or the standard library's "+
				"(go doc prints the brackets)", l.ImportPath, p.path)
		case skip(path):
			return ""
		}
		if path != "" { // "" is p itself
			q, err := a.load(path)
			if err != nil {
				return err.Error()
			}
			target = q
		}
		if l.Name == "" {
			return ""
		}
	}
	if !target.linkable(l.Recv, l.Name) {
		name := l.Name
		if l.Recv != "" {
			name = l.Recv + "." + name
		}
		return fmt.Sprintf("%s declares no %s (go doc prints the brackets)", target.path, name)
	}
	return ""
}

// docQuotes quote a value in a doc comment ("Source.Mirror", a message).
const docQuotes = "\"'`"

// proseNames checks the Go names in text, a run of prose (asLinks: a name
// go doc can link must be a doc link) or a code block.
func (a *API) proseNames(p *apiPackage, text, quotes string, asLinks bool, skip func(string) bool,
	report func(text, why string)) {
	for _, m := range goName.FindAllStringSubmatchIndex(text, -1) {
		quoted := m[2] < m[3] && strings.ContainsAny(text[m[2]:m[3]], quotes)
		call := strings.HasPrefix(text[m[7]:], "(") // an expression: path.Join(dir, name)
		name := text[m[6]:m[7]]
		parts := strings.Split(name, ".")
		// The first part: a package (this one, an import, a package of the
		// module, the standard library's) or a type of this package.
		var (
			q      *apiPackage
			typ    string
			rest   = parts[1:]
			pkgRef = false
		)
		if _, ok := p.types[parts[0]]; ok {
			q, typ = p, parts[0]
		} else if path, ok := a.packageNamed(p, parts[0]); ok {
			if skip(path) {
				continue
			}
			var err error
			if q, err = a.load(path); err != nil {
				report(name, err.Error())
				continue
			}
			pkgRef = true
		} else if !quoted && strings.ToUpper(parts[0]) != parts[0] && unicode.IsUpper(rune(parts[0][0])) {
			// Capitalized, not a placeholder (MAJOR.MINOR) nor a value
			// quoted ("Source.Mirror", a fault.Ref of another package's
			// words): a type.
			report(name, fmt.Sprintf("%s declares no type %s", p.path, parts[0]))
			continue
		} else {
			continue // a variable (o.Build), a word: not a name this checks
		}
		if pkgRef {
			n := rest[0]
			rest = rest[1:]
			if _, ok := q.types[n]; ok {
				typ = n
			} else if len(rest) > 0 || !q.linkable("", n) {
				report(name, fmt.Sprintf("%s declares no %s", q.path, n))
				continue
			}
		}
		ok := true
		cur, curTyp := q, typ
		for i, n := range rest {
			next, nextTyp, found := a.member(cur, curTyp, n)
			if !found {
				report(name, fmt.Sprintf("%s.%s has no field or method %s", cur.path, curTyp, n))
				ok = false
				break
			}
			if i < len(rest)-1 && next == nil {
				report(name, fmt.Sprintf("%s.%s.%s is not of a named type", cur.path, curTyp, n))
				ok = false
				break
			}
			cur, curTyp = next, nextTyp
		}
		if !ok || !asLinks || quoted || call || len(parts) > 3 || (!pkgRef && len(parts) > 2) {
			continue
		}
		// Resolvable: as a doc link if go doc would make it one.
		link := &comment.DocLink{Name: parts[len(parts)-1]}
		if pkgRef {
			link.ImportPath = parts[0]
			if len(parts) == 3 {
				link.Recv = parts[1]
			}
		} else {
			link.Recv = parts[0]
		}
		if a.checkLink(p, link, skip) == "" {
			report(name, writeLink+"["+text[m[4]:m[5]]+name+"]")
		}
	}
}

// packageNamed resolves a package name as written in p's docs: p itself,
// one p imports, a standard library package go doc knows by name, or a
// package of the module (by its last path element).
func (a *API) packageNamed(p *apiPackage, name string) (string, bool) {
	if name == p.doc.Name {
		return p.path, true
	}
	if path, ok := p.imports[name]; ok {
		return path, true
	}
	if path, ok := comment.DefaultLookupPackage(name); ok {
		return path, true
	}
	path, ok := a.moduleNames()[name]
	return path, ok
}

// module lists the module's packages (go list, once).
func (a *API) module() map[string]*Package {
	if a.mod == nil {
		a.mod = map[string]*Package{}
		if _, pkgs, err := Module(a.root); err == nil {
			a.mod = pkgs
		}
	}
	return a.mod
}

// moduleNames maps the name of every package of the module but commands
// to its import path (a name two packages share maps to neither).
func (a *API) moduleNames() map[string]string {
	if a.modNames != nil {
		return a.modNames
	}
	a.modNames = map[string]string{}
	seen := map[string]int{}
	for path, p := range a.module() {
		if p.Name == "main" {
			continue
		}
		seen[p.Name]++
		a.modNames[p.Name] = path
	}
	for n, c := range seen {
		if c > 1 {
			delete(a.modNames, n)
		}
	}
	return a.modNames
}
