package format

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/report"
)

func TestWriteTextKeepsColumnsNarrow(t *testing.T) {
	rep := &report.Report{Submission: "s", Lab: "10", Path: "s", Build: report.Build{OK: true}, Exercises: []report.ExerciseReport{
		{ID: "10.1", Name: "PathTo", MaxPoints: 15, Reason: "a reason much longer than any exercise's name",
			Tests: []report.TestReport{{Name: "TestLab10_1_X", Status: report.StatusFail}}},
		{ID: "10.2", Name: "ParseSessionEntry", Passed: true, Points: 20, MaxPoints: 20,
			Tests: []report.TestReport{{Name: "TestLab10_2_X", Status: report.StatusPass}}},
	}, Score: 20, MaxScore: 35}
	lines := strings.Split(textReport(rep), "\n")
	assert.Equal(t, []string{
		"EXERCISE  NAME               RESULT  TESTS  POINTS",
		"10.1      PathTo             FAIL    0/1    0/15",
		"          a reason much longer than any exercise's name",
		"          first failure: TestLab10_1_X (fail)",
		"10.2      ParseSessionEntry  pass    1/1    20/20",
	}, lines[1:6])
}

func TestWriteTextAlignsColouredColumns(t *testing.T) {
	rep := &report.Report{Submission: "s", Lab: "10", Path: "s", Build: report.Build{OK: true}, Exercises: []report.ExerciseReport{
		{ID: "10.1", Name: "PathTö", Passed: true, Points: 15, MaxPoints: 15, Tests: []report.TestReport{{Name: "TestLab10_1_X", Status: report.StatusPass}}},
		{ID: "10.2", Name: "Parse", MaxPoints: 20, Reason: "1 of 1 tests failed", Tests: []report.TestReport{{Name: "TestLab10_2_X", Status: report.StatusFail}}},
	}, MaxScore: 35}
	var b strings.Builder
	require.NoError(t, WriteText(&b, rep, Style{Color: true}))
	lines := strings.Split(b.String(), "\n")
	assert.Equal(t, []string{
		"EXERCISE  NAME    RESULT  TESTS  POINTS",
		"10.1      PathTö  \x1b[32mpass\x1b[0m    1/1    15/15",
		"10.2      Parse   \x1b[31mFAIL\x1b[0m    0/1    0/20",
		"          \x1b[2m1 of 1 tests failed\x1b[0m",
	}, lines[1:5])
}

func TestFailureExcerptKeepsDiffHeaders(t *testing.T) {
	out := "=== RUN   TestX\n    x_test.go:1: \n        \tDiff:\n        \t--- Expected\n        \t+++ Actual\n--- FAIL: TestX (0.00s)\n"
	assert.Equal(t, "    x_test.go:1: \n        \tDiff:\n        \t--- Expected\n        \t+++ Actual\n", FailureExcerpt(out))
}

// A student's output shown on the instructor's terminal cannot move the
// cursor or repaint the table: control characters are shown escaped.
func TestFailureExcerptEscapesControlCharacters(t *testing.T) {
	out := "=== RUN   TestX\n    x_test.go:1: boom\r\x1b[2K10.1 PathTo pass\a\n--- FAIL: TestX (0.00s)\n"
	assert.Equal(t, `    x_test.go:1: boom\x0d\x1b[2K10.1 PathTo pass\x07`+"\n", FailureExcerpt(out))
}

// textReport is r as the text format writes it, without colour.
func textReport(r *report.Report) string {
	var b strings.Builder
	_ = WriteText(&b, r, Style{})
	return b.String()
}
