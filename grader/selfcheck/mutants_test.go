package selfcheck

import (
	"go/parser"
	"go/token"
	"testing"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/solutions"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMutantsApply checks every kept mutant: it names a real exercise,
// applies cleanly to the current reference solution, and still parses, so
// that the self-check tests a mistake and not a syntax error.
func TestMutantsApply(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	for _, l := range cat.Labs() {
		sol := releasetest.Solution(t, l) // skips in a student release, which has none
		mutants, err := LoadMutants(solutions.FS, l.Slug+"/mutants")
		require.NoError(t, err)
		require.NotEmpty(t, mutants, "lab %s keeps no mutants", l.Chapter)
		for _, m := range mutants {
			_, err := l.Exercise(m.Exercise)
			assert.NoError(t, err, "mutant %s names exercise %q", m.ID, m.Exercise)
			src, err := m.Apply(sol)
			if !assert.NoError(t, err, "mutant %s", m.ID) {
				continue
			}
			_, err = parser.ParseFile(token.NewFileSet(), m.ID+".go", src, 0)
			assert.NoError(t, err, "mutant %s does not parse after applying", m.ID)
		}
	}
}
