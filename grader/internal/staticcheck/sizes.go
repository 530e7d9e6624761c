package staticcheck

import (
	"errors"
	"fmt"
	"go/types"
	"math"
)

// sizer gives the size in bytes of a value of a type as the gc compiler
// lays it out on a 64-bit target (amd64). A type that
// depends on type parameters is sized for the largest instance the file can
// make (see generics): an upper bound, never a guess.
type sizer struct {
	sizes   types.Sizes
	gen     *generics
	named   map[types.Type]int64 // sizes of generic-dependent named types already known
	generic map[types.Type]bool  // whether a type's layout depends on a type parameter
}

func newSizer(gen *generics) *sizer {
	return &sizer{sizes: types.SizesFor("gc", "amd64"), gen: gen, named: map[types.Type]int64{}, generic: map[types.Type]bool{}}
}

// errTooLarge is a size beyond int64: no such value fits in memory.
var errTooLarge = errors.New("its size overflows 64 bits")

// size returns the size of t, or why it cannot be known.
func (s *sizer) size(t types.Type) (int64, error) {
	if tu, ok := t.(*types.Tuple); ok {
		return s.tupleSize(tu)
	}
	generic, ok := s.generic[t]
	if !ok {
		generic = mentionsTypeParam(t, map[types.Type]bool{})
		s.generic[t] = generic
	}
	if !generic {
		return s.exact(t)
	}
	switch u := t.(type) {
	case *types.TypeParam:
		return s.gen.paramBound(u)
	case *types.Alias:
		return s.size(types.Unalias(u))
	case *types.Named:
		if n, ok := s.named[u]; ok {
			return n, nil
		}
		n, err := s.size(u.Underlying())
		if err == nil {
			s.named[u] = n
		}
		return n, err
	case *types.Array:
		e, err := s.size(u.Elem())
		if err != nil {
			return 0, err
		}
		return mul(u.Len(), e)
	case *types.Struct:
		return s.structSize(u)
	}
	// Slices, maps, pointers, channels, functions, interfaces: a header
	// whose size does not depend on what it refers to.
	return s.exact(t)
}

// tupleSize is the sum of a tuple's sizes (a call's results).
func (s *sizer) tupleSize(t *types.Tuple) (int64, error) {
	var sum int64
	for i := 0; i < t.Len(); i++ {
		n, err := s.size(t.At(i).Type())
		if err != nil {
			return 0, err
		}
		if sum, err = add(sum, n); err != nil {
			return 0, err
		}
	}
	return sum, nil
}

// structSize bounds a generic-dependent struct: each field starts at most 7
// bytes of padding after the one before (no alignment exceeds 8), and the
// compiler may pad a trailing zero-size field by up to 8 more.
func (s *sizer) structSize(u *types.Struct) (int64, error) {
	var sum int64
	for i := 0; i < u.NumFields(); i++ {
		n, err := s.size(u.Field(i).Type())
		if err != nil {
			return 0, err
		}
		if sum, err = add(sum, n); err != nil {
			return 0, err
		}
		if sum, err = add(sum, 7); err != nil {
			return 0, err
		}
	}
	return add(sum, 8)
}

// exact is go/types' size of a type without type parameters. It reports
// -1 for an overflow; it may panic on a type it cannot size.
func (s *sizer) exact(t types.Type) (n int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = 0, fmt.Errorf("go/types cannot size it (%v)", r)
		}
	}()
	if b, ok := t.(*types.Basic); ok && (b.Info()&types.IsUntyped != 0 || b.Kind() == types.Invalid) {
		return 0, nil // a constant's or nil's type: no storage of its own
	}
	if n = s.sizes.Sizeof(t); n < 0 {
		return 0, errTooLarge
	}
	return n, nil
}

// mentionsTypeParam reports whether t's layout depends on a type parameter.
// A named type declared inside a generic function depends on the function's
// type parameters through its underlying type.
func mentionsTypeParam(t types.Type, seen map[types.Type]bool) bool {
	found := false
	eachTypeParam(t, seen, func(*types.TypeParam) { found = true })
	return found
}

// eachTypeParam calls f for every type parameter t mentions, looking
// through named types, pointers and signatures too.
func eachTypeParam(t types.Type, seen map[types.Type]bool, f func(*types.TypeParam)) {
	if t == nil || seen[t] {
		return
	}
	seen[t] = true
	walk := func(t types.Type) { eachTypeParam(t, seen, f) }
	switch t := t.(type) {
	case *types.TypeParam:
		f(t)
	case *types.Alias:
		walk(types.Unalias(t))
	case *types.Named:
		if t.TypeParams().Len() > 0 && t.TypeArgs().Len() == 0 {
			return // the generic type itself: its parameters are its own
		}
		for i := 0; i < t.TypeArgs().Len(); i++ {
			walk(t.TypeArgs().At(i))
		}
		walk(t.Underlying())
	case *types.Pointer:
		walk(t.Elem())
	case *types.Slice:
		walk(t.Elem())
	case *types.Array:
		walk(t.Elem())
	case *types.Chan:
		walk(t.Elem())
	case *types.Map:
		walk(t.Key())
		walk(t.Elem())
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			walk(t.Field(i).Type())
		}
	case *types.Tuple:
		for i := 0; i < t.Len(); i++ {
			walk(t.At(i).Type())
		}
	case *types.Signature:
		walk(t.Params())
		walk(t.Results())
	case *types.Interface:
		for i := 0; i < t.NumEmbeddeds(); i++ {
			walk(t.EmbeddedType(i))
		}
		for i := 0; i < t.NumExplicitMethods(); i++ {
			walk(t.ExplicitMethod(i).Type())
		}
	case *types.Union:
		for i := 0; i < t.Len(); i++ {
			walk(t.Term(i).Type())
		}
	}
}

// coreType is the underlying type of t, or for a type parameter the one
// underlying type all of its constraint's terms share (a composite literal
// of type T needs one); nil when there is none.
func coreType(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	tp, ok := types.Unalias(t).(*types.TypeParam)
	if !ok {
		return t.Underlying()
	}
	var core types.Type
	ok = eachTerm(tp.Constraint(), func(term types.Type) bool {
		u := term.Underlying()
		if core == nil {
			core = u
		}
		return types.Identical(core, u)
	})
	if !ok {
		return nil
	}
	return core
}

// eachTerm calls f on every type term of a constraint until f says false;
// it reports whether all said true.
func eachTerm(c types.Type, f func(types.Type) bool) bool {
	iface, ok := c.Underlying().(*types.Interface)
	if !ok {
		return f(c)
	}
	for i := 0; i < iface.NumEmbeddeds(); i++ {
		e := iface.EmbeddedType(i)
		if u, ok := e.(*types.Union); ok {
			for j := 0; j < u.Len(); j++ {
				if !eachTerm(u.Term(j).Type(), f) {
					return false
				}
			}
		} else if !eachTerm(e, f) {
			return false
		}
	}
	return true
}

func add(a, b int64) (int64, error) {
	if a > math.MaxInt64-b {
		return 0, errTooLarge
	}
	return a + b, nil
}

func mul(a, b int64) (int64, error) {
	if a != 0 && b > math.MaxInt64/a {
		return 0, errTooLarge
	}
	return a * b, nil
}
