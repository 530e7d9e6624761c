package staticcheck

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"unicode/utf8"
)

// datum is one piece of static data the file may make the compiler lay out:
// a package-level variable with what its initializer lays out (literals,
// and copies of values it boxes in interfaces), a composite literal with
// every literal nested in it, a constant string, a constant string
// converted to a slice. Its size is an upper bound, never a guess.
type datum struct {
	pos   token.Pos
	what  string
	size  int64 // in bytes, per instance
	times int64 // instances of the generic code it is in; 1 elsewhere
}

// dataWalk sizes the static data of the student's file.
type dataWalk struct {
	info    *types.Info
	pkg     *types.Package
	sizer   *sizer
	data    []*datum
	unsized []*posError // what could not be sized
	times   int64
}

// staticData lists the file's data, and the places where it cannot be sized.
func staticData(f *ast.File, info *types.Info, pkg *types.Package, gen *generics) ([]*datum, []*posError) {
	w := &dataWalk{info: info, pkg: pkg, sizer: gen.sizer}
	for _, u := range unitsOf(f, info) {
		w.times = 1
		if u.owner != nil {
			w.times = gen.instances(u.owner)
		}
		switch u.tok {
		case token.CONST, token.IMPORT:
			// imports and constants lay out nothing by themselves
		case token.VAR:
			w.packageVars(u.node.(*ast.ValueSpec))
		default:
			w.walk(u.node, nil, nil, false)
		}
	}
	return w.data, w.unsized
}

// packageVars sizes each variable of a package-level var spec with its
// initializer. A literal of the variable's own array or struct type is laid
// out in the variable's storage, not beside it.
func (w *dataWalk) packageVars(vs *ast.ValueSpec) {
	for i, name := range vs.Names {
		var t types.Type
		if v, ok := w.info.Defs[name].(*types.Var); ok {
			t = v.Type()
		} else if len(vs.Values) == len(vs.Names) {
			t = w.info.Types[vs.Values[i]].Type // the blank variable
		}
		n, err := w.sizeOf(name.Pos(), t)
		d := w.add(nil, name.Pos(), "variable "+name.Name, n)
		if err != nil || len(vs.Values) != len(vs.Names) {
			continue
		}
		var inline ast.Node
		if lit, ok := vs.Values[i].(*ast.CompositeLit); ok && types.Identical(w.info.Types[lit].Type, t) && inlineKind(t) {
			inline = lit
		}
		w.walk(vs.Values[i], w.boxed(vs.Values[i], t, d), inline, true)
	}
	if len(vs.Values) > 0 && len(vs.Values) != len(vs.Names) {
		w.walk(vs.Values[0], nil, nil, true) // a, b = f(...)
	}
}

// walk adds the data in n to d (or, with d nil, to data of their own).
// inline is a literal already counted in d's storage; pkgInit says n is a
// package-level initializer.
func (w *dataWalk) walk(n ast.Node, d *datum, inline ast.Node, pkgInit bool) {
	ast.Walk(dataVisitor{w: w, cur: d, inline: inline, pkgInit: pkgInit}, n)
}

type dataVisitor struct {
	w             *dataWalk
	parent, grand ast.Node
	cur           *datum
	inline        ast.Node
	pkgInit       bool
}

func (v dataVisitor) Visit(n ast.Node) ast.Visitor {
	if n == nil {
		return nil
	}
	cur, descend := v.w.visit(n, v)
	if e, ok := n.(ast.Expr); ok && v.pkgInit {
		cur = v.w.boxed(e, v.w.target(e, v.parent, v.grand), cur)
	}
	if !descend {
		return nil
	}
	return dataVisitor{w: v.w, parent: n, grand: v.parent, cur: cur, inline: v.inline, pkgInit: v.pkgInit}
}

// boxed adds to d the copy the compiler may lay out of e's value when a
// package-level initializer stores it in an interface (var x any = big): a
// copy of big, as large as big.
func (w *dataWalk) boxed(e ast.Expr, target types.Type, d *datum) *datum {
	t := w.info.Types[e].Type
	if _, lit := e.(*ast.CompositeLit); lit || target == nil || t == nil || !types.IsInterface(target) || types.IsInterface(t) {
		return d // a literal in an interface slot is laid out apart already (see inlineIn)
	}
	n, err := w.sizeOf(e.Pos(), t)
	if err != nil {
		return d
	}
	return w.add(d, e.Pos(), "the "+w.typeString(t)+" boxed in an interface", n)
}

// target is the type of the place e's value goes to as an element of a
// composite literal or an argument of a call, or nil.
func (w *dataWalk) target(e ast.Expr, parent, grand ast.Node) types.Type {
	switch p := parent.(type) {
	case *ast.CompositeLit:
		if p.Type != e {
			return w.slotType(p, e, nil)
		}
	case *ast.KeyValueExpr:
		holder, ok := grand.(*ast.CompositeLit)
		if !ok {
			return nil
		}
		if _, isMap := coreType(w.info.Types[holder].Type).(*types.Map); e == p.Value || isMap {
			return w.slotType(holder, e, p) // a map's key, or any value; not an index or a field name
		}
	case *ast.CallExpr:
		ft := w.info.Types[p.Fun]
		if p.Fun == e {
			return nil
		}
		if ft.IsType() {
			return ft.Type // a conversion: any(big)
		}
		sig, ok := coreType(ft.Type).(*types.Signature)
		if !ok {
			return nil
		}
		for i, a := range p.Args {
			if a == e {
				return paramType(sig, i, p.Ellipsis.IsValid())
			}
		}
	}
	return nil
}

// paramType is the type of the i-th argument of a call of sig.
func paramType(sig *types.Signature, i int, spread bool) types.Type {
	n := sig.Params().Len()
	switch {
	case n == 0:
		return nil
	case sig.Variadic() && i >= n-1 && !spread:
		if s, ok := sig.Params().At(n - 1).Type().(*types.Slice); ok {
			return s.Elem()
		}
		return nil
	case i < n:
		return sig.Params().At(i).Type()
	}
	return nil
}

// visit sizes what node n itself lays out and returns the datum that what
// is nested in n belongs to.
func (w *dataWalk) visit(n ast.Node, v dataVisitor) (*datum, bool) {
	switch n := n.(type) {
	case *ast.GenDecl:
		return v.cur, n.Tok != token.CONST // constants lay out nothing until used
	case *ast.CompositeLit:
		size, err := w.litStorage(n)
		if err != nil {
			w.unsized = append(w.unsized, &posError{n.Pos(), fmt.Sprintf("the composite literal %s: %v", short(n), err)})
			return v.cur, true
		}
		if n == v.inline || w.inlineIn(n, v.parent, v.grand) {
			size = 0 // laid out inside its parent's storage, counted there
		}
		return w.add(v.cur, n.Pos(), "the "+w.typeString(w.info.Types[n].Type)+" literal", size), true
	case *ast.CallExpr:
		if size, what, ok := w.constConversion(n); ok {
			return w.add(v.cur, n.Pos(), what, size), true
		}
	}
	if e, ok := n.(ast.Expr); ok {
		if tv := w.info.Types[e]; tv.Value != nil && tv.Value.Kind() == constant.String && !w.isConstant(v.parent) {
			return w.add(v.cur, e.Pos(), "a constant string", int64(len(constant.StringVal(tv.Value)))), true
		}
	}
	return v.cur, true
}

// add adds size bytes to d, or to a new datum when d is nil, and returns it.
func (w *dataWalk) add(d *datum, pos token.Pos, what string, size int64) *datum {
	if d == nil {
		d = &datum{pos: pos, what: what, times: w.times}
		w.data = append(w.data, d)
	}
	d.size = min(d.size+min(size, math.MaxInt64/2), math.MaxInt64/2)
	return d
}

// isConstant reports whether n is a constant expression: a constant within
// one (the "a" of "a" + "b", the s of len(s)) is not laid out by itself.
func (w *dataWalk) isConstant(n ast.Node) bool {
	e, ok := n.(ast.Expr)
	return ok && w.info.Types[e].Value != nil
}

// sizeOf is the size of t; what cannot be sized is noted and counts 0.
func (w *dataWalk) sizeOf(pos token.Pos, t types.Type) (int64, error) {
	if t == nil {
		return 0, nil // a blank variable of a tuple: sized with the call
	}
	n, err := w.sizer.size(t)
	if err == nil && n > math.MaxInt64/2 {
		err = errTooLarge
	}
	if err != nil {
		w.unsized = append(w.unsized, &posError{pos, fmt.Sprintf("a value of type %s: %v", w.typeString(t), err)})
		return 0, err
	}
	return n, nil
}

func (w *dataWalk) typeString(t types.Type) string {
	return types.TypeString(t, types.RelativeTo(w.pkg))
}

// short is a literal's type as written, or its start: what a student can
// find on the line.
func short(lit *ast.CompositeLit) string {
	if lit.Type != nil {
		return types.ExprString(lit.Type) + "{…}"
	}
	return "{…}"
}

// litStorage is what a composite literal itself lays out: a whole array or
// struct, a slice's backing array up to its largest index, a map's keys
// and values. The storage of literals nested in it is theirs.
func (w *dataWalk) litStorage(lit *ast.CompositeLit) (int64, error) {
	t := w.info.Types[lit].Type
	if t == nil {
		return 0, fmt.Errorf("it has no type")
	}
	if p, ok := coreType(t).(*types.Pointer); ok {
		t = p.Elem() // an element written {…} for &T{…}
	}
	switch u := coreType(t).(type) {
	case *types.Array, *types.Struct:
		return w.sizer.size(t)
	case *types.Slice:
		n, err := w.extent(lit)
		if err != nil {
			return 0, err
		}
		e, err := w.sizer.size(u.Elem())
		if err != nil {
			return 0, err
		}
		return mul(n, e)
	case *types.Map:
		k, err := w.sizer.size(u.Key())
		if err != nil {
			return 0, err
		}
		v, err := w.sizer.size(u.Elem())
		if err != nil {
			return 0, err
		}
		entry, err := add(k, v)
		if err != nil {
			return 0, err
		}
		return mul(int64(len(lit.Elts)), entry)
	}
	return 0, fmt.Errorf("the grader does not know how to size a literal of type %s", w.typeString(t))
}

// extent is a slice literal's length: one past its largest index.
func (w *dataWalk) extent(lit *ast.CompositeLit) (int64, error) {
	var n, i int64
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			v := w.info.Types[kv.Key].Value
			if v == nil || v.Kind() != constant.Int {
				return 0, fmt.Errorf("index %s is not an integer constant", types.ExprString(kv.Key))
			}
			var exact bool
			if i, exact = constant.Int64Val(v); !exact || i < 0 {
				return 0, fmt.Errorf("index %s is out of range", types.ExprString(kv.Key))
			}
		}
		if i == math.MaxInt64 {
			return 0, errTooLarge
		}
		i++
		n = max(n, i)
	}
	return n, nil
}

// inlineIn reports whether lit is laid out inside the literal holding it:
// an array or struct in a slot of its own type. In a slot of interface type
// it is boxed, laid out apart.
func (w *dataWalk) inlineIn(lit *ast.CompositeLit, parent, grand ast.Node) bool {
	t := w.info.Types[lit].Type
	if !inlineKind(t) {
		return false
	}
	holder, ok := parent.(*ast.CompositeLit)
	kv, isKV := parent.(*ast.KeyValueExpr)
	if isKV {
		holder, ok = grand.(*ast.CompositeLit)
	}
	if !ok {
		return false
	}
	slot := w.slotType(holder, lit, kv)
	return slot != nil && types.Identical(slot, t)
}

// slotType is the type of the place in holder that e fills (kv, when not
// nil, is the key-value element e is part of), or nil when unknown.
func (w *dataWalk) slotType(holder *ast.CompositeLit, e ast.Expr, kv *ast.KeyValueExpr) types.Type {
	t := w.info.Types[holder].Type
	if p, ok := coreType(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	switch u := coreType(t).(type) {
	case *types.Array:
		return u.Elem()
	case *types.Slice:
		return u.Elem()
	case *types.Map:
		if kv != nil && kv.Key == e {
			return u.Key()
		}
		return u.Elem()
	case *types.Struct:
		if kv != nil {
			if id, ok := kv.Key.(*ast.Ident); ok {
				if f, ok := w.info.Uses[id].(*types.Var); ok {
					return f.Type()
				}
			}
			return nil
		}
		for i, elt := range holder.Elts {
			if elt == e && i < u.NumFields() {
				return u.Field(i).Type()
			}
		}
	}
	return nil
}

// inlineKind reports whether a value of type t is an array or a struct
// (not a pointer to one): it is laid out where it is stored.
func inlineKind(t types.Type) bool {
	if t == nil {
		return false
	}
	switch coreType(t).(type) {
	case *types.Array, *types.Struct:
		return true
	}
	return false
}

// constConversion sizes a constant string converted to a slice ([]byte(s),
// []rune(s)): the compiler may lay the slice's backing array out as well
// as the string.
func (w *dataWalk) constConversion(call *ast.CallExpr) (int64, string, bool) {
	if len(call.Args) != 1 || !w.info.Types[call.Fun].IsType() {
		return 0, "", false
	}
	v := w.info.Types[call.Args[0]].Value
	sl, ok := coreType(w.info.Types[call.Fun].Type).(*types.Slice)
	if v == nil || v.Kind() != constant.String || !ok {
		return 0, "", false
	}
	what := "the conversion to " + w.typeString(w.info.Types[call.Fun].Type)
	e, err := w.sizeOf(call.Pos(), sl.Elem())
	if err != nil {
		return 0, what, true
	}
	s := constant.StringVal(v)
	n := int64(len(s))
	if e != 1 {
		n = int64(utf8.RuneCountInString(s)) // each rune is at most 4 bytes: n*e >= len(s)
	}
	size, err := mul(n, e)
	if err != nil {
		w.unsized = append(w.unsized, &posError{call.Pos(), what + ": " + err.Error()})
	}
	return size, what, true
}
