package grader

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// AllowedImports is the standard library a student file may import: pure
// computation, encoding and synchronisation. Everything else is denied by
// default, above all what can end the process (os, log), read or write files
// (os, path/filepath, io/ioutil), reach the network (net), escape the type
// system (unsafe, reflect with unsafe), touch the test harness (testing,
// flag, runtime) or change the build (C, embed, plugin).
var AllowedImports = []string{
	"bufio", "bytes", "cmp", "container/heap", "container/list", "container/ring",
	"context", "encoding", "encoding/base64", "encoding/hex", "encoding/json",
	"errors", "fmt", "hash", "hash/crc32", "hash/fnv", "io", "io/fs",
	"maps", "math", "math/big", "math/bits", "path", "reflect", "slices",
	"sort", "strconv", "strings", "sync", "sync/atomic", "time",
	"unicode", "unicode/utf16", "unicode/utf8",
}

// Violation is one reason a student file may not be built.
type Violation struct {
	Line    int
	Problem string
}

// PolicyError lists every violation of a student file, so a student can fix
// them all at once.
type PolicyError struct {
	File       string
	Violations []Violation
}

func (e *PolicyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s breaks the grading rules:", e.File)
	for _, v := range e.Violations {
		fmt.Fprintf(&b, "\n  %s:%d: %s", e.File, v.Line, v.Problem)
	}
	return b.String()
}

// CheckPolicy checks a student file before anything is built or run: it
// must be in package pkg, import only AllowedImports, and carry no //go:
// directives (go:linkname, go:embed, ...), no build constraints and no cgo.
// A file that does not parse is left to the compiler, whose message is
// clearer, and returns nil.
func CheckPolicy(name string, src []byte, pkg string) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	allowed := make(map[string]bool, len(AllowedImports))
	for _, p := range AllowedImports {
		allowed[p] = true
	}
	var vs []Violation
	add := func(pos token.Pos, format string, args ...any) {
		vs = append(vs, Violation{Line: fset.Position(pos).Line, Problem: fmt.Sprintf(format, args...)})
	}
	if f.Name.Name != pkg {
		add(f.Name.Pos(), "package %s: the file must be in package %s", f.Name.Name, pkg)
	}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		if !allowed[p] {
			add(imp.Pos(), "import %q is not allowed; a lab file may import only: %s", p, strings.Join(AllowedImports, ", "))
		}
	}
	for _, group := range f.Comments {
		for _, c := range group.List {
			text := c.Text
			switch {
			case strings.HasPrefix(text, "//go:"):
				add(c.Pos(), "directive %s is not allowed", strings.Fields(text)[0])
			case strings.HasPrefix(text, "//line ") || strings.HasPrefix(text, "/*line "):
				add(c.Pos(), "//line directives are not allowed")
			case strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(text, "//")), "+build"):
				add(c.Pos(), "build constraints are not allowed")
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if fn, ok := n.(*ast.FuncDecl); ok && fn.Recv == nil && (fn.Name.Name == "TestMain" || strings.HasPrefix(fn.Name.Name, "TestLab")) {
			add(fn.Pos(), "func %s: test functions belong to the course, not to the student file", fn.Name.Name)
		}
		return true
	})
	if len(vs) == 0 {
		return nil
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Line < vs[j].Line })
	return &PolicyError{File: name, Violations: vs}
}

// CheckTestReferences checks that the student file name in the grading
// directory dir uses nothing that only the directory's test files declare.
// go test compiles a package's files and its in-package tests as one
// package, so a student file could call a test's helpers or look inside its
// fakes; go build refuses such a file ("undefined"), and so does the grader.
func CheckTestReferences(dir, name string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	declared := map[string]bool{} // by a non-test file other than name
	testOnly := map[string]bool{}
	var student *ast.File
	fset := token.NewFileSet()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		if e.Name() == name {
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return err
			}
			// With object resolution: f.Unresolved is every identifier the
			// file uses but does not declare itself.
			if student, err = parser.ParseFile(fset, name, src, 0); err != nil {
				return nil // the compiler explains syntax errors better
			}
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			continue // the build reports it
		}
		into := declared
		if strings.HasSuffix(e.Name(), "_test.go") {
			into = testOnly
		}
		for _, n := range topLevelNames(f) {
			into[n] = true
		}
	}
	if student == nil {
		return nil
	}
	var vs []Violation
	for _, id := range student.Unresolved {
		if testOnly[id.Name] && !declared[id.Name] {
			vs = append(vs, Violation{Line: fset.Position(id.Pos()).Line,
				Problem: fmt.Sprintf("%s is declared only in the course's tests; the file must build without them", id.Name)})
		}
	}
	if len(vs) == 0 {
		return nil
	}
	return &PolicyError{File: name, Violations: vs}
}

// topLevelNames returns the package-level names a file declares (not methods).
func topLevelNames(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				}
			}
		}
	}
	return names
}
