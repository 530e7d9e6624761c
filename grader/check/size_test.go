package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coursekit/course/grader/internal/goenv"
	"github.com/coursekit/course/grader/internal/staticcheck"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/solutions"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// doubling declares the constant string name of 1<<log2 bytes in a few
// lines: each constant is the one before twice.
func doubling(name string, log2 int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "const %s1 = \"ab\"\n", name)
	for i := 2; i <= log2; i++ {
		fmt.Fprintf(&b, "const %s%d = %s%d + %s%d\n", name, i, name, i-1, name, i-1)
	}
	return b.String()
}

// lines joins code lines made by format for i from 0 to n-1.
func lines(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}

// lineOf is the number of the first line of src that holds marker.
func lineOf(t *testing.T, src []byte, marker string) int {
	t.Helper()
	i := strings.Index(string(src), marker)
	require.GreaterOrEqual(t, i, 0, "the fixture has no line holding %q", marker)
	return strings.Count(string(src[:i]), "\n") + 1
}

// Every way to make the compiler lay out more static data than the bounds
// allow, each with the line the student is shown and the size it names.
func TestCheckerRejectsStaticDataOverTheBounds(t *testing.T) {
	map40 := "var m = map[int][32 << 10]byte{" + strings.TrimSuffix(lines(40, "%d: {1},"), "\n") + "}"
	cases := []struct {
		name, code, marker, problem string
	}{
		{"a keyed slice literal: the backing array up to its largest index (the attack that got through)",
			"var x = []byte{250 << 20: 1}", "var x", "variable x lays out 262144025 bytes (250.0 MiB) of static data"},
		{"a constant index expression", "const far = 3 << 19\n\nvar x = []int{far * 2: 1}", "var x", "variable x lays out 25165856 bytes (24.0 MiB)"},
		{"a [...]T array", "var x = [...]byte{2 << 20: 1}", "var x", "variable x lays out 2097153 bytes (2.0 MiB)"},
		{"a map literal: entries times key and value", map40, "var m", "variable m lays out 1311048 bytes (1.3 MiB)"},
		{"a slice of keyed slices: the sum over the tree, though each is under the bound",
			"var x = [][]byte{{600 << 10: 1}, {600 << 10: 1}}", "var x", "variable x lays out 1228874 bytes (1.2 MiB)"},
		{"a struct of arrays", "var x = struct{ a, b [600 << 10]byte }{a: [600 << 10]byte{1}}", "var x", "variable x lays out 1228800 bytes (1.2 MiB)"},
		{"an array of structs in a function", "func table() any { return [3000]struct{ s [400]byte }{2999: {s: [400]byte{1}}} }",
			"func table", "the [3000]struct{s [400]byte} literal lays out 1200000 bytes (1.1 MiB)"},
		{"an array in an interface slot, boxed apart from the slice", "var x = []any{[1 << 20]byte{1<<20 - 1: 1}}",
			"var x", "variable x lays out 1048616 bytes (1.0 MiB)"},
		{"an array in a struct's interface field", "var x = struct{ v any }{v: [1 << 20]byte{1}}", "var x", "variable x lays out 1048592 bytes (1.0 MiB)"},
		{"a package variable boxed in interfaces: each box a static copy", "var big = [600 << 10]byte{1}\n\nvar boxed = []any{big, big}",
			"var boxed", "variable boxed lays out 1228856 bytes (1.2 MiB)"},
		{"an array of arrays", "var x = [1 << 10][1 << 11]byte{1023: {2047: 1}}", "var x", "variable x lays out 2097152 bytes (2.0 MiB)"},
		{"a function's local array literal", "func local() []byte { x := [2 << 20]byte{2<<20 - 1: 1}; return x[:] }",
			"func local", "the [2097152]byte literal lays out 2097152 bytes (2.0 MiB)"},
		{"[]byte of a constant: the string and the backing array", doubling("k", 19) + "\nvar x = []byte(k19 + k18)",
			"var x", "variable x lays out 1572888 bytes (1.5 MiB)"},
		{"[]rune of a constant: four bytes a rune", doubling("k", 18) + "\nvar x = []rune(k18 + k16)",
			"var x", "variable x lays out 1638424 bytes (1.6 MiB)"},
		{"a concatenation of constants over 1 MiB", doubling("k", 20) + "\nvar s = k20 + \"x\"",
			"var s", "a constant string of 1048577 bytes is too large"},
		{"a 1 MiB constant used in five places: each use counts", doubling("k", 20) + "\n" + lines(5, "func use%d() string { return k20 }"),
			"func use3", "a constant string (1048576 bytes) brings the file's static data to"},
		{"[N]T in a generic type, sized where it is instantiated", "type big[T any] struct{ a [1 << 21]T }\n\nvar x = big[byte]{a: [1 << 21]byte{1}}",
			"var x", "variable x lays out 2097152 bytes (2.0 MiB)"},
		{"a literal in a generic function, laid out once per instance",
			"func table[T any]() []byte { x := [600 << 10]byte{1}; return x[:] }\n\nvar _, _, _, _, _, _, _, _ = table[int], table[int8], table[int16], table[int32], table[uint], table[uint8], table[string], table[bool]",
			"func table", "the [614400]byte literal (614400 bytes in generic code compiled up to 8 times) brings the file's static data to"},
		{"a literal whose type depends on a type parameter, sized for the largest type argument",
			"func fill[T any]() any { return [1 << 16]struct{ t T; b byte }{1<<16 - 1: {b: 1}} }\n\nvar _ = fill[[32]byte]",
			"func fill", "the [65536]struct{t T; b byte} literal lays out 3604480 bytes (3.4 MiB)"},
		{"five 900 KiB tables: the file's total", lines(5, "var a%d = [900 << 10]byte{1}"), "var a4", "variable a4 (921600 bytes) brings the file's static data to"},
		{"five 900 KiB zero variables: counted too", lines(5, "var b%d [900 << 10]byte"), "var b4", "variable b4 (921600 bytes) brings the file's static data to"},
		{"a size that overflows 64 bits", "var x = []int64{1 << 62: 1}", "var x", "the grader cannot size the composite literal []int64{…}: its size overflows 64 bits"},
		{"a type whose size overflows 64 bits", "var x [1 << 62]int64", "var x", "the grader cannot size a value of type [4611686018427387904]int64"},
		{"a non-constant index", "var i = 3\n\nvar x = []byte{i: 1}", "var x", "does not type-check: index i must be integer constant"},
		{"generic functions passing ever larger types on", "func g0[T any]() { g1[[1 << 13]T]() }\n\nfunc g1[T any]() { g2[[1 << 13]T]() }\n\nfunc g2[T any]() { var x T; _ = x }\n\nvar _ = g0[byte]",
			"func g1", "g2 is instantiated with [8192]T, which may take 67108864 bytes (64.0 MiB): too large (at most 16 MiB)"},
		{"generic functions with exponentially many instances", instanceChain(11), "type A[T any]", "the file's generic code is compiled up to 2047 times by here"},
	}
	c := labChecker(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := stubWith(t, nil, tc.code)
			err := c.Check(src)
			var pe *Error
			require.True(t, errors.As(err, &pe), "Check(file with %s) = %v, want a *Error", tc.name, err)
			want := fmt.Sprintf("session.go:%d: ", lineOf(t, src, tc.marker))
			found := false
			for _, v := range pe.Violations {
				found = found || strings.Contains(v.In("session.go"), want) && strings.Contains(v.Problem, tc.problem)
			}
			assert.True(t, found, "Check(file with %s) said:\n%v\nwant a line starting %q saying %q", tc.name, pe, want, tc.problem)
		})
	}
}

// instanceChain is depth generic functions, each instantiating the next
// with two new types: 2^depth instances of the last.
func instanceChain(depth int) string {
	var b strings.Builder
	b.WriteString("type A[T any] struct{ x T }\n\ntype B[T any] struct{ y T }\n\n")
	for i := range depth {
		fmt.Fprintf(&b, "func f%d[T any]() { f%d[A[T]](); f%d[B[T]]() }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "func f%d[T any]() {}\n\nvar _ = f0[int]", depth)
	return b.String()
}

// worstAccepted is what the cache test builds: static data just under
// every bound, in each of the forms that reach the object file whole.
func worstAccepted() string {
	return doubling("k", 20) + `
var w1 = []byte{1<<20 - 25: 1}

func w2() string { return k20 }

var w3 = [1 << 20]byte{1<<20 - 1: 1}

func w4[T any]() []byte { x := [250 << 10]byte{250<<10 - 1: 1}; return x[:] }

var _, _, _, _ = w4[int8], w4[int16], w4[int32], w4[int64]

var w5 = new([8 << 20]byte)

var w6 = make([]byte, 64<<20)
`
}

// What the bounds must not refuse: the small tables a lab file has, and the
// run-time allocations (new, make) that the run's memory limit bounds.
func TestCheckerAllowsSmallStaticData(t *testing.T) {
	cases := map[string]string{
		"a few small tables": `var hexDigits = [16]byte{'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'}

var kinds = map[string]int{` + strings.ReplaceAll(lines(30, `"k%[1]d": %[1]d,`), "\n", " ") + `}

var names = []string{"user", "assistant", "tool", "system"}

var scratch [64 << 10]byte`,
		"new and make of constant sizes at package level: run-time allocations, not static data": "var p = new([8 << 20]byte)\n\nvar q = make([]byte, 64<<20)",
		"generic code whose type and functions instantiate each other": `type set[T comparable] map[T]bool

func (s set[T]) union(o set[T]) set[T] { return merge(s, o) }

func merge[T comparable](a, b set[T]) set[T] {
	r := set[T]{}
	for k := range a {
		r[k] = true
	}
	for k := range b {
		r[k] = true
	}
	return r
}

var _ = set[int]{1: true}.union(set[int]{2: true})`,
		"the worst file the cache test builds": worstAccepted(),
	}
	c := labChecker(t)
	for name, code := range cases {
		assert.NoError(t, c.Check(stubWith(t, nil, code)), "Check(file with %s)", name)
	}
}

// Every lab's stub, reference solution and alternative solutions pass the
// static wall.
func TestCheckerAcceptsEveryLabsSolutions(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	for _, l := range cat.Labs() {
		t.Run(l.Chapter, func(t *testing.T) {
			given, err := l.GivenFiles()
			require.NoError(t, err)
			c, err := New(l.Editable[0], l.Package, l.GoVersion(), given, goBin, goenv.Env(false))
			require.NoError(t, err)
			stub, err := l.Stub()
			require.NoError(t, err)
			assert.NoError(t, c.Check(stub), "lab %s: the stub", l.Chapter)
			assert.NoError(t, c.Check(releasetest.Solution(t, l)), "lab %s: the reference solution", l.Chapter)
			alts, _ := fs.Glob(solutions.FS, path.Join(l.Slug, "alternatives", "*", l.Editable[0]))
			for _, alt := range alts {
				src, err := fs.ReadFile(solutions.FS, alt)
				require.NoError(t, err)
				assert.NoError(t, c.Check(src), "lab %s: the alternative solution %s", l.Chapter, alt)
			}
			t.Logf("lab %s: the stub, the reference solution and %d alternatives", l.Chapter, len(alts))
		})
	}
}

// TestCheckerBoundsWhatABuildWrites: the static data of the worst file the
// checker accepts makes its build, as grading builds it, write at most the
// total bound more than an honest file's does: measured on the compiled
// package, where that data lands (the linker would drop it from the test
// binary, since nothing uses it). No grading build writes a shared cache
// at all: TestBuildsLeaveNothingInTheSharedCache.
func TestCheckerBoundsWhatABuildWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles the lab twice")
	}
	worst := stubWith(t, nil, worstAccepted())
	require.NoError(t, labChecker(t).Check(worst), "the worst file must pass the checker, or it proves nothing")
	honest := compiled(t, stubWith(t, nil, `var honest = []string{"a declaration the cache has not seen"}`))
	added := compiled(t, worst) - honest
	t.Logf("the worst accepted file compiles to %d bytes (%.2f MiB) more than an honest one", added, float64(added)/(1<<20))
	assert.LessOrEqual(t, added, int64(staticcheck.MaxStaticTotal+1<<20),
		"the worst accepted file's package is %d bytes larger than an honest one's: want at most %d", added, staticcheck.MaxStaticTotal+1<<20)
}

// compiled compiles the lab's package with src as grading does (the
// grader's compiler flags and environment) and returns the size of the
// package's compiled archive.
func compiled(t *testing.T, src []byte) int64 {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src")
	require.NoError(t, testLab(t).WriteGradingDir(dir, src, true))
	cmd := exec.Command("go", "list", "-export", "-trimpath", "-gcflags=-N -l -dwarf=false", "-f", "{{.Export}}", ".")
	cmd.Dir = dir
	cmd.Env = goenv.Env(false)
	out, err := cmd.Output()
	require.NoError(t, err, "go list -export: %s", out)
	fi, err := os.Stat(strings.TrimSpace(string(out)))
	require.NoError(t, err)
	return fi.Size()
}
