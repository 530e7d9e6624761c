package grader

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/labs"
	"github.com/stretchr/testify/require"
)

// Fixture submissions are made from the course's own files, never kept as
// hand-edited copies: the stub, the reference solution, the solution with
// all but one exercise stubbed out, and the solution with an attack added.

// exerciseOf maps each exported function or method of lab 10 to its exercise.
var exerciseOf = map[string]string{
	"PathTo":                       "10.1",
	"ParseSessionEntry":            "10.2",
	"NewInMemorySessionStore":      "10.3",
	"InMemorySessionStore.Append":  "10.3",
	"InMemorySessionStore.Entries": "10.3",
	"RecoverJSONL":                 "10.4",
	"OpenJSONLSessionStore":        "10.5",
	"JSONLSessionStore.Append":     "10.5",
	"JSONLSessionStore.Entries":    "10.5",
	"MessagesOnPath":               "10.6",
	"RepairUnterminatedTail":       "10.7",
}

func declKey(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	return t.(*ast.Ident).Name + "." + fn.Name.Name
}

func testLab(t testing.TB) *lab.Lab {
	t.Helper()
	cat, err := lab.Load()
	require.NoError(t, err)
	l, err := cat.Lookup("10")
	require.NoError(t, err)
	return l
}

func stubSource(t testing.TB) []byte {
	t.Helper()
	src, err := fs.ReadFile(labs.FS, "10-session/session.go")
	require.NoError(t, err)
	return src
}

func solutionSource(t testing.TB) []byte {
	t.Helper()
	// In a student release, which has no solution, this skips t.
	return releasetest.Solution(t, testLab(t))
}

// onlyExercise returns the reference solution with every exported function
// and method outside the exercises ids replaced by the stub's body. The solution's
// code stays in place under impl names, so exercise id still has everything
// it needs (10.3 validates with the real parser) while the others fail.
func onlyExercise(t testing.TB, ids ...string) []byte {
	t.Helper()
	fset := token.NewFileSet()
	sol, err := parser.ParseFile(fset, "solution.go", solutionSource(t), parser.ParseComments)
	require.NoError(t, err)
	stub, err := parser.ParseFile(fset, "stub.go", stubSource(t), 0)
	require.NoError(t, err)

	impl := func(name string) string { return "impl" + name }
	exported := map[string]bool{}
	for _, d := range sol.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.IsExported() {
			if _, known := exerciseOf[declKey(fn)]; known {
				if fn.Recv == nil {
					exported[fn.Name.Name] = true
				}
				fn.Name.Name = impl(fn.Name.Name)
			}
		}
	}
	// Calls between the solution's functions go to the impl versions.
	ast.Inspect(sol, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && exported[id.Name] {
			id.Name = impl(id.Name)
		}
		return true
	})
	var buf bytes.Buffer
	require.NoError(t, printer.Fprint(&buf, fset, sol))
	for _, d := range stub.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		key := declKey(fn)
		ex, known := exerciseOf[key]
		if fn.Name.Name == "notImplemented" {
			known, ex = true, ""
		}
		if !known {
			continue
		}
		if slices.Contains(ids, ex) {
			var args []string
			for _, f := range fn.Type.Params.List {
				for _, n := range f.Names {
					args = append(args, n.Name)
				}
			}
			call := impl(fn.Name.Name) + "(" + strings.Join(args, ", ") + ")"
			if fn.Recv != nil {
				call = fn.Recv.List[0].Names[0].Name + "." + call
			}
			fn.Body = &ast.BlockStmt{List: []ast.Stmt{&ast.ReturnStmt{Results: []ast.Expr{ast.NewIdent(call)}}}}
		}
		buf.WriteString("\n\n")
		require.NoError(t, printer.Fprint(&buf, fset, fn))
	}
	out, err := format.Source(buf.Bytes())
	require.NoError(t, err, "generated fixture for %s:\n%s", ids, buf.String())
	return out
}

// withInit returns src with extra imports and a func init added: the way
// the attack fixtures run code before any test. Imports src already has are
// not added twice.
func withInit(t testing.TB, src []byte, imports []string, body string) []byte {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "src.go", src, parser.ImportsOnly)
	require.NoError(t, err)
	have := map[string]bool{}
	for _, imp := range f.Imports {
		have[strings.Trim(imp.Path.Value, `"`)] = true
	}
	s := string(src)
	clause := "\npackage " + f.Name.Name + "\n"
	at := strings.Index(s, clause)
	require.GreaterOrEqual(t, at, 0, "source has no package clause")
	var extra strings.Builder
	for _, p := range imports {
		if !have[p] {
			fmt.Fprintf(&extra, "import %q\n", p)
		}
	}
	at += len(clause)
	s = s[:at] + extra.String() + s[at:] + "\nfunc init() {\n" + body + "\n}\n"
	out, err := format.Source([]byte(s))
	require.NoError(t, err, "fixture:\n%s", s)
	return out
}

// prefixBody returns src with code put at the start of the body of the
// function declared by signature.
func prefixBody(t testing.TB, src []byte, signature, code string) []byte {
	t.Helper()
	s := string(src)
	require.Contains(t, s, signature)
	return []byte(strings.Replace(s, signature, signature+"\n"+code+"\n", 1))
}
