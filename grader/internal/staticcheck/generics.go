package staticcheck

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"math"
	"slices"
)

// generics bounds what the compiler makes of the package's generic code. It
// compiles a generic function, or a generic type with all its methods, once
// per instance, laying out the static data in it each time, and sizes each
// instance for its type arguments. So every type parameter gets two bounds,
// found from every instantiation in the package's files: how many types may
// reach it and how large the largest is.
type generics struct {
	key    map[*types.TypeParam]paramKey // a method's receiver parameters are its type's
	arity  map[types.Object]int          // the generic declarations and their parameter counts
	keys   []paramKey                    // in declaration order
	into   map[paramKey][]typeArg        // the distinct types each parameter is instantiated with
	byName map[paramKey]map[string][]int // indexes into into by type string, to find repeats
	reach  map[paramKey]int64            // how many types may reach it, saturated at maxCount
	bound  map[paramKey]int64            // the largest of them, in bytes
	sizer  *sizer
}

// paramKey is the index-th type parameter of a generic function or type.
type paramKey struct {
	decl  types.Object
	index int
}

// typeArg is one instantiation's type argument for one parameter.
type typeArg struct {
	pos  token.Pos
	t    types.Type
	from []paramKey // the type parameters t is built from
}

// maxCount saturates instance counts: far above any limit, far below overflow.
const maxCount = 1 << 40

// posError is a problem the checker found at a place in some file.
type posError struct {
	pos token.Pos
	msg string
}

func (e *posError) Error() string { return e.msg }

// unit is one declaration the compiler compiles as a whole (a function or a
// method, or one spec of a declaration) and the generic declaration whose
// instances hold it, or nil.
type unit struct {
	node    ast.Node
	owner   types.Object
	tparams *types.TypeParamList
	tok     token.Token // a spec's declaration's: token.VAR, token.CONST, ...
}

// unitsOf lists f's declarations as units.
func unitsOf(f *ast.File, info *types.Info) []unit {
	var us []unit
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			u := unit{node: d}
			if fn, ok := info.Defs[d.Name].(*types.Func); ok {
				sig := fn.Type().(*types.Signature)
				switch {
				case sig.TypeParams().Len() > 0:
					u.owner, u.tparams = fn, sig.TypeParams()
				case sig.RecvTypeParams().Len() > 0:
					u.owner, u.tparams = receiverBase(sig), sig.RecvTypeParams()
				}
			}
			us = append(us, u)
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				u := unit{node: sp, tok: d.Tok}
				if ts, ok := sp.(*ast.TypeSpec); ok && ts.TypeParams != nil {
					if tn, ok := info.Defs[ts.Name].(*types.TypeName); ok {
						u.owner, u.tparams = tn, declaredTypeParams(tn.Type())
					}
				}
				us = append(us, u)
			}
		}
	}
	return us
}

// receiverBase is the generic type a method with receiver type parameters
// belongs to, or nil.
func receiverBase(sig *types.Signature) types.Object {
	t := types.Unalias(sig.Recv().Type())
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	if n, ok := t.(*types.Named); ok {
		return n.Origin().Obj()
	}
	return nil
}

func declaredTypeParams(t types.Type) *types.TypeParamList {
	switch t := t.(type) {
	case *types.Named:
		return t.TypeParams()
	case *types.Alias:
		return t.TypeParams()
	}
	return nil
}

// newGenerics finds every instantiation in files and bounds each type
// parameter of the package's generic declarations.
func newGenerics(files []*ast.File, info *types.Info) (*generics, error) {
	g := &generics{
		key: map[*types.TypeParam]paramKey{}, arity: map[types.Object]int{},
		into: map[paramKey][]typeArg{}, byName: map[paramKey]map[string][]int{}, reach: map[paramKey]int64{}, bound: map[paramKey]int64{},
	}
	g.sizer = newSizer(g)
	var all []unit
	for _, f := range files {
		for _, u := range unitsOf(f, info) {
			if err := g.declare(u); err != nil {
				return nil, err
			}
			all = append(all, u)
		}
	}
	for _, u := range all {
		if err := g.instantiations(u, info); err != nil {
			return nil, err
		}
	}
	for _, c := range g.components() {
		if err := g.resolve(c); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// declare gives u's type parameters their keys.
func (g *generics) declare(u unit) error {
	if u.tparams == nil {
		return nil
	}
	if u.owner == nil {
		return &posError{u.node.Pos(), "the grader cannot tell which generic type this method belongs to"}
	}
	if _, ok := g.arity[u.owner]; !ok {
		for i := 0; i < u.tparams.Len(); i++ {
			g.keys = append(g.keys, paramKey{u.owner, i})
		}
	}
	g.arity[u.owner] = u.tparams.Len()
	for i := 0; i < u.tparams.Len(); i++ {
		g.key[u.tparams.At(i)] = paramKey{u.owner, i}
	}
	return nil
}

// instantiations records every instance of the package's generic
// declarations that u names, explicitly or by inference.
func (g *generics) instantiations(u unit, info *types.Info) error {
	var err error
	ast.Inspect(u.node, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || err != nil {
			return err == nil
		}
		inst, ok := info.Instances[id]
		if !ok {
			return true
		}
		obj := info.Uses[id]
		if fn, ok := obj.(*types.Func); ok {
			obj = fn.Origin()
		}
		if _, ours := g.arity[obj]; !ours {
			return true // another package's: not code of this package to bound
		}
		for i := 0; i < inst.TypeArgs.Len(); i++ {
			a := typeArg{pos: id.Pos(), t: inst.TypeArgs.At(i)}
			eachTypeParam(a.t, map[types.Type]bool{}, func(tp *types.TypeParam) {
				k, ok := g.key[tp]
				if !ok && err == nil {
					err = &posError{id.Pos(), fmt.Sprintf("the grader cannot tell where type parameter %s of %s comes from", tp, id.Name)}
				}
				a.from = append(a.from, k)
			})
			g.addArg(paramKey{obj, i}, a)
		}
		return true
	})
	return err
}

// addArg records that k is instantiated with a, unless with the same type
// already: the same type twice makes one instance.
func (g *generics) addArg(k paramKey, a typeArg) {
	name := types.TypeString(a.t, nil)
	for _, i := range g.byName[k][name] {
		if types.Identical(g.into[k][i].t, a.t) {
			return
		}
	}
	if g.byName[k] == nil {
		g.byName[k] = map[string][]int{}
	}
	g.byName[k][name] = append(g.byName[k][name], len(g.into[k]))
	g.into[k] = append(g.into[k], a)
}

// components are the strongly connected components of the graph in which
// a parameter points to those its type arguments are built from (Tarjan's
// algorithm), each after all the components it points to.
func (g *generics) components() [][]paramKey {
	index, low := map[paramKey]int{}, map[paramKey]int{}
	onStack := map[paramKey]bool{}
	var stack []paramKey
	var out [][]paramKey
	var visit func(k paramKey)
	visit = func(k paramKey) {
		index[k], low[k] = len(index), len(index)
		stack, onStack[k] = append(stack, k), true
		for _, a := range g.into[k] {
			for _, q := range a.from {
				if _, seen := index[q]; !seen {
					visit(q)
					low[k] = min(low[k], low[q])
				} else if onStack[q] {
					low[k] = min(low[k], index[q])
				}
			}
		}
		if low[k] != index[k] {
			return
		}
		var c []paramKey
		for {
			q := stack[len(stack)-1]
			stack, onStack[q] = stack[:len(stack)-1], false
			c = append(c, q)
			if q == k {
				break
			}
		}
		out = append(out, c)
	}
	for _, k := range g.keys {
		if _, seen := index[k]; !seen {
			visit(k)
		}
	}
	return out
}

// resolve bounds the parameters of one component, whose dependencies are
// bounded already. Inside a component a type may only be passed on as it is
// (go/types refuses a cycle that builds ever larger types), so what reaches
// one member reaches them all and comes from outside.
func (g *generics) resolve(c []paramKey) error {
	var reach, bound int64
	for _, k := range c {
		for _, a := range g.into[k] {
			if slices.ContainsFunc(a.from, func(q paramKey) bool { return slices.Contains(c, q) }) {
				if _, bare := types.Unalias(a.t).(*types.TypeParam); bare {
					continue
				}
				return &posError{a.pos, fmt.Sprintf("the grader cannot bound the instances of %s: it instantiates itself with %s", k.decl.Name(), a.t)}
			}
			n := int64(1)
			for _, q := range a.from {
				n = satMul(n, g.reach[q])
			}
			reach = satAdd(reach, n)
			size, err := g.sizer.size(a.t)
			if err != nil {
				return &posError{a.pos, fmt.Sprintf("the grader cannot size type argument %s of %s (%v); what it cannot size is not built", a.t, k.decl.Name(), err)}
			}
			if size > maxValueSize {
				return &posError{a.pos, fmt.Sprintf("%s is instantiated with %s, which may take %d bytes (%s): too large (at most %d MiB)", k.decl.Name(), a.t, size, human(size), maxValueSize>>20)}
			}
			bound = max(bound, size)
		}
	}
	for _, k := range c {
		g.reach[k], g.bound[k] = reach, bound
	}
	return nil
}

// instances bounds how many times the compiler compiles decl (a generic
// function, or a generic type with its methods): 1 for any other.
func (g *generics) instances(decl types.Object) int64 {
	n, ok := g.arity[decl]
	if !ok {
		return 1
	}
	count := int64(1)
	for i := 0; i < n; i++ {
		count = satMul(count, g.reach[paramKey{decl, i}])
	}
	return max(count, 1) // never instantiated: compiled never, counted once
}

// paramBound is the size of the largest type tp may stand for.
func (g *generics) paramBound(tp *types.TypeParam) (int64, error) {
	k, ok := g.key[tp]
	if !ok {
		return 0, fmt.Errorf("type parameter %s is not one the grader has bounded", tp)
	}
	return g.bound[k], nil
}

func satAdd(a, b int64) int64 { return min(a+b, maxCount) } // both below maxCount

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return maxCount
	}
	return min(a*b, maxCount)
}
