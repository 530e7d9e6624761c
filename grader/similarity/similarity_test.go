package similarity_test

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/similarity"
	"github.com/coursekit/course/solutions"
)

// labFiles are a lab's stub and its independent solutions (the reference
// and the alternatives), by name.
type labFiles struct {
	stub      []byte
	solutions map[string][]byte
	names     []string // "reference" first, then the alternatives
}

func filesOf(t testing.TB, chapter string) labFiles {
	t.Helper()
	c, err := lab.Load()
	require.NoError(t, err)
	l, err := c.Lookup(chapter)
	require.NoError(t, err)
	stub, err := l.Stub()
	require.NoError(t, err)
	ref, err := l.Solution()
	if errors.Is(err, lab.ErrNoSolution) {
		t.Skip("a student release: no solutions")
	}
	require.NoError(t, err)
	out := labFiles{stub: stub, solutions: map[string][]byte{"reference": ref}, names: []string{"reference"}}
	alts, err := fs.Glob(solutions.FS, path.Join(l.Slug, "alternatives", "*", l.Editable[0]))
	require.NoError(t, err)
	require.NotEmpty(t, alts, "lab %s has alternative solutions", chapter)
	for _, p := range alts {
		src, err := fs.ReadFile(solutions.FS, p)
		require.NoError(t, err)
		name := path.Base(path.Dir(p))
		out.solutions[name] = src
		out.names = append(out.names, name)
	}
	return out
}

// compare indexes srcs (name, source, name, source...) with stub.
func compare(t testing.TB, stub []byte, srcs ...any) *similarity.Result {
	t.Helper()
	x, err := similarity.NewIndex(similarity.Options{Stub: stub})
	require.NoError(t, err)
	for i := 0; i < len(srcs); i += 2 {
		require.NoError(t, x.Add(srcs[i].(string), srcs[i+1].([]byte)))
	}
	return x.Compare()
}

func names(r *similarity.Result, p similarity.Pair) string {
	return r.Name(p.A) + "~" + r.Name(p.B)
}

func TestSimilarDisguisedCopyRanksAboveEveryIndependentPair(t *testing.T) {
	for _, chapter := range []string{"4", "10", "11"} {
		t.Run("lab"+chapter, func(t *testing.T) {
			f := filesOf(t, chapter)
			var srcs []any
			for _, n := range f.names {
				srcs = append(srcs, n, f.solutions[n])
			}
			copied := disguise(t, f.solutions["reference"], 42)
			for _, c := range commentsOf(t, f.solutions["reference"]) {
				require.False(t, strings.Contains(string(copied), c), "the comments are the copier's own: %q is not", c)
			}
			srcs = append(srcs, "copy", copied, "stub", f.stub)
			r := compare(t, f.stub, srcs...)

			require.NotEmpty(t, r.Pairs)
			top := r.Pairs[0]
			assert.Equal(t, "reference~copy", names(r, top), "the copy and its source are the top pair")
			assert.Greater(t, top.Score, 0.95, "renaming, reordering and reformatting keep nearly all of a copy")
			t.Logf("%s: %.3f", names(r, top), top.Score)
			for _, p := range r.Pairs[1:] {
				if n := names(r, p); !strings.Contains(n, "copy") && !strings.Contains(n, "stub") {
					t.Logf("%s: %.3f", n, p.Score)
					assert.Less(t, p.Score, top.Score-0.25, "the independent pair %s is far below the copy", n)
				}
			}
		})
	}
}

func TestSimilarUntouchedStubsShareNothing(t *testing.T) {
	f := filesOf(t, "10")
	r := compare(t, f.stub, "ann", f.stub, "bob", f.stub, "cid", f.solutions["reference"])
	for _, p := range r.Pairs {
		assert.NotEqual(t, "ann~bob", names(r, p), "two stubs share only the stub's code")
	}
	assert.Zero(t, r.Tokens(0), "nothing of a stub is the student's own")
}

func TestSimilarStubCodeIsLeftOutOfScores(t *testing.T) {
	stub := []byte("package p\n\nfunc Solve(xs []int) int {\n\tpanic(\"TODO\")\n}\n\nfunc helper(a, b string) (string, error) {\n\treturn a + b, nil\n}\n")
	body := "package p\n\nfunc Solve(xs []int) int {\n\tn := 0\n\tfor i, x := range xs {\n\t\tif x > i*2 {\n\t\t\tn += x % 7\n\t\t}\n\t}\n\treturn n\n}\n\nfunc helper(a, b string) (string, error) {\n\treturn a + b, nil\n}\n"
	r := compare(t, []byte(stub), "ann", []byte(body), "bob", []byte(body))
	require.Len(t, r.Pairs, 1)
	p := r.Pairs[0]
	assert.InDelta(t, 1.0, p.Score, 0.001, "what they share beyond the stub is all their own code")
	assert.Less(t, r.Tokens(0), 45, "helper, the stub's, is not counted")
}

func TestSimilarCommonCodeIsIgnored(t *testing.T) {
	common := "\tfor i := 0; i < len(xs); i++ {\n\t\tif xs[i] == nil {\n\t\t\treturn errors.New(\"nil\")\n\t\t}\n\t}\n"
	file := func(body string) []byte {
		return []byte("package p\n\nfunc F(xs []any, m map[int]string) error {\n\tn := 0\n" + body + "\treturn nil\n}\n")
	}
	var srcs []any
	for i := range 8 {
		srcs = append(srcs, fmt.Sprintf("s%d", i), file(common+randomStatements(uint64(i))))
	}
	srcs = append(srcs, "twin", file(common+randomStatements(5)))
	r := compare(t, nil, srcs...)
	assert.Equal(t, 3, r.CommonLimit)
	assert.Positive(t, r.Common, "the loop all of them have is common")
	require.NotEmpty(t, r.Pairs)
	assert.Equal(t, "s5~twin", names(r, r.Pairs[0]))
	assert.Greater(t, r.Pairs[0].Score, 0.7, "all but the common loop")
	for _, p := range r.Pairs[1:] {
		assert.Less(t, p.Score, 0.3, "%s share little but the common loop", names(r, p))
	}
}

func TestSimilarRegionsAreTheSharedLines(t *testing.T) {
	fn := "func Parse(s string) (map[string]int, error) {\n\tout := map[string]int{}\n\tfor _, f := range strings.Fields(s) {\n\t\tk, v, ok := strings.Cut(f, \"=\")\n\t\tif !ok {\n\t\t\treturn nil, fmt.Errorf(\"no = in %q\", f)\n\t\t}\n\t\tn, err := strconv.Atoi(v)\n\t\tif err != nil {\n\t\t\treturn nil, err\n\t\t}\n\t\tout[k] = n\n\t}\n\treturn out, nil\n}\n"
	a := "package p\n\nconst limit = 10\n\n" + fn // Parse on lines 5-19
	b := "package p\n\n// Other comes first.\nfunc Other(xs []int) int {\n\tif len(xs) > 3 {\n\t\treturn xs[0] * xs[1]\n\t}\n\treturn -1\n}\n\n" +
		strings.ReplaceAll(fn, "out", "res") // Parse on lines 11-25
	r := compare(t, nil, "a", []byte(a), "b", []byte(b))
	require.Len(t, r.Pairs, 1)
	regions := r.Regions(r.Pairs[0])
	require.Len(t, regions, 1, "%+v", regions)
	g := regions[0]
	assert.Equal(t, [2]int{5, 19}, [2]int{g.A.StartLine, g.A.EndLine})
	assert.Equal(t, [2]int{11, 25}, [2]int{g.B.StartLine, g.B.EndLine})
	assert.Equal(t, "func Parse(", a[g.A.Start:g.A.Start+11])
	assert.Equal(t, "}", a[g.A.End-1:g.A.End])
}

func TestSimilarBadSourceIsRefusedAndTheOthersCompared(t *testing.T) {
	f := filesOf(t, "4")
	x, err := similarity.NewIndex(similarity.Options{Stub: f.stub})
	require.NoError(t, err)
	require.NoError(t, x.Add("ann", f.solutions["reference"]))
	err = x.Add("bob", []byte("package p\x00\n"))
	assert.ErrorIs(t, err, similarity.ErrTokenize)
	require.NoError(t, x.Add("cid", f.solutions["reference"]))
	r := x.Compare()
	assert.Equal(t, 2, x.Len())
	require.Len(t, r.Pairs, 1)
	assert.Equal(t, "ann~cid", names(r, r.Pairs[0]))
	assert.Greater(t, r.Pairs[0].Score, 0.98, "the same file, but for a few tokens at the ends of its own code")
}

// randomStatements returns 20 statements of 160 shapes, drawn by seed:
// code that no other seed writes the same.
func randomStatements(seed uint64) string {
	ops := []string{"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
	lits := []string{"1", "2.5", `"s"`, "'c'"}
	wraps := []string{"\t%s\n", "\tif ok {\n\t\t%s\n\t}\n", "\tfor range xs {\n\t\t%s\n\t}\n", "\tdefer func() { %s }()\n"}
	rng := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	for range 20 {
		stmt := "n " + ops[rng.IntN(len(ops))] + " " + lits[rng.IntN(len(lits))]
		fmt.Fprintf(&b, wraps[rng.IntN(len(wraps))], stmt)
	}
	return b.String()
}

func TestSimilarScoresOnlyPairsThatShareAFingerprint(t *testing.T) {
	var srcs []any
	for i := range 30 {
		src := []byte("package p\n\nfunc F() {\n" + randomStatements(uint64(100+i/2)) + "}\n")
		srcs = append(srcs, fmt.Sprintf("s%02d", i), src) // s00 and s01 alike, s02 and s03...
	}
	r := compare(t, nil, srcs...)
	require.Len(t, r.Pairs, 15, "the twins, and no other of the 435 pairs")
	for _, p := range r.Pairs {
		assert.Equal(t, p.A/2, p.B/2, "%s", names(r, p))
		assert.Greater(t, p.Score, 0.85, "all but the few tokens at the ends, which no fingerprint starts in")
	}
	shared := 0
	for _, p := range r.Pairs {
		shared += p.Shared
	}
	assert.Equal(t, shared, r.Visits, "each step of the scoring is a fingerprint that a scored pair shares")
}
