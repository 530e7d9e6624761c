package staticcheck

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"sort"
)

// Limits on what a file may make the compiler write. The compiler writes a
// package's static data into its object file, and the object file into the
// grading machine's shared build cache: a few lines ([]byte{1 << 30: 1}, a
// constant doubled thirty times) would leave gigabytes there. Honest lab
// files lay out a few KiB.
const (
	// MaxStaticValue bounds one piece of static data: a package-level
	// variable, a composite literal with all nested in it, a constant
	// string, a constant string converted to a slice.
	MaxStaticValue = 1 << 20
	// MaxStaticTotal bounds a file's static data, each piece counted once
	// per instance of the generic code it is in.
	MaxStaticTotal = 4 << 20

	maxConstString = 1 << 20  // any constant string, used or not
	maxValueSize   = 16 << 20 // any value at all, made at run time or not
	maxInstances   = 1024     // compiled instances of the file's generic functions, methods and types
)

// sizeRules are the limits on the file's values and on its static data.
func (c *checker) sizeRules(fset *token.FileSet, files []*ast.File, pkg *types.Package, info *types.Info) []Violation {
	gen, err := newGenerics(files, info)
	if err != nil {
		var pe *posError
		errors.As(err, &pe)
		return []Violation{{Line: c.line(fset, pe.pos), Problem: pe.msg}}
	}
	vs := c.valueRules(fset, pkg, info, gen.sizer)
	vs = append(vs, c.instanceRules(fset, files[0], info, gen)...)
	return append(vs, c.staticRules(fset, files[0], pkg, info, gen)...)
}

// instanceRules: the compiler compiles generic code, and writes its code and
// type data, once per instance; a chain of generic functions each calling
// the next with two new types has exponentially many. The file's generic
// functions, methods and types may be compiled maxInstances times in all.
func (c *checker) instanceRules(fset *token.FileSet, f *ast.File, info *types.Info, gen *generics) []Violation {
	var total int64
	for _, u := range unitsOf(f, info) {
		if u.owner == nil {
			continue
		}
		if total = satAdd(total, gen.instances(u.owner)); total > maxInstances {
			return []Violation{{Line: c.line(fset, u.node.Pos()), Problem: fmt.Sprintf(
				"the file's generic code is compiled up to %d times by here (each generic function, method and type once per instance), more than the %d a file may: each instance adds code and type data to the build",
				total, maxInstances)}}
		}
	}
	return nil
}

// line is pos's line in the student file, or 0 when it is not there.
func (c *checker) line(fset *token.FileSet, pos token.Pos) int {
	if p := fset.Position(pos); p.Filename == c.req.File {
		return p.Line
	}
	return 0
}

// valueRules: no value of the file, static or made at run time, may take
// more than maxValueSize, and no constant string more than maxConstString.
func (c *checker) valueRules(fset *token.FileSet, pkg *types.Package, info *types.Info, sz *sizer) []Violation {
	var vs []Violation
	bigLine := map[int]bool{}
	for e, tv := range info.Types {
		pos := fset.Position(e.Pos())
		if pos.Filename != c.req.File || bigLine[pos.Line] {
			continue
		}
		problem := ""
		switch {
		case tv.Value != nil && tv.Value.Kind() == constant.String && len(constant.StringVal(tv.Value)) > maxConstString:
			problem = fmt.Sprintf("a constant string of %d bytes is too large (at most %d KiB): build large text at run time", len(constant.StringVal(tv.Value)), maxConstString>>10)
		case tv.Type != nil:
			problem = valueSizeProblem(sz, tv.Type, pkg)
		}
		if problem != "" {
			bigLine[pos.Line] = true
			vs = append(vs, Violation{Line: pos.Line, Problem: problem})
		}
	}
	return vs
}

// valueSizeProblem says why a value of type t is too large, or "".
func valueSizeProblem(sz *sizer, t types.Type, pkg *types.Package) string {
	switch u := types.Unalias(t).(type) {
	case *types.Tuple:
		for i := 0; i < u.Len(); i++ {
			if p := valueSizeProblem(sz, u.At(i).Type(), pkg); p != "" {
				return p
			}
		}
		return ""
	case *types.Union:
		return "" // a constraint, never a value
	case *types.Named:
		if u.TypeParams().Len() > 0 && u.TypeArgs().Len() == 0 {
			return "" // the generic type itself: sized in its instances
		}
	}
	if a, ok := t.(*types.Alias); ok && a.TypeParams().Len() > 0 && a.TypeArgs().Len() == 0 {
		return ""
	}
	ts := types.TypeString(t, types.RelativeTo(pkg))
	n, err := sz.size(t)
	switch {
	case err != nil:
		return fmt.Sprintf("the grader cannot size a value of type %s (%v); what it cannot size is not built", ts, err)
	case n > maxValueSize:
		return fmt.Sprintf("a value of type %s takes %d bytes (%s), too large (at most %d MiB): use a slice made at run time", ts, n, human(n), maxValueSize>>20)
	}
	return ""
}

// staticRules checks the file's static data against the limits. Whatever
// cannot be sized is rejected: a checker that cannot tell must not let the
// file through.
func (c *checker) staticRules(fset *token.FileSet, f *ast.File, pkg *types.Package, info *types.Info, gen *generics) []Violation {
	var vs []Violation
	line := func(pos token.Pos) int { return c.line(fset, pos) }
	data, unsized := staticData(f, info, pkg, gen)
	for _, e := range unsized {
		vs = append(vs, Violation{Line: line(e.pos), Problem: "the grader cannot size " + e.msg + "; what it cannot size is not built"})
	}
	sort.SliceStable(data, func(i, j int) bool { return data[i].pos < data[j].pos })
	var total int64
	over := false
	for _, d := range data {
		if d.size > MaxStaticValue {
			vs = append(vs, Violation{Line: line(d.pos), Problem: fmt.Sprintf(
				"%s lays out %d bytes (%s) of static data%s, more than the %d MiB one value may: build it at run time instead",
				d.what, d.size, human(d.size), d.inGeneric(), MaxStaticValue>>20)})
		}
		part, err := mul(d.size, d.times)
		if err != nil {
			part = math.MaxInt64 / 2
		}
		total = min(total+min(part, math.MaxInt64/2), math.MaxInt64/2)
		if total > MaxStaticTotal && !over {
			over = true
			vs = append(vs, Violation{Line: line(d.pos), Problem: fmt.Sprintf(
				"%s (%d bytes%s) brings the file's static data to %d bytes (%s), more than the %d MiB a file may: build large tables at run time instead",
				d.what, d.size, d.inGeneric(), total, human(total), MaxStaticTotal>>20)})
		}
	}
	return vs
}

// inGeneric says how many times generic code lays d out.
func (d *datum) inGeneric() string {
	if d.times <= 1 {
		return ""
	}
	return fmt.Sprintf(" in generic code compiled up to %d times", d.times)
}

// human says n bytes in the largest unit that keeps it at 1 or more.
func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
