package staticcheck

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strconv"
)

// sequentialImports are refused in a sequential lab: sync and sync/atomic
// exist to share memory between goroutines, and such a lab's file has only
// one; context starts goroutines of its own that call the file's code (a
// parent Context of the file's own type has its Done method called on one).
var sequentialImports = map[string]bool{"sync": true, "sync/atomic": true, "context": true}

// SequentialImports are the imports a sequential lab refuses, sorted.
func SequentialImports() []string { return slices.Sorted(maps.Keys(sequentialImports)) }

// sequentialFuncs run their callback on a goroutine of its own, which is a
// go statement by another name.
var sequentialFuncs = map[string]bool{"time.AfterFunc": true, "context.AfterFunc": true}

// sequentialSyntax refuses, in a lab whose file needs no goroutines
// (Request.Sequential), what starts one or shares memory between them:
// student code then never runs at the same time as itself, so no data race
// of its own can tear a value.
func (c *checker) sequentialSyntax(fset *token.FileSet, f *ast.File) []Violation {
	if !c.req.Sequential {
		return nil
	}
	var vs []Violation
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil && sequentialImports[p] {
			vs = append(vs, Violation{Line: fset.Position(imp.Pos()).Line, Problem: fmt.Sprintf(
				"import %q: this lab needs no goroutines, so its file may not import sync, sync/atomic or context", p)})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if g, ok := n.(*ast.GoStmt); ok {
			vs = append(vs, Violation{Line: fset.Position(g.Pos()).Line, Problem: "go statement: this lab needs no goroutines, so its file may not start one"})
		}
		return true
	})
	return vs
}

// sequentialTypes refuses uses of the functions that run a callback on a
// goroutine of their own, however they are reached (called, or taken as a
// value).
func (c *checker) sequentialTypes(fset *token.FileSet, info *types.Info) []Violation {
	if !c.req.Sequential {
		return nil
	}
	var vs []Violation
	for id, obj := range info.Uses {
		fn, ok := obj.(*types.Func)
		if !ok || fn.Pkg() == nil || fset.Position(id.Pos()).Filename != c.req.File {
			continue
		}
		if name := fn.Pkg().Path() + "." + fn.Name(); sequentialFuncs[name] {
			vs = append(vs, Violation{Line: fset.Position(id.Pos()).Line, Problem: fmt.Sprintf(
				"%s runs its function on a goroutine of its own: this lab needs no goroutines", name)})
		}
	}
	return vs
}
