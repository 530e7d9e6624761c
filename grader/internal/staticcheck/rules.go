package staticcheck

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// syntaxRules are the rules that need only the syntax tree: the package
// clause, the imports and the directives.
func (c *checker) syntaxRules(fset *token.FileSet, f *ast.File) []Violation {
	allowed := make(map[string]bool, len(c.req.Allowed))
	for _, p := range c.req.Allowed {
		allowed[p] = true
	}
	var vs []Violation
	add := func(pos token.Pos, format string, args ...any) {
		vs = append(vs, Violation{Line: fset.Position(pos).Line, Problem: fmt.Sprintf(format, args...)})
	}
	if f.Name.Name != c.req.Package {
		add(f.Name.Pos(), "package %s: the file must be in package %s", f.Name.Name, c.req.Package)
	}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			add(imp.Pos(), "import %s cannot be read", imp.Path.Value)
			continue
		}
		if !allowed[p] {
			vs = append(vs, Violation{Line: fset.Position(imp.Pos()).Line, Problem: fmt.Sprintf("import %q is not allowed", p),
				Hint: "a lab file may import only: " + strings.Join(c.req.Allowed, ", ")})
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

// predeclaredRules: a package-level name Go predeclares (len, append,
// true, error, ...) means the student's thing in every file of the
// package, so one that a given file uses is refused; the tests, in the
// external test package, are not touched by it, so a helper named max is
// fine where no given file says max.
func (c *checker) predeclaredRules(fset *token.FileSet, f *ast.File, given []*ast.File) []Violation {
	used := map[string]bool{}
	for _, gf := range given {
		ast.Inspect(gf, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				used[id.Name] = true
			}
			return true
		})
	}
	var vs []Violation
	check := func(id *ast.Ident) {
		if id == nil || !used[id.Name] || types.Universe.Lookup(id.Name) == nil {
			return
		}
		vs = append(vs, Violation{Line: fset.Position(id.Pos()).Line, Problem: fmt.Sprintf(
			"%s is predeclared by Go and the given files use it: declared at package level it would change what %s means there too; rename it (inside a function it is fine)", id.Name, id.Name)})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				check(d.Name)
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						check(n)
					}
				case *ast.TypeSpec:
					check(sp.Name)
				}
			}
		}
	}
	return vs
}

// typeRules are the rules that need types: no methods on the given types
// (an Is or As method there would change what the tests' errors.Is and
// errors.As see), no writes to the given files' variables, and no value of
// type unsafe.Pointer (sync/atomic hands some out without importing unsafe).
func (c *checker) typeRules(fset *token.FileSet, f *ast.File, pkg *types.Package, info *types.Info) []Violation {
	r := &typeRun{c: c, fset: fset, f: f, pkg: pkg, info: info}
	r.methods()
	r.givenVars()
	r.unsafePointers()
	return r.vs
}

// typeRun is one file's pass over the type rules; vs collects what broke them.
type typeRun struct {
	c    *checker
	fset *token.FileSet
	f    *ast.File
	pkg  *types.Package
	info *types.Info
	vs   []Violation
}

func (r *typeRun) add(pos token.Pos, format string, args ...any) {
	r.vs = append(r.vs, Violation{Line: r.fset.Position(pos).Line, Problem: fmt.Sprintf(format, args...)})
}

func (r *typeRun) inStudentFile(obj types.Object) bool {
	return obj != nil && r.fset.Position(obj.Pos()).Filename == r.c.req.File
}

// methods: a method may be declared only on a type the student's file declares.
func (r *typeRun) methods() {
	for _, d := range r.f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || len(fn.Recv.List) == 0 {
			continue
		}
		tv, ok := r.info.Types[fn.Recv.List[0].Type]
		if !ok {
			r.add(fn.Pos(), "method %s: its receiver could not be checked", fn.Name.Name)
			continue
		}
		t := tv.Type
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		named, ok := types.Unalias(t).(*types.Named)
		if !ok || !r.inStudentFile(named.Obj()) {
			r.add(fn.Pos(), "method %s on %s: methods may be declared only on types that %s declares, not on the given files' types", fn.Name.Name, types.TypeString(t, types.RelativeTo(r.pkg)), r.c.req.File)
		}
	}
}

// givenVars: the given files' package-level variables are readable, never
// written, and never used at all when their value shares memory.
func (r *typeRun) givenVars() {
	given := map[types.Object]bool{}
	for _, name := range r.pkg.Scope().Names() {
		if v, ok := r.pkg.Scope().Lookup(name).(*types.Var); ok && !r.inStudentFile(v) {
			given[v] = true
		}
	}
	written := map[*ast.Ident]bool{}
	writes := func(e ast.Expr, what string) {
		id := rootIdent(e, r.info)
		if id != nil && given[r.info.Uses[id]] && !written[id] {
			written[id] = true
			r.add(id.Pos(), "%s %s, a variable of the given files: they may be read, never changed", what, id.Name)
		}
	}
	ast.Inspect(r.f, func(n ast.Node) bool {
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
			if r.takesAddressImplicitly(n) {
				writes(n.X, "takes the address of")
			}
		case *ast.Ident:
			// A variable whose value shares memory (a map, a slice, a
			// pointer, a struct holding them) would hand out the course's
			// state with its value: such a variable may not be used at all.
			if obj := r.info.Uses[n]; given[obj] && !written[n] && !sharesNothing(obj.Type()) {
				written[n] = true
				r.add(n.Pos(), "uses %s, a variable of the given files of type %s, which shares memory with them", n.Name, types.TypeString(obj.Type(), types.RelativeTo(r.pkg)))
			}
		}
		return true
	})
}

// takesAddressImplicitly reports whether x.M is a method value with a
// pointer receiver on an addressable non-pointer x: x.M() takes &x.
func (r *typeRun) takesAddressImplicitly(n *ast.SelectorExpr) bool {
	sel, ok := r.info.Selections[n]
	if !ok || sel.Kind() != types.MethodVal {
		return false
	}
	sig, ok := sel.Obj().Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return false
	}
	_, ptrRecv := sig.Recv().Type().(*types.Pointer)
	return ptrRecv && !isPointer(r.info.Types[n.X].Type)
}

// unsafePointers names, of the expressions holding an unsafe.Pointer, the
// outermost one of each line (info.Types is a map: no order of its own).
func (r *typeRun) unsafePointers() {
	byLine := map[int]ast.Expr{}
	for e, tv := range r.info.Types {
		if tv.Type == nil || !containsUnsafePointer(tv.Type, r.pkg, map[types.Type]bool{}) {
			continue
		}
		pos := r.fset.Position(e.Pos())
		if pos.Filename != r.c.req.File {
			continue
		}
		if old, ok := byLine[pos.Line]; !ok || e.Pos() < old.Pos() || (e.Pos() == old.Pos() && e.End() > old.End()) {
			byLine[pos.Line] = e
		}
	}
	for _, e := range byLine {
		r.add(e.Pos(), "a value of type unsafe.Pointer (%s) is not allowed", types.ExprString(e))
	}
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
