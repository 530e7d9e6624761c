// Package staticcheck is the grader's static wall: it parses a student
// file, type-checks it with go/types against the lab's given files, and
// checks the rules that keep student code away from the test's memory and
// from the build.
//
// It imports only the standard library, so that the grader can build it,
// from the source it embeds, into a helper program of its own (see
// [Source]): type-checking a hostile file can take minutes and gigabytes
// (a deep chain of embedded structs, say), and only a process can be given a
// deadline and a memory limit and be killed when it passes them.
//
// Whatever it cannot fully parse and type-check is rejected: a checker that
// gives up must never let a file through.
package staticcheck

import (
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Request is one file to check, with everything the check needs.
type Request struct {
	File      string            // the student file's name, "session.go"
	Package   string            // the package it must be in
	GoVersion string            // the lab's language version, "go1.22", or ""
	Src       string            // the student file
	Given     map[string]string // the lab's given files, by name
	Exports   map[string]string // import path -> export data file
	Allowed   []string          // what the student file may import
	Max       int               // the most violations to list; 0 means 20
	// Sequential refuses goroutines: go statements, sync, sync/atomic and context,
	// and the callbacks run on goroutines of their own (lab.Manifest).
	Sequential bool
}

// Violation is one reason a student file may not be built.
type Violation struct {
	Line    int    `json:"line,omitempty"`
	Problem string `json:"problem"`
	Hint    string `json:"hint,omitempty"` // what would be allowed instead, when the problem has one
	// Compile: the file is not Go the compiler would build (a syntax or
	// type error), rather than Go a rule forbids.
	Compile bool `json:"compile,omitempty"`
}

// Result is the verdict on a file: Violations when it may not be built,
// Trouble when the checker itself could not work (a given file that does
// not parse, say), neither when the file may be built.
type Result struct {
	Violations []Violation `json:"violations,omitempty"`
	Trouble    string      `json:"trouble,omitempty"`
}

type checker struct {
	req *Request
}

// Check checks req.Src. It never panics: a crash of the checker is a
// violation, since a file that was not checked is not built.
func Check(req *Request) (res Result) {
	c := &checker{req: req}
	defer func() {
		if r := recover(); r != nil {
			res = Result{Violations: []Violation{{Problem: fmt.Sprintf("the grader's checker failed on this file (%v); it cannot be graded as it is", r)}}}
		}
	}()
	max := req.Max
	if max <= 0 {
		max = 20
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, req.File, req.Src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return c.reject(parseViolations(err), max)
	}
	if vs := append(c.syntaxRules(fset, f), c.sequentialSyntax(fset, f)...); len(vs) > 0 {
		return c.reject(vs, max)
	}
	files := []*ast.File{f}
	names := make([]string, 0, len(req.Given))
	for name := range req.Given {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		gf, err := parser.ParseFile(fset, name, req.Given[name], parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return Result{Trouble: "given file " + err.Error()}
		}
		files = append(files, gf)
	}
	if vs := c.predeclaredRules(fset, f, files[1:]); len(vs) > 0 {
		return c.reject(vs, max)
	}
	var typeErrs []Violation
	givenErrs := 0
	conf := types.Config{
		GoVersion: req.GoVersion,
		Importer: importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
			file, ok := req.Exports[path]
			if !ok {
				return nil, fmt.Errorf("%s is not a package the lab may use", path)
			}
			return os.Open(file)
		}),
		Sizes: types.SizesFor("gc", runtime.GOARCH),
		Error: func(err error) {
			var te types.Error
			if !errors.As(err, &te) || len(typeErrs) >= max || strings.HasPrefix(te.Msg, "\t") {
				return // a continuation ("\tother declaration of x") adds nothing
			}
			pos := te.Fset.Position(te.Pos)
			if pos.Filename != req.File {
				// An error in a given file: the student file broke it (by
				// declaring one of its names again, say). The first says why.
				if givenErrs++; givenErrs == 1 {
					typeErrs = append(typeErrs, Violation{Problem: "does not type-check with the given files (" + err.Error() + ")", Compile: true})
				}
				return
			}
			typeErrs = append(typeErrs, Violation{Line: pos.Line, Problem: "does not type-check: " + te.Msg, Compile: true})
		},
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances:  map[*ast.Ident]types.Instance{},
	}
	pkg, terr := conf.Check(req.Package, fset, files, info)
	if len(typeErrs) > 0 {
		return c.reject(typeErrs, max)
	}
	if terr != nil {
		// An error the Error hook did not see (an importer failure): the
		// file was not fully checked.
		return c.reject([]Violation{{Problem: "could not be type-checked: " + terr.Error()}}, max)
	}
	vs := append(c.typeRules(fset, f, pkg, info), c.sequentialTypes(fset, info)...)
	return c.reject(append(vs, c.sizeRules(fset, files, pkg, info)...), max)
}

// reject sorts vs by line, drops repeats and keeps the first max.
func (c *checker) reject(vs []Violation, max int) Result {
	if len(vs) == 0 {
		return Result{}
	}
	for i := range vs {
		vs[i].Problem, vs[i].Hint = shorten(vs[i].Problem), shorten(vs[i].Hint)
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Line < vs[j].Line })
	vs = slices.CompactFunc(vs, func(a, b Violation) bool { return a == b })
	if len(vs) > max {
		vs = vs[:max]
	}
	return Result{Violations: vs}
}

// maxProblem bounds the text of one violation: a type checker's message
// repeats the types it names, which a file of a few hundred bytes can make
// megabytes long.
const maxProblem = 1000

// shorten cuts s to maxProblem bytes, at a rune's start, marked with "…".
func shorten(s string) string {
	if len(s) <= maxProblem {
		return s
	}
	cut := maxProblem
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// parseViolations turns go/parser's errors into violations. The compiler
// may accept what go/parser does not (it nests deeper, for one): such a
// file is rejected all the same, because the rules could not be checked.
func parseViolations(err error) []Violation {
	var list scanner.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return []Violation{{Problem: "the grader cannot parse this file: " + err.Error()}}
	}
	// go/parser's own limit (deep nesting) is not Go's: the compiler may
	// build such a file, which is then refused for the rules, not the build.
	compile := !slices.ContainsFunc(list, func(e *scanner.Error) bool { return strings.Contains(e.Msg, "max nesting depth") })
	var vs []Violation
	for _, e := range list {
		problem := "syntax error: " + e.Msg // as the compiler says it
		if !compile {
			problem = "the grader cannot parse this file (" + e.Msg + "); a file it cannot fully check is not graded"
		}
		vs = append(vs, Violation{Line: e.Pos.Line, Problem: problem, Compile: compile})
	}
	return vs
}
