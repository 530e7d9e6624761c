package grader

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/submission"
)

func perTestReport(statuses ...string) report.ExerciseReport {
	er := report.ExerciseReport{ID: "1.1", MaxPoints: 10}
	for i, s := range statuses {
		er.Tests = append(er.Tests, report.TestReport{Name: "TestLab1_1_" + string(rune('A'+i)), Status: s})
	}
	return er
}

// A pass earns its share; a pass from a run that imitated the test runner
// earns nothing; the exercise's points are what its tests earned.
func TestScorePerTestEarnsPassedShares(t *testing.T) {
	ex := lab.Exercise{ID: "1.1", TestPrefix: "TestLab1_1_", Points: 10, Scoring: lab.ScorePerTest, Weights: map[string]int{"TestLab1_1_A": 2}}
	er := perTestReport(report.StatusPass, report.StatusFail, report.StatusPass, report.StatusNoEnd)
	er.Tests[2].Void = true
	report.Score(ex, &er)
	assert.Equal(t, lab.ScorePerTest, er.Scoring)
	worth, got := []float64{}, []float64{}
	for _, tr := range er.Tests {
		require.NotNil(t, tr.Points)
		require.NotNil(t, tr.MaxPoints)
		worth, got = append(worth, *tr.MaxPoints), append(got, *tr.Points)
	}
	assert.Equal(t, []float64{4, 2, 2, 2}, worth, "weights 2,1,1,1 share 10 points")
	assert.Equal(t, []float64{4, 0, 0, 0}, got, "only A passed in a trustworthy run")
	assert.Equal(t, 4.0, er.Points)

	// 10 points among 3 tests: shares in hundredths; all passing is all 10.
	er = perTestReport(report.StatusPass, report.StatusPass, report.StatusFail)
	report.Score(lab.Exercise{ID: "1.1", Points: 10, Scoring: lab.ScorePerTest}, &er)
	assert.Equal(t, 3.33, *er.Tests[0].MaxPoints)
	assert.Equal(t, 6.67, er.Points, "two of three equal tests earn two thirds of 10, to the hundredth")
	er = perTestReport(report.StatusPass, report.StatusPass, report.StatusPass)
	er.Passed = true
	report.Score(lab.Exercise{ID: "1.1", Points: 10, Scoring: lab.ScorePerTest}, &er)
	assert.Equal(t, 10.0, er.Points)

	all := lab.Exercise{ID: "1.1", Points: 10}
	er = perTestReport(report.StatusPass, report.StatusFail)
	report.Score(all, &er)
	assert.Equal(t, lab.ScoreAll, er.Scoring)
	assert.Zero(t, er.Points, "all or nothing: one failure costs every point")
	assert.Nil(t, er.Tests[0].Points, "tests of an all-or-nothing exercise carry no points")
}

// Per-test credit end to end: the reference solution with 10.1's rule
// "an empty leaf id is an unknown leaf" broken loses only that rule's
// tests' points, its hidden tests run although a public one failed, and
// every format shows the tests' points.
func TestGradePerTestCreditsWhatPassed(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: grades a submission")
	}
	base := testLab(t)
	l := *base
	l.Manifest.Exercises = slices.Clone(base.Exercises)
	for i := range l.Exercises {
		if l.Exercises[i].ID == "10.1" {
			l.Exercises[i].Scoring = lab.ScorePerTest
		}
	}
	work := t.TempDir()
	for _, d := range []string{filepath.Dir(work), work} {
		require.NoError(t, os.Chmod(d, 0o711)) // the runs' users pass through
	}
	g := newSandboxedGrader(t, Options{Lab: &l, Hidden: true, Exercises: []string{"10.1", "10.2"}, TempDir: work, Memory: 512 << 20})
	src := prefixBody(t, solutionSource(t), pathToSig, `if leafID == "" {
		return nil, nil
	}`)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session.go"), src, 0o644))
	sub, err := submission.Read(filepath.Join(dir, "session.go"), []string{"session.go"})
	require.NoError(t, err)
	rep, err := g.Grade(t.Context(), sub)
	require.NoError(t, err)
	require.Len(t, rep.Exercises, 2)
	ex, other := rep.Exercises[0], rep.Exercises[1]

	assert.False(t, ex.Passed)
	assert.Equal(t, lab.ScorePerTest, ex.Scoring)
	assert.Greater(t, ex.Points, 0.0, "10.1 scored per test with one rule broken: want some points, got %d/%d (%s)", ex.Points, ex.MaxPoints, ex.Reason)
	assert.Less(t, ex.Points, float64(ex.MaxPoints))
	sum, worth, hiddenPassed := 0.0, 0.0, 0
	for _, tr := range ex.Tests {
		require.NotNil(t, tr.Points, "test %s of a per-test exercise has no points", tr.Name)
		sum += *tr.Points
		worth += *tr.MaxPoints
		if tr.Status != report.StatusPass {
			assert.Zero(t, *tr.Points, "failed test %s earned points", tr.Name)
		}
		if tr.Hidden && tr.Status == report.StatusPass {
			hiddenPassed++
		}
	}
	assert.InDelta(t, ex.Points, sum, 0.011*float64(len(ex.Tests)), "the tests' points add up to the exercise's, to rounding")
	assert.InDelta(t, float64(ex.MaxPoints), worth, 0.011*float64(len(ex.Tests)))
	assert.Positive(t, hiddenPassed, "the hidden tests of a per-test exercise run even when a public one failed")
	assert.True(t, other.Passed)
	assert.Equal(t, lab.ScoreAll, other.Scoring)
	assert.Equal(t, ex.Points+other.Points, rep.Score)

	gs := format.Gradescope(rep)
	var perTest []format.GradescopeTest
	for _, e := range gs.Tests {
		if strings.HasPrefix(e.Name, "10.1 TestLab10_1_") {
			perTest = append(perTest, e)
		}
	}
	assert.Len(t, perTest, len(ex.Tests), "Gradescope: one entry a test of a per-test exercise")
	for _, e := range perTest {
		if strings.Contains(e.Name, "Hidden") {
			assert.Equal(t, "after_published", e.Visibility, "entry %s", e.Name)
		}
	}
	xml, err := format.JUnit(rep)
	require.NoError(t, err)
	assert.Contains(t, string(xml), `<property name="max_points"`, "JUnit: test cases of a per-test exercise carry their points")
}
