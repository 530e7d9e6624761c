package selfcheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/coursekit/course/grader/lab"
)

// An exercise's tests may call only its own and the earlier exercises'
// functions: a student who works in order must be able to pass exercise N
// before writing N+1. The self-check proves it with one prefix candidate
// per exercise that has a later one: the reference solution with every
// later exercise's exported functions and methods replaced by the stub's,
// graded on exercise N alone, must pass every public and hidden test of N.
//
// Which exercise a function belongs to is read from the stub, whose
// sections start with a marker line, "// ---- N.M ----" (a word such as
// "(optional)" may follow the id). A function of the stub before any
// marker, a marker that names no exercise of the lab, or an exported
// function of the solution that the stub has in no section is an error:
// the proof fails closed instead of leaving a function unaccounted for.

// sectionMarker matches a stub's section line and captures its exercise id.
var sectionMarker = regexp.MustCompile(`^// -{4} (\d+\.\d+)\b[^\n]*-{4}$`)

// SectionError reports a stub or solution whose functions cannot all be
// told an exercise.
type SectionError struct {
	File string
	Err  error
}

func (e *SectionError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *SectionError) Unwrap() error { return e.Err }

// funcKey names a function declaration: "Name" for a function,
// "Type.Name" for a method (the receiver's type without its star).
func funcKey(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return "?." + fn.Name.Name
}

// exported reports whether fn is part of the package's API: an exported
// function, or an exported method of an exported type.
func exported(fn *ast.FuncDecl) bool {
	if !fn.Name.IsExported() {
		return false
	}
	typ, _, isMethod := strings.Cut(funcKey(fn), ".")
	return !isMethod || ast.IsExported(typ)
}

// Sections maps every exported function and method of the stub of l
// (funcKey: "Recover", "SessionLog.Append") to the exercise whose section
// of the stub declares it.
func Sections(l *lab.Lab, stub []byte) (map[string]string, error) {
	name := path.Join("labs", l.Slug, l.Editable[0])
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, stub, parser.ParseComments)
	if err != nil {
		return nil, &SectionError{File: name, Err: err}
	}
	type marker struct {
		pos token.Pos
		ex  string
	}
	var markers []marker
	for _, g := range f.Comments {
		for _, c := range g.List {
			m := sectionMarker.FindStringSubmatch(c.Text)
			if m == nil {
				continue
			}
			if _, err := l.Exercise(m[1]); err != nil {
				return nil, &SectionError{File: name, Err: fmt.Errorf("line %d: section %s is not an exercise of chapter %s",
					fset.Position(c.Pos()).Line, m[1], l.Chapter)}
			}
			markers = append(markers, marker{c.Pos(), m[1]})
		}
	}
	out := map[string]string{}
	have := map[string]bool{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || !exported(fn) {
			continue
		}
		ex := ""
		for _, m := range markers {
			if m.pos < fn.Pos() {
				ex = m.ex
			}
		}
		if ex == "" {
			return nil, &SectionError{File: name, Err: fmt.Errorf("line %d: %s comes before any \"// ---- N.M ----\" section, so it belongs to no exercise",
				fset.Position(fn.Pos()).Line, funcKey(fn))}
		}
		out[funcKey(fn)] = ex
		have[ex] = true
	}
	for _, e := range l.Exercises {
		if !have[e.ID] {
			return nil, &SectionError{File: name, Err: fmt.Errorf("exercise %s has no section with an exported function or method", e.ID)}
		}
	}
	return out, nil
}

// Prefix returns the reference solution of l as a student who has done
// exercises up to and including upTo has it: every exported function and
// method of a later exercise is the stub's, signature and body, and
// everything else is the solution's. Unexported helpers of the stub that
// the stub's bodies use (notImplemented) come along; imports follow what
// the result uses.
func Prefix(l *lab.Lab, solution, stub []byte, upTo string) ([]byte, error) {
	sections, err := Sections(l, stub)
	if err != nil {
		return nil, err
	}
	order := map[string]int{}
	for i, e := range l.Exercises {
		order[e.ID] = i
	}
	limit, ok := order[upTo]
	if !ok {
		return nil, fmt.Errorf("chapter %s has no exercise %q", l.Chapter, upTo)
	}
	solName := path.Join("solutions", l.Slug, l.Editable[0])
	fset := token.NewFileSet()
	sol, err := parser.ParseFile(fset, solName, solution, 0)
	if err != nil {
		return nil, &SectionError{File: solName, Err: err}
	}
	sfset := token.NewFileSet()
	st, err := parser.ParseFile(sfset, "stub.go", stub, 0)
	if err != nil {
		return nil, err
	}
	stubFuncs := map[string]*ast.FuncDecl{}
	for _, d := range st.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			stubFuncs[funcKey(fn)] = fn
		}
	}
	solFuncs := map[string]bool{}
	var body bytes.Buffer
	for _, d := range sol.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			continue
		}
		src, srcFset := d, fset
		if fn, ok := d.(*ast.FuncDecl); ok {
			key := funcKey(fn)
			solFuncs[key] = true
			if exported(fn) {
				ex, ok := sections[key]
				if !ok {
					return nil, &SectionError{File: solName, Err: fmt.Errorf("%s is exported but the stub declares it in no section, so it belongs to no exercise", key)}
				}
				if order[ex] > limit {
					src, srcFset = stubFuncs[key], sfset
				}
			}
		}
		if err := printer.Fprint(&body, srcFset, src); err != nil {
			return nil, err
		}
		body.WriteString("\n\n")
	}
	// The stub's own helpers (notImplemented), unless the solution has one
	// of the same name: then they would clash.
	for _, d := range st.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || exported(fn) {
			continue
		}
		if solFuncs[funcKey(fn)] {
			return nil, &SectionError{File: solName, Err: fmt.Errorf("%s is declared by both the stub and the solution", funcKey(fn))}
		}
		if err := printer.Fprint(&body, sfset, fn); err != nil {
			return nil, err
		}
		body.WriteString("\n\n")
	}
	imports, err := usedImports(body.Bytes(), append(importsOf(sol), importsOf(st)...))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "// The reference solution up to exercise %s; every later exercise is the stub's.\n\npackage %s\n\n", upTo, sol.Name.Name)
	if len(imports) > 0 {
		out.WriteString("import (\n")
		for _, p := range imports {
			fmt.Fprintf(&out, "\t%s\n", p)
		}
		out.WriteString(")\n\n")
	}
	out.Write(body.Bytes())
	formatted, err := format.Source(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("the solution up to %s does not format: %w", upTo, err)
	}
	return formatted, nil
}

// anImport is one import spec: the name the file refers to it by, and the
// spec as written.
type anImport struct{ name, spec string }

func importsOf(f *ast.File) []anImport {
	var out []anImport
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name, spec := path.Base(p), imp.Path.Value
		if imp.Name != nil {
			name, spec = imp.Name.Name, imp.Name.Name+" "+imp.Path.Value
		}
		out = append(out, anImport{name, spec})
	}
	return out
}

// usedImports returns the specs of imports whose names decls (Go source of
// top-level declarations) refer to as pkg.Name, each once, sorted.
func usedImports(decls []byte, candidates []anImport) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "decls.go", append([]byte("package p\n\n"), decls...), 0)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	seen := map[string]bool{}
	var out []string
	for _, c := range candidates {
		if used[c.name] && !seen[c.spec] {
			seen[c.spec] = true
			out = append(out, c.spec)
		}
	}
	sort.Strings(out)
	return out, nil
}

// prefixCandidates returns one candidate per exercise that has a later
// one: the solution up to it, which must pass every test of it.
func prefixCandidates(l *lab.Lab, solution, stub []byte) ([]Candidate, error) {
	var out []Candidate
	for _, e := range l.Exercises[:len(l.Exercises)-1] {
		src, err := Prefix(l, solution, stub, e.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, Candidate{Kind: KindPrefix, Name: "up to " + e.ID, Exercise: e.ID, Source: src})
	}
	return out, nil
}
