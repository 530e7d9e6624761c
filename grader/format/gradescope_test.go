package format

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/judge"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
)

// hiddenFailureReport is a report in which exercise 10.3's hidden run
// raced, in a hidden test whose name and whose detail students may see only
// once grades are published.
func hiddenFailureReport() *report.Report {
	parts := []report.ExerciseReport{
		{ID: "10.3", Name: "Queue", Passed: true, MaxPoints: 20, Tests: []report.TestReport{{Name: "TestLab10_3_PublicOne", Status: report.StatusPass}}},
		{ID: "10.3", Name: "Queue", MaxPoints: 20,
			Causes: []report.Cause{{Kind: report.Race, Detail: "TestLab10_3_SecretTwin writes secretInputValue"}},
			Tests:  []report.TestReport{{Name: "TestLab10_3_SecretTwin", Status: report.StatusFail, Hidden: true, Output: "secretInputValue\n"}}},
	}
	ex := judge.Combine(lab.Exercise{ID: "10.3", Name: "Queue", Points: 20}, parts)
	return &report.Report{Submission: "alice", Build: report.Build{OK: true}, Exercises: []report.ExerciseReport{ex}, MaxScore: 20}
}

// What a student sees at once (visible entries, the top-level output and
// the reason) names no hidden test and quotes nothing of a hidden run; the
// whole reason waits in the after_published entry.
func TestGradescopeKeepsHiddenDetailForAfterPublication(t *testing.T) {
	rep := hiddenFailureReport()
	ex := rep.Exercises[0]
	assert.Equal(t, "hidden tests: data race (the race detector found one)", ex.Reason,
		"judge.Combine(a public pass, a hidden race) reason: want the hidden part cut at its first colon")
	assert.Contains(t, ex.HiddenReason, "TestLab10_3_SecretTwin")

	res := Gradescope(rep)
	visible, hidden := "", ""
	for _, tc := range res.Tests {
		b, err := json.Marshal(tc)
		require.NoError(t, err)
		if tc.Visibility == "visible" {
			visible += string(b)
		} else {
			assert.Equal(t, "after_published", tc.Visibility)
			hidden += string(b)
		}
	}
	visible += res.Output
	for _, secret := range []string{"SecretTwin", "secretInputValue"} {
		assert.NotContains(t, visible, secret, "Gradescope(report) shows %q before grades are published", secret)
		assert.Contains(t, hidden, secret, "the after_published entry keeps %q for later", secret)
	}
	assert.True(t, strings.Contains(visible, "hidden tests: 0 of 1 passed"), "the visible entry counts the hidden tests: %s", visible)
}
