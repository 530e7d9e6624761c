package format

import (
	"strings"
	"testing"

	"github.com/coursekit/course/grader/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMarkdownSummaryHasARowPerExercise(t *testing.T) {
	r := &report.Report{Lab: "10", Score: 15, MaxScore: 35, Build: report.Build{OK: true}, Exercises: []report.ExerciseReport{
		{ID: "10.1", Name: "PathTo", Passed: true, Points: 15, MaxPoints: 15, Tests: []report.TestReport{{Name: "TestLab10_1_A", Status: report.StatusPass}}},
		{ID: "10.2", Name: "Store", MaxPoints: 20, Reason: "1 of 2 tests failed", Tests: []report.TestReport{
			{Name: "TestLab10_2_Secret", Status: report.StatusFail, Hidden: true},
			{Name: "TestLab10_2_B", Status: report.StatusFail},
		}},
	}}
	var b strings.Builder
	require.NoError(t, WriteMarkdown(&b, r))
	assert.Equal(t, "### Lab 10: 15 of 35 points\n\n"+
		"| Exercise | Name | Result | Tests passed | Points | First failure |\n"+
		"| --- | --- | --- | --- | --- | --- |\n"+
		"| 10.1 | PathTo | pass | 1/1 | 15/15 |  |\n"+
		"| 10.2 | Store | **fail** | 0/2 | 0/20 | 1 of 2 tests failed |\n", b.String(),
		"a hidden test is never named; its exercise's reason is shown instead")
}

func TestMarkdownSummaryEscapesTheSubmissionsText(t *testing.T) {
	r := &report.Report{Lab: "10", MaxScore: 15, Build: report.Build{Rejected: true, Output: "# session\nsession.go:1:1: <img src=x onerror=alert(1)> | `rm -rf` *bold*\x1b[2J\n"},
		Exercises: []report.ExerciseReport{{ID: "10.1", Name: "PathTo", MaxPoints: 15, Reason: "rejected"}}}
	var b strings.Builder
	require.NoError(t, WriteMarkdown(&b, r))
	out := b.String()
	assert.Contains(t, out, "The file was rejected before building: session.go:1:1: &lt;img src=x onerror=alert(1)&gt; \\| \\`rm -rf\\` \\*bold\\*\\\\x1b\\[2J\n")
	assert.NotContains(t, out, "<img")
	assert.NotContains(t, out, "\x1b")
	assert.Equal(t, 3, strings.Count(out, "\n|"), "header, separator and one row: none added by the submission's text")
}
