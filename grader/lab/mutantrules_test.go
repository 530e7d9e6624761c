package lab_test

import (
	"testing"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryRuleHasAMutant holds the course to proving each rule's tests bite:
// at least one kept mutant names every rule (course selfcheck then proves a
// test of that rule catches it).
func TestEveryRuleHasAMutant(t *testing.T) {
	releasetest.SkipInRelease(t, "no mutants")
	cat, err := lab.Load()
	require.NoError(t, err)
	for _, l := range cat.Labs() {
		rules, err := l.Rules()
		require.NoError(t, err)
		mutants, err := l.MutantRules()
		require.NoError(t, err)
		for _, r := range rules {
			assert.NotEmpty(t, mutants[r.ID], "rule %s has no mutant in solutions/%s/mutants naming it (Rules: %s): %s", r.ID, l.Slug, r.ID, r.Text)
		}
	}
}
