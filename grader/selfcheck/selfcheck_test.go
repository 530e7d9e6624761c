package selfcheck

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSelfcheck is the course's proof that its tests tell right from wrong,
// run on every CI run: the stub fails every test, the reference and the
// alternative solutions pass every test under -race (and their fuzz seeds),
// and every mutant fails a test of the exercise it breaks.
func TestSelfcheck(t *testing.T) {
	if testing.Short() {
		t.Skip("grades every mutant and solution")
	}
	cat, err := lab.Load()
	require.NoError(t, err)
	for _, l := range cat.Labs() {
		releasetest.Solution(t, l) // skips in a student release, which has none
		sum, err := Run(context.Background(), Options{Lab: l})
		require.NoError(t, err)
		var bad []string
		for _, r := range sum.Results {
			if !r.OK {
				bad = append(bad, fmt.Sprintf("%s %s: %s", r.Kind, r.Name, r.Detail))
			}
		}
		killed, mutants := sum.Counts(KindMutant)
		alts, altTotal := sum.Counts(KindAlternative)
		alone, prefixes := sum.Counts(KindPrefix)
		failing, total := sum.StubTests()
		t.Logf("lab %s: mutants killed %d/%d, alternatives accepted %d/%d, exercises passing without the later ones %d/%d, stub tests failing %d/%d (%.0fs)",
			l.Chapter, killed, mutants, alts, altTotal, alone, prefixes, failing, total, sum.Seconds)
		require.Empty(t, bad, "lab %s self-check found problems:\n%s", l.Chapter, strings.Join(bad, "\n"))
		require.GreaterOrEqual(t, mutants, 3*len(l.Exercises), "lab %s keeps fewer than three mutants per exercise", l.Chapter)
		require.Equal(t, len(l.Exercises)-1, prefixes, "lab %s: one solution without the later exercises per exercise but the last", l.Chapter)
	}
}

// TestEachCandidateIsGradedOnWhatJudgesIt: the stub and the solutions on
// every exercise, a mutant only on the exercise it names, since only that
// exercise's tests judge it.
func TestEachCandidateIsGradedOnWhatJudgesIt(t *testing.T) {
	for _, tc := range []struct {
		c    Candidate
		want graderKey
	}{
		{Candidate{Kind: KindStub, Name: "stub"}, graderKey{}},
		{Candidate{Kind: KindSolution, Name: "reference"}, graderKey{}},
		{Candidate{Kind: KindAlternative, Name: "worker"}, graderKey{}},
		{Candidate{Kind: KindMutant, Name: "7.2-off-by-one", Exercise: "7.2"}, graderKey{exercise: "7.2"}},
		{Candidate{Kind: KindPrefix, Name: "up to 7.1", Exercise: "7.1"}, graderKey{exercise: "7.1"}},
	} {
		assert.Equal(t, tc.want, graderFor(tc.c), "graderFor(%s %s)", tc.c.Kind, tc.c.Name)
	}
}
