package grader

import (
	"bytes"
	"encoding/json"
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
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// AllowedImports is the standard library a student file may import: pure
// computation, encoding and synchronisation. Everything else is denied by
// default, above all what can end the process (os, log), read or write files
// (os, path/filepath, io/ioutil), reach the network (net), escape the type
// system (unsafe, and reflect, whose Value.Pointer and NewAt read and write
// any memory), touch the test harness (testing, flag, runtime) or change the
// build (C, embed, plugin).
var AllowedImports = []string{
	"bufio", "bytes", "cmp", "container/heap", "container/list", "container/ring",
	"context", "encoding", "encoding/base64", "encoding/hex", "encoding/json",
	"errors", "fmt", "hash", "hash/crc32", "hash/fnv", "io", "io/fs",
	"maps", "math", "math/big", "math/bits", "path", "slices",
	"sort", "strconv", "strings", "sync", "sync/atomic", "time",
	"unicode", "unicode/utf16", "unicode/utf8",
}

// Violation is one reason a student file may not be built.
type Violation struct {
	Line    int
	Problem string
}

// In says v of file: "session.go:12: problem", or without the line when
// the problem is the file's as a whole.
func (v Violation) In(file string) string {
	if v.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, v.Line, v.Problem)
	}
	return file + ": " + v.Problem
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
		b.WriteString("\n  " + v.In(e.File))
	}
	return b.String()
}

// maxViolations bounds how many problems one rejection lists.
const maxViolations = 20

// Checker is the grader's static wall. It parses a student file and
// type-checks it with go/types against the lab's given files, then checks
// the rules that keep student code away from the test's memory and from the
// build. Whatever it cannot fully parse and type-check is rejected: a
// checker that gives up must never let a file through.
//
// A Checker is safe for concurrent use; checks run one at a time.
type Checker struct {
	editable  string            // the student file's name
	pkg       string            // its package name
	goVersion string            // "go1.22": the language version of the lab
	given     map[string][]byte // the given files, by name
	exports   map[string]string // import path -> export data file

	mu  sync.Mutex
	imp types.Importer // shared: it caches the packages it has read
}

// NewChecker prepares a Checker for the lab's file editable (package pkg,
// Go language version goVersion such as "1.22") compiled with the given
// files. goBin is the go command, asked once (`go list -export`) where the
// export data of the standard packages is; env is its environment.
func NewChecker(editable, pkg, goVersion string, given map[string][]byte, goBin string, env []string) (*Checker, error) {
	c := &Checker{editable: editable, pkg: pkg, given: given}
	if goVersion != "" {
		c.goVersion = "go" + goVersion
	}
	// Everything the student may import, and everything the given files do.
	want := map[string]bool{}
	for _, p := range AllowedImports {
		want[p] = true
	}
	fset := token.NewFileSet()
	for name, src := range given {
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			return nil, fmt.Errorf("checker: given file %w", err)
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return nil, fmt.Errorf("checker: given file %s: %w", name, err)
			}
			want[p] = true
		}
	}
	var err error
	if c.exports, err = exportData(goBin, env, want); err != nil {
		return nil, err
	}
	c.imp = importer.ForCompiler(token.NewFileSet(), "gc", c.lookup)
	return c, nil
}

// exportData asks the go command for the export data files of pkgs and all
// their dependencies (compiling them into the build cache if needed).
func exportData(goBin string, env []string, pkgs map[string]bool) (map[string]string, error) {
	args := []string{"list", "-export", "-deps", "-json=ImportPath,Export"}
	for p := range pkgs {
		args = append(args, p)
	}
	sort.Strings(args[4:])
	dir, err := os.MkdirTemp("", "course-checker-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir // outside any module: the standard library only
	cmd.Env = append(slices.Clone(env), "GOFLAGS=", "GO111MODULE=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: go list -export of the standard library: %v: %s", ErrSetup, err, lastLine(stderr.String()))
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%w: go list -export: %v", ErrSetup, err)
		}
		if p.Export != "" {
			exports[p.ImportPath] = p.Export
		}
	}
	for p := range pkgs {
		if exports[p] == "" && p != "unsafe" {
			return nil, fmt.Errorf("%w: go list -export gave no export data for %s", ErrSetup, p)
		}
	}
	return exports, nil
}

func (c *Checker) lookup(path string) (io.ReadCloser, error) {
	f, ok := c.exports[path]
	if !ok {
		return nil, fmt.Errorf("%s is not a package the lab may use", path)
	}
	return os.Open(f)
}

// Check checks the student file src. It returns nil when the file may be
// built, a *PolicyError listing what is wrong when it may not, and any
// other error only for the checker's own trouble (a missing export data
// file, say), which grades nothing.
func (c *Checker) Check(src []byte) (err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer func() {
		// A checker that crashes has not checked: reject, never let through.
		if r := recover(); r != nil {
			err = c.reject(0, fmt.Sprintf("the grader's checker failed on this file (%v); it cannot be graded as it is", r))
		}
	}()
	fset := token.NewFileSet()
	f, perr := parser.ParseFile(fset, c.editable, src, parser.ParseComments|parser.SkipObjectResolution)
	if perr != nil {
		return c.parseRejection(perr)
	}
	if vs := c.syntaxRules(fset, f); len(vs) > 0 {
		return c.rejectAll(vs)
	}
	files := []*ast.File{f}
	names := make([]string, 0, len(c.given))
	for name := range c.given {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		gf, err := parser.ParseFile(fset, name, c.given[name], parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("checker: given file %w", err)
		}
		files = append(files, gf)
	}
	var typeErrs []Violation
	givenErrs := 0
	conf := types.Config{
		GoVersion: c.goVersion,
		Importer:  c.imp,
		Sizes:     types.SizesFor("gc", runtime.GOARCH),
		Error: func(err error) {
			var te types.Error
			if !errors.As(err, &te) || len(typeErrs) >= maxViolations || strings.HasPrefix(te.Msg, "\t") {
				return // a continuation ("\tother declaration of x") adds nothing
			}
			pos := te.Fset.Position(te.Pos)
			if pos.Filename != c.editable {
				// An error in a given file: the student file broke it (by
				// declaring one of its names again, say). The first says why.
				if givenErrs++; givenErrs == 1 {
					typeErrs = append(typeErrs, Violation{Problem: "does not type-check with the given files (" + err.Error() + ")"})
				}
				return
			}
			typeErrs = append(typeErrs, Violation{Line: pos.Line, Problem: "does not type-check: " + te.Msg})
		},
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	pkg, terr := conf.Check(c.pkg, fset, files, info)
	if len(typeErrs) > 0 {
		return c.rejectAll(typeErrs)
	}
	if terr != nil {
		// An error the Error hook did not see (an importer failure): the
		// file was not fully checked.
		return c.reject(0, "could not be type-checked: "+terr.Error())
	}
	if vs := c.typeRules(fset, f, pkg, info); len(vs) > 0 {
		return c.rejectAll(vs)
	}
	return nil
}

func (c *Checker) reject(line int, problem string) *PolicyError {
	return &PolicyError{File: c.editable, Violations: []Violation{{Line: line, Problem: problem}}}
}

func (c *Checker) rejectAll(vs []Violation) *PolicyError {
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Line < vs[j].Line })
	vs = slices.CompactFunc(vs, func(a, b Violation) bool { return a == b })
	if len(vs) > maxViolations {
		vs = vs[:maxViolations]
	}
	return &PolicyError{File: c.editable, Violations: vs}
}

// parseRejection turns go/parser's errors into violations. The compiler may
// accept what go/parser does not (it nests deeper, for one): such a file is
// rejected all the same, because the rules below could not be checked.
func (c *Checker) parseRejection(err error) *PolicyError {
	var list scanner.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return c.reject(0, "the grader cannot parse this file: "+err.Error())
	}
	var vs []Violation
	for _, e := range list {
		vs = append(vs, Violation{Line: e.Pos.Line, Problem: "the grader cannot parse this file (" + e.Msg + "); a file it cannot fully check is not graded"})
	}
	return c.rejectAll(vs)
}

// syntaxRules are the rules that need only the syntax tree: the package
// clause, the imports and the directives.
func (c *Checker) syntaxRules(fset *token.FileSet, f *ast.File) []Violation {
	allowed := make(map[string]bool, len(AllowedImports))
	for _, p := range AllowedImports {
		allowed[p] = true
	}
	var vs []Violation
	add := func(pos token.Pos, format string, args ...any) {
		vs = append(vs, Violation{Line: fset.Position(pos).Line, Problem: fmt.Sprintf(format, args...)})
	}
	if f.Name.Name != c.pkg {
		add(f.Name.Pos(), "package %s: the file must be in package %s", f.Name.Name, c.pkg)
	}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			add(imp.Pos(), "import %s cannot be read", imp.Path.Value)
			continue
		}
		if !allowed[p] {
			add(imp.Pos(), "import %q is not allowed; a lab file may import only: %s", p, strings.Join(AllowedImports, ", "))
		}
	}
	for _, group := range f.Comments {
		for _, cm := range group.List {
			text := cm.Text
			body := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(text, "//"), "/*"))
			switch {
			case strings.HasPrefix(text, "//go:") || strings.HasPrefix(text, "/*go:"):
				add(cm.Pos(), "directive %s is not allowed", strings.Fields(text)[0])
			case strings.HasPrefix(text, "//line") || strings.HasPrefix(text, "/*line"):
				add(cm.Pos(), "//line directives are not allowed")
			case strings.HasPrefix(body, "+build"):
				add(cm.Pos(), "build constraints are not allowed")
			case strings.HasPrefix(text, "//export ") || strings.HasPrefix(body, "#cgo"):
				add(cm.Pos(), "cgo directives are not allowed")
			}
		}
	}
	return vs
}

// typeRules are the rules that need types: no methods on the given types
// (an Is or As method there would change what the tests' errors.Is and
// errors.As see), no writes to the given files' variables, and no value of
// type unsafe.Pointer (sync/atomic hands some out without importing unsafe).
func (c *Checker) typeRules(fset *token.FileSet, f *ast.File, pkg *types.Package, info *types.Info) []Violation {
	var vs []Violation
	add := func(pos token.Pos, format string, args ...any) {
		vs = append(vs, Violation{Line: fset.Position(pos).Line, Problem: fmt.Sprintf(format, args...)})
	}
	inStudentFile := func(obj types.Object) bool {
		return obj != nil && fset.Position(obj.Pos()).Filename == c.editable
	}

	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || len(fn.Recv.List) == 0 {
			continue
		}
		tv, ok := info.Types[fn.Recv.List[0].Type]
		if !ok {
			add(fn.Pos(), "method %s: its receiver could not be checked", fn.Name.Name)
			continue
		}
		t := tv.Type
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		named, ok := types.Unalias(t).(*types.Named)
		if !ok || !inStudentFile(named.Obj()) {
			add(fn.Pos(), "method %s on %s: methods may be declared only on types that %s declares, not on the given files' types", fn.Name.Name, types.TypeString(t, types.RelativeTo(pkg)), c.editable)
		}
	}

	// The given files' package-level variables: readable, never written.
	given := map[types.Object]bool{}
	for _, name := range pkg.Scope().Names() {
		if v, ok := pkg.Scope().Lookup(name).(*types.Var); ok && !inStudentFile(v) {
			given[v] = true
		}
	}
	givenRoot := func(e ast.Expr) (*ast.Ident, bool) {
		id := rootIdent(e, info)
		if id == nil {
			return nil, false
		}
		return id, given[info.Uses[id]]
	}
	written := map[*ast.Ident]bool{}
	writes := func(e ast.Expr, what string) {
		if id, ok := givenRoot(e); ok && !written[id] {
			written[id] = true
			add(id.Pos(), "%s %s, a variable of the given files: they may be read, never changed", what, id.Name)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, l := range n.Lhs {
					writes(l, "assigns to")
				}
			}
		case *ast.IncDecStmt:
			writes(n.X, "changes")
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				for _, l := range []ast.Expr{n.Key, n.Value} {
					if l != nil {
						writes(l, "assigns to")
					}
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				writes(n.X, "takes the address of")
			}
		case *ast.SelectorExpr:
			// x.M() with a pointer receiver takes x's address implicitly.
			if sel, ok := info.Selections[n]; ok && sel.Kind() == types.MethodVal {
				if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
					if _, ptrRecv := sig.Recv().Type().(*types.Pointer); ptrRecv && !isPointer(info.Types[n.X].Type) {
						writes(n.X, "takes the address of")
					}
				}
			}
		case *ast.Ident:
			// A variable whose value shares memory (a map, a slice, a
			// pointer, a struct holding them) would hand out the course's
			// state with its value: such a variable may not be used at all.
			if obj := info.Uses[n]; given[obj] && !written[n] && !sharesNothing(obj.Type()) {
				written[n] = true
				add(n.Pos(), "uses %s, a variable of the given files of type %s, which shares memory with them", n.Name, types.TypeString(obj.Type(), types.RelativeTo(pkg)))
			}
		}
		return true
	})

	// Of the expressions holding an unsafe.Pointer, the outermost one of
	// each line is named (info.Types is a map: no order of its own).
	byLine := map[int]ast.Expr{}
	for e, tv := range info.Types {
		if tv.Type == nil || !containsUnsafePointer(tv.Type, pkg, map[types.Type]bool{}) {
			continue
		}
		pos := fset.Position(e.Pos())
		if pos.Filename != c.editable {
			continue
		}
		if old, ok := byLine[pos.Line]; !ok || e.Pos() < old.Pos() || (e.Pos() == old.Pos() && e.End() > old.End()) {
			byLine[pos.Line] = e
		}
	}
	for _, e := range byLine {
		add(e.Pos(), "a value of type unsafe.Pointer (%s) is not allowed", types.ExprString(e))
	}
	return vs
}

// rootIdent returns the variable an lvalue-like expression writes through:
// v for v, v.field, v[i], *v, (v), v[i:j]; nil when there is none (a call,
// a method value, a qualified name of another package).
func rootIdent(e ast.Expr, info *types.Info) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.SelectorExpr:
			sel, ok := info.Selections[x]
			if !ok || sel.Kind() != types.FieldVal {
				return nil
			}
			e = x.X
		default:
			return nil
		}
	}
}

func isPointer(t types.Type) bool {
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Pointer)
	return ok
}

// sharesNothing reports whether a copy of a value of type t is independent
// of the original: basic types, and interfaces and funcs, whose dynamic
// values student code cannot reach into without reflect or unsafe.
func sharesNothing(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Basic, *types.Interface, *types.Signature:
		return true
	}
	return false
}

// containsUnsafePointer reports whether t is or holds, where code in pkg
// can reach it, an unsafe.Pointer. Unexported fields and methods of other
// packages' types do not count: sync.Pool keeps one, and reflect.Type's
// unexported methods lead to some, but no student code can touch them.
func containsUnsafePointer(t types.Type, pkg *types.Package, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Basic:
		return t.Kind() == types.UnsafePointer
	case *types.Alias:
		return containsUnsafePointer(types.Unalias(t), pkg, seen)
	case *types.Named:
		return containsUnsafePointer(t.Underlying(), pkg, seen)
	case *types.Pointer:
		return containsUnsafePointer(t.Elem(), pkg, seen)
	case *types.Slice:
		return containsUnsafePointer(t.Elem(), pkg, seen)
	case *types.Array:
		return containsUnsafePointer(t.Elem(), pkg, seen)
	case *types.Chan:
		return containsUnsafePointer(t.Elem(), pkg, seen)
	case *types.Map:
		return containsUnsafePointer(t.Key(), pkg, seen) || containsUnsafePointer(t.Elem(), pkg, seen)
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			field := t.Field(i)
			if !field.Exported() && field.Pkg() != pkg {
				continue
			}
			if containsUnsafePointer(field.Type(), pkg, seen) {
				return true
			}
		}
	case *types.Tuple:
		for i := 0; i < t.Len(); i++ {
			if containsUnsafePointer(t.At(i).Type(), pkg, seen) {
				return true
			}
		}
	case *types.Signature:
		return containsUnsafePointer(t.Params(), pkg, seen) || containsUnsafePointer(t.Results(), pkg, seen)
	case *types.TypeParam:
		return containsUnsafePointer(t.Constraint(), pkg, seen)
	case *types.Interface:
		for i := 0; i < t.NumEmbeddeds(); i++ {
			if containsUnsafePointer(t.EmbeddedType(i), pkg, seen) {
				return true
			}
		}
		for i := 0; i < t.NumExplicitMethods(); i++ {
			m := t.ExplicitMethod(i)
			if !m.Exported() && m.Pkg() != pkg {
				continue // reflect.Type's common() leads to internal/abi, out of reach
			}
			if containsUnsafePointer(m.Type(), pkg, seen) {
				return true
			}
		}
	case *types.Union:
		for i := 0; i < t.Len(); i++ {
			if containsUnsafePointer(t.Term(i).Type(), pkg, seen) {
				return true
			}
		}
	}
	return false
}
