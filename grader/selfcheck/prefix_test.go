package selfcheck

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryExportedFunctionHasAnExercise: the stub of every lab puts each
// exported function and method in the section of one exercise, and the
// solution exports nothing else.
func TestEveryExportedFunctionHasAnExercise(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	for _, l := range cat.Labs() {
		stub, err := l.Stub()
		require.NoError(t, err)
		sections, err := Sections(l, stub)
		require.NoError(t, err, "lab %s", l.Chapter)
		assert.NotEmpty(t, sections, "lab %s", l.Chapter)
		sol := releasetest.Solution(t, l)
		for _, e := range l.Exercises {
			src, err := Prefix(l, sol, stub, e.ID)
			require.NoError(t, err, "lab %s up to %s", l.Chapter, e.ID)
			_, err = parser.ParseFile(token.NewFileSet(), "prefix.go", src, 0)
			require.NoError(t, err, "lab %s up to %s", l.Chapter, e.ID)
		}
	}
}

// TestPrefixStubsOutTheLaterExercises: up to the first exercise, every
// later exported function has the stub's body; the last exercise keeps
// the whole solution.
func TestPrefixStubsOutTheLaterExercises(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	l, err := cat.Lookup("4")
	require.NoError(t, err)
	stub, err := l.Stub()
	require.NoError(t, err)
	sol := releasetest.Solution(t, l)

	first, err := Prefix(l, sol, stub, "4.1")
	require.NoError(t, err)
	s := string(first)
	assert.Contains(t, s, `notImplemented("4.2", "PathTo")`, "PathTo is the stub's")
	assert.Contains(t, s, `notImplemented("4.3", "SessionLog.Append")`, "Append is the stub's")
	assert.Contains(t, s, `strings.Split(text, "\n")`, "Recover is the solution's")
	assert.Contains(t, s, `"fmt"`, "the stub's notImplemented needs fmt")
	assert.NotContains(t, s, `"slices"`, "only the later exercises used slices: the import goes with them")

	last, err := Prefix(l, sol, stub, "4.4")
	require.NoError(t, err)
	assert.NotContains(t, string(last), `notImplemented("`, "nothing of the solution is stubbed out")
}

// TestSectionsFailClosed: a function the sections do not place, a section
// of no exercise, and an exported function of the solution that the stub
// does not have are errors, never a function silently kept or stubbed.
func TestSectionsFailClosed(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	l, err := cat.Lookup("4")
	require.NoError(t, err)
	stub, err := l.Stub()
	require.NoError(t, err)
	sol := releasetest.Solution(t, l)
	s := string(stub)

	before := strings.Replace(s, "// ---- 4.1 ---", "// ---- 4.1 --- see below\n\nfunc Early() {}\n\n// -", 1)
	before = strings.Replace(before, "// ---- 4.1 --- see below\n\nfunc Early() {}\n\n// -", "func Early() {}\n\n// ---- 4.1 ---", 1)
	_, err = Sections(l, []byte(before))
	var se *SectionError
	require.ErrorAs(t, err, &se, "a function before every section")
	assert.Contains(t, err.Error(), "Early comes before any")

	_, err = Sections(l, []byte(strings.Replace(s, "// ---- 4.2 ---", "// ---- 4.9 ---", 1)))
	require.ErrorAs(t, err, &se, "a section of no exercise")
	assert.Contains(t, err.Error(), "section 4.9 is not an exercise of chapter 4")

	_, err = Sections(l, []byte(strings.Replace(s, "// ---- 4.2 ---", "// ---- 4.1 ---", 1)))
	require.ErrorAs(t, err, &se, "an exercise without a section")
	assert.Contains(t, err.Error(), "exercise 4.2 has no section")

	extra := string(sol) + "\n// Extra is not in the stub.\nfunc Extra() {}\n"
	_, err = Prefix(l, []byte(extra), stub, "4.1")
	require.ErrorAs(t, err, &se, "a solution function the stub does not have")
	assert.Contains(t, err.Error(), "Extra is exported but the stub declares it in no section")
}
