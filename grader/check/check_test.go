package check

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/internal/goenv"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
)

var (
	checkerOnce sync.Once
	checker     *Checker
	checkerErr  error
)

// labChecker is the static wall of lab 10, made once: it asks the go
// command for export data, which takes a moment the first time.
func labChecker(t *testing.T) *Checker {
	t.Helper()
	checkerOnce.Do(func() {
		l := testLab(t)
		given, err := l.GivenFiles()
		if err != nil {
			checkerErr = err
			return
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			checkerErr = err
			return
		}
		checker, checkerErr = New(l.Editable[0], l.Package, l.GoVersion(), given, goBin, goenv.Env(false))
	})
	require.NoError(t, checkerErr)
	return checker
}

// stubWith is the lab's stub with code added at the end.
func stubWith(t *testing.T, imports []string, code string) []byte {
	t.Helper()
	src := string(stubSource(t))
	if len(imports) > 0 {
		var b strings.Builder
		for _, p := range imports {
			b.WriteString("import \"" + p + "\"\n")
		}
		src = strings.Replace(src, "import \"fmt\"\n", "import \"fmt\"\n"+b.String(), 1)
	}
	return []byte(src + "\n" + code + "\n")
}

func TestCheckerAcceptsTheStubAndTheSolution(t *testing.T) {
	c := labChecker(t)
	assert.NoError(t, c.Check(stubSource(t)), "the stub")
	assert.NoError(t, c.Check(solutionSource(t)), "the reference solution")
}

// Every rule of the static wall, each with a file that breaks it and the
// problem the student is shown.
func TestCheckerRejects(t *testing.T) {
	deep := strings.Repeat("(", 100_001) + "1" + strings.Repeat(")", 100_001)
	cases := []struct {
		name    string
		src     []byte
		problem string
	}{
		{"an import of reflect, whose Value.Pointer and NewAt reach any memory",
			stubWith(t, []string{"reflect"}, "var _ = reflect.TypeOf(0)"), `import "reflect" is not allowed`},
		{"an import of os", stubWith(t, []string{"os"}, "var _ = os.Args"), `import "os" is not allowed`},
		{"an import of unsafe", stubWith(t, []string{"unsafe"}, "var _ = unsafe.Sizeof(0)"), `import "unsafe" is not allowed`},
		{"cgo", stubWith(t, []string{"C"}, ""), `import "C" is not allowed`},
		{"a file go/parser cannot parse, though the compiler would (nesting beyond go/parser's limit)",
			stubWith(t, []string{"os"}, "var deep = "+deep+"\nvar _ = os.Args"), "the grader cannot parse this file"},
		{"a syntax error", stubWith(t, nil, "func broken( {"), "syntax error: "},
		{"a type error", stubWith(t, nil, `var broken int = "text"`), "does not type-check"},
		{"a name of the given files declared again", stubWith(t, nil, "type FieldError struct{}"), "does not type-check"},
		{"a use of a test-only name", stubWith(t, nil, "var _ = newFakeFS(nil)"), "does not type-check: undefined: newFakeFS"},
		{"a //go:linkname directive", stubWith(t, nil, "//go:linkname now time.now\nfunc now() (int64, int32, int64)"), "directive //go:linkname is not allowed"},
		{"a //go:build constraint", []byte("//go:build ignore\n\n" + string(stubSource(t))), "directive //go:build is not allowed"},
		{"an old build constraint", []byte("// +build ignore\n\n" + string(stubSource(t))), "build constraints are not allowed"},
		{"a //line directive", stubWith(t, nil, "//line other.go:1\nvar x = 1"), "//line directives are not allowed"},
		{"another package", []byte(strings.Replace(string(stubSource(t)), "package session", "package other", 1)), "the file must be in package session"},
		{"an Is method on a given error type: errors.Is would say yes to anything",
			stubWith(t, nil, "func (e *FieldError) Is(error) bool { return true }"), "methods may be declared only on types that session.go declares"},
		{"an As method on a given type, through an alias",
			stubWith(t, nil, "type fieldErr = FieldError\n\nfunc (e *fieldErr) As(any) bool { return true }"), "methods may be declared only on types that session.go declares"},
		{"a method on a given value type", stubWith(t, nil, "func (SessionEntry) Extra() {}"), "methods may be declared only on types that session.go declares"},
		{"an assignment to a given variable", stubWith(t, nil, "func init() { ErrTainted = nil }"), "assigns to ErrTainted, a variable of the given files"},
		{"the address of a given variable", stubWith(t, nil, "var p = &ErrNeedsRepair"), "takes the address of ErrNeedsRepair"},
		{"a given variable assigned in a tuple", stubWith(t, nil, "func init() { var e error; e, ErrNotImplemented = nil, nil; _ = e }"), "assigns to ErrNotImplemented"},
		{"an unsafe.Pointer made without importing unsafe, through sync/atomic and type inference",
			stubWith(t, []string{"sync/atomic"}, "func ptrTo[T any](func(*T, T) T) *T { return new(T) }\n\nvar smuggled = ptrTo(atomic.SwapPointer)"), "a value of type unsafe.Pointer"},
		{"sync/atomic's pointer functions", stubWith(t, []string{"sync/atomic"}, "var load = atomic.LoadPointer"), "a value of type unsafe.Pointer"},
		{"len declared at package level, which the given files' code would call", stubWith(t, nil, "func len(v any) int { return 0 }"), "len is predeclared by Go"},
		{"true and false made false", stubWith(t, nil, "const true, false = 1 == 2, 1 == 2"), "true is predeclared by Go"},
		{"append replaced", stubWith(t, nil, "func append[T any](s []T, v ...T) []T { return s }"), "append is predeclared by Go"},
		{"a type named error", stubWith(t, nil, "type error interface{ Error() string; X() }"), "error is predeclared by Go"},
		{"a 1 GiB array, which the compiler would write into the build cache", stubWith(t, nil, "var big = [1 << 30]byte{1, 1<<30 - 1: 7}"), "too large (at most 16 MiB)"},
		{"a huge array inside a generic type, made where it is instantiated", stubWith(t, nil, "type big[T any] struct{ a [1 << 30]T }\n\nvar hidden big[byte]"), "too large (at most 16 MiB)"},
		{"a constant string doubled to 2 MiB", stubWith(t, nil, "const a0 = \"xx\"\nconst a1 = a0 + a0\nconst a2 = a1 + a1\nconst a3 = a2 + a2\nconst a4 = a3 + a3\nconst a5 = a4 + a4\nconst a6 = a5 + a5\nconst a7 = a6 + a6\nconst a8 = a7 + a7\nconst a9 = a8 + a8\nconst b0 = a9 + a9\nconst b1 = b0 + b0\nconst b2 = b1 + b1\nconst b3 = b2 + b2\nconst b4 = b3 + b3\nconst b5 = b4 + b4\nconst b6 = b5 + b5\nconst b7 = b6 + b6\nconst b8 = b7 + b7\nconst b9 = b8 + b8\nconst c0 = b9 + b9\nvar _ = c0"), "a constant string of 2097152 bytes is too large"},
	}
	c := labChecker(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := c.Check(tc.src)
			var pe *Error
			require.True(t, errors.As(err, &pe), "Check(file with %s) = %v, want a *Error", tc.name, err)
			assert.Contains(t, pe.Error(), tc.problem, "Check(file with %s): the problem shown to the student", tc.name)
		})
	}
}

// What the static wall must not refuse: ordinary Go that a student writes.
func TestCheckerAllows(t *testing.T) {
	cases := map[string][]byte{
		"reading the given variables":                                       stubWith(t, []string{"errors"}, "func isTainted(err error) bool { return errors.Is(err, ErrTainted) || err == ErrNeedsRepair }"),
		"a local that shadows a given variable":                             stubWith(t, nil, "func shadow() { ErrTainted := 1; ErrTainted++ }"),
		"methods on the student's own types":                                stubWith(t, nil, "type stack []int\n\nfunc (s *stack) push(v int) { *s = append(*s, v) }"),
		"a sync.Pool, which holds an unsafe.Pointer in an unexported field": stubWith(t, []string{"sync"}, "var pool = sync.Pool{New: func() any { return new(int) }}"),
		"errors.As to *json.UnmarshalTypeError, whose reflect.Type has unexported methods leading to unsafe.Pointer": stubWith(t, []string{"encoding/json", "errors"}, "func isTypeErr(err error) bool { var te *json.UnmarshalTypeError; return errors.As(err, &te) && te.Type != nil }"),
		"typed atomics":                        stubWith(t, []string{"sync/atomic"}, "var n atomic.Int64\nvar p atomic.Pointer[SessionEntry]"),
		"generics":                             stubWith(t, nil, "func first[T any](xs []T) (T, bool) { var z T; if len(xs) == 0 { return z, false }; return xs[0], true }"),
		"a function named like a test":         stubWith(t, nil, "func TestLab10_1_Mine() {}\n\nfunc TestMain() {}"),
		"a helper named like a test helper":    stubWith(t, nil, "func parseLine(s string) string { return s }"),
		"a generic type holding its parameter": stubWith(t, nil, "type box[T any] struct{ v T; next *box[T] }\n\nfunc (b box[T]) get() T { return b.v }\n\nvar _ = box[[4]int]{}.get()"),
		"a fixed buffer of a few KiB":          stubWith(t, nil, "var scratch [64 << 10]byte"),
		"a package-level max, an old habit, where no given file says max": stubWith(t, nil, "func max(a, b int) int { if a > b { return a }; return b }"),
		"a local named like a builtin":                                    stubWith(t, nil, "func local() int { len, max := 1, 2; return len + max }"),
		"a method named like a builtin":                                   stubWith(t, nil, "type box []int\n\nfunc (b box) len() int { return len(b) }"),
	}
	c := labChecker(t)
	for name, src := range cases {
		assert.NoError(t, c.Check(src), "Check(file with %s)", name)
	}
}

// A file made to keep go/types busy for minutes (a chain of embedded
// structs: the work grows with the cube of its length) is rejected when the
// check's deadline passes, and the checker goes on checking other files.
func TestCheckerRejectsAFileItCannotCheckInTime(t *testing.T) {
	c := *labChecker(t)
	c.timeout = time.Second
	var b strings.Builder
	const depth = 2500 // about 20 s of type-checking on the course's CI machine
	for i := range depth {
		fmt.Fprintf(&b, "type chain%d struct{ chain%d }\n", i, i+1)
	}
	fmt.Fprintf(&b, "type chain%d struct{ X int }\nvar _ = chain0{}.X\n", depth)
	start := time.Now()
	err := c.Check(stubWith(t, nil, b.String()))
	took := time.Since(start)
	var pe *Error
	require.ErrorAs(t, err, &pe, "Check(a %d-deep chain of embedded structs) = %v, want a rejection", depth, err)
	assert.Contains(t, pe.Error(), "could not check this file within 1s")
	assert.Less(t, took, 30*time.Second, "Check took %s: the helper was not killed at its deadline", took)
	assert.NoError(t, c.Check(stubSource(t)), "after a timeout, the checker still checks the stub")
}

// TestCheckerRefusesGoroutinesInASequentialLab: lab 4's manifest says its
// file needs no goroutines, so the checker refuses every way of starting
// one or sharing memory between them; the lab's stub and solution pass.
func TestCheckerRefusesGoroutinesInASequentialLab(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	l, err := cat.Lookup("4")
	require.NoError(t, err)
	require.True(t, l.Sequential, "lab 4's manifest must say \"sequential\": true")
	given, err := l.GivenFiles()
	require.NoError(t, err)
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	c, err := New(l.Editable[0], l.Package, l.GoVersion(), given, goBin, goenv.Env(false))
	require.NoError(t, err)
	c.Sequential = l.Sequential

	stub, err := l.Stub()
	require.NoError(t, err)
	with := func(imports []string, code string) []byte {
		src := string(stub)
		if len(imports) > 0 {
			var b strings.Builder
			for _, p := range imports {
				b.WriteString("import \"" + p + "\"\n")
			}
			src = strings.Replace(src, "import \"fmt\"\n", "import \"fmt\"\n"+b.String(), 1)
		}
		return []byte(src + "\n" + code + "\n")
	}
	assert.NoError(t, c.Check(stub), "Check(lab 4's stub)")
	assert.NoError(t, c.Check(releasetest.Solution(t, l)), "Check(lab 4's reference solution)")

	cases := []struct {
		name    string
		src     []byte
		problem string
	}{
		{"a go statement", with(nil, "func init() { go func() {}() }"), "go statement: this lab needs no goroutines"},
		{"sync", with([]string{"sync"}, "var mu sync.Mutex"), `import "sync": this lab needs no goroutines`},
		{"sync/atomic", with([]string{"sync/atomic"}, "var n atomic.Int64"), `import "sync/atomic": this lab needs no goroutines`},
		{"time.AfterFunc called", with([]string{"time"}, "func init() { time.AfterFunc(0, func() {}) }"), "time.AfterFunc runs its function on a goroutine of its own"},
		{"time.AfterFunc as a value", with([]string{"time"}, "var later = time.AfterFunc"), "time.AfterFunc runs its function on a goroutine of its own"},
		{"context.AfterFunc", with([]string{"context"}, "func init() { context.AfterFunc(context.Background(), func() {}) }"), `import "context": this lab needs no goroutines`},
		// context.WithCancel of a parent the file defines calls the
		// parent's Done on a goroutine of the context package's own.
		{"a Context of the file's own type", with([]string{"context", "time"}, "type bg struct{}\n\n"+
			"func (bg) Deadline() (time.Time, bool) { return time.Time{}, false }\n"+
			"func (bg) Done() <-chan struct{}       { return nil }\n"+
			"func (bg) Err() error                  { return nil }\n"+
			"func (bg) Value(any) any               { return nil }\n\n"+
			"func init() { _, cancel := context.WithCancel(bg{}); cancel() }"), `import "context": this lab needs no goroutines`},
	}
	for _, tc := range cases {
		err := c.Check(tc.src)
		var pe *Error
		if assert.True(t, errors.As(err, &pe), "Check(lab 4 file with %s) = %v, want a *Error", tc.name, err) {
			assert.Contains(t, pe.Error(), tc.problem, "Check(lab 4 file with %s): the problem shown to the student", tc.name)
		}
	}
	// The same file in a lab that teaches concurrency is fine.
	c.Sequential = false
	assert.NoError(t, c.Check(with([]string{"sync"}, "var mu sync.Mutex\n\nfunc init() { go func() { mu.Lock(); mu.Unlock() }() }")), "Check(a go statement and sync in a lab that is not sequential)")
}

// TestCheckerBoundsWhatATypeErrorSays: a few hundred bytes of generics
// make go/types name a type megabytes long in one message; each problem is
// cut to a bound, so a rejection stays small and is reported, not lost.
func TestCheckerBoundsWhatATypeErrorSays(t *testing.T) {
	call := "0"
	for range 16 {
		call = "dup(" + call + ")"
	}
	code := "type P[A, B any] struct {\n\ta A\n\tb B\n}\n\nfunc dup[T any](x T) P[T, T] { return P[T, T]{x, x} }\n\nvar bad0 int = " + call + "\n"
	err := labChecker(t).Check(stubWith(t, nil, code))
	var pe *Error
	require.ErrorAs(t, err, &pe, "Check(a 16-deep generic type error) = %v, want a rejection", err)
	require.True(t, pe.CompileOnly(), "a type error: %v", err)
	assert.Contains(t, pe.Error(), "does not type-check")
	assert.Less(t, len(pe.Error()), 4<<10, "what the rejection says is bounded: %d bytes", len(pe.Error()))
}
