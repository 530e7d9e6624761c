package judge

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/coursekit/course/grader/harness"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/coursekit/course/grader/testjson"
)

// eventsSay is a summary in which every named test ran and passed, as a
// run's events would show it, forged or not.
func eventsSay(names ...string) *testjson.Summary {
	s := testjson.NewSummary()
	for _, n := range names {
		s.Add(testjson.Event{Action: testjson.ActionRun, Package: "p", Test: n})
		s.Add(testjson.Event{Action: testjson.ActionPass, Package: "p", Test: n})
	}
	s.Add(testjson.Event{Action: testjson.ActionPass, Package: "p"})
	return s
}

func cleanRun(rep harness.Report, names ...string) *Run {
	var tests []Expected
	for _, n := range names {
		tests = append(tests, Expected{Name: n})
	}
	return &Run{Tests: tests, Events: eventsSay(names...), Report: rep, Timeout: time.Minute, OutputCap: sandbox.DefaultOutputCap}
}

// The events are text student code can print; the harness's report on
// fd 3 is the verdict. Events that say pass do not outvote it.
func TestJudgeTakesResultsFromTheHarnessNotTheEvents(t *testing.T) {
	const nonce = "n0nce"
	cases := []struct {
		name   string
		report string
		pass   bool
		reason string
	}{
		{"the harness says pass", nonce + " pass TestA\n" + nonce + " pass TestB\n" + nonce + " end 0\n", true, ""},
		{"the harness says one failed", nonce + " pass TestA\n" + nonce + " fail TestB\n" + nonce + " end 1\n", false, "1 of 2 tests failed"},
		{"no report at all", "", false, "2 of 2 tests failed"},
		{"a report without the end", nonce + " pass TestA\n" + nonce + " pass TestB\n", false, "report of this run is missing"},
		{"another nonce", "guess pass TestA\nguess pass TestB\nguess end 0\n", false, "not the harness's"},
		{"a test twice", nonce + " fail TestA\n" + nonce + " pass TestA\n" + nonce + " pass TestB\n" + nonce + " end 0\n", false, "twice"},
		{"a line after the end", nonce + " pass TestA\n" + nonce + " pass TestB\n" + nonce + " end 0\n" + nonce + " pass TestA\n", false, "does not end"},
		{"end 0 after a failure", nonce + " pass TestA\n" + nonce + " fail TestB\n" + nonce + " end 0\n", false, "1 of 2 tests failed"},
		{"a report longer than the harness ever writes", nonce + " pass TestA\n" + nonce + " pass TestB\n" + strings.Repeat(nonce+" skip TestC\n", harness.MaxReportBytes/12) + nonce + " end 0\n", false, "longer than 1024 KiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := cleanRun(harness.Parse([]byte(c.report), nonce), "TestA", "TestB")
			er := &report.ExerciseReport{ID: "1.1", MaxPoints: 10}
			Exercise(er, r)
			assert.Equal(t, c.pass, er.Passed, "Exercise(events: both pass; harness report %q) passed = %v, reason %q", c.report, er.Passed, er.Reason)
			if !c.pass {
				assert.Contains(t, er.Reason, c.reason)
				assert.Zero(t, er.Points)
			}
		})
	}
}

// A shared run is trusted for an exercise only when the harness ended it
// normally; otherwise the exercise is run on its own.
func TestJudgeSharedNeedsTheHarnessEnd(t *testing.T) {
	r := cleanRun(harness.Parse([]byte("n pass TestA\n"), "n"), "TestA")
	er := &report.ExerciseReport{ID: "1.1", MaxPoints: 10}
	assert.False(t, Shared(er, r, r.Tests), "Shared with a report that never ended: want undecided")
	r = cleanRun(harness.Parse([]byte("n pass TestA\nn end 0\n"), "n"), "TestA")
	assert.True(t, Shared(er, r, r.Tests), "Shared with a clean report and exit 0: want a pass")
}

// TestCombineKeepsOnlyWhatAReportShows: an exercise that passed keeps no
// output of its tests (the runner's framing, most of a correct
// submission's JSON); one that failed keeps every test's output, the
// passed ones too, where a race or an exit status may have left a trace.
func TestCombineKeepsOnlyWhatAReportShows(t *testing.T) {
	ex := lab.Exercise{ID: "10.1", Name: "PathTo", Points: 15}
	pass := report.TestReport{Name: "TestLab10_1_A", Status: report.StatusPass, Output: "=== RUN   TestLab10_1_A\n--- PASS: TestLab10_1_A\n"}
	hidden := report.TestReport{Name: "TestLab10_1_HiddenB", Status: report.StatusPass, Hidden: true, Output: "=== RUN   TestLab10_1_HiddenB\n"}
	passed := Combine(ex, []report.ExerciseReport{{Passed: true, Tests: []report.TestReport{pass}}, {Passed: true, Tests: []report.TestReport{hidden}}})
	assert.True(t, passed.Passed)
	for _, tr := range passed.Tests {
		assert.Empty(t, tr.Output, "Combine(a passed exercise): test %s keeps its output", tr.Name)
	}

	fail := report.TestReport{Name: "TestLab10_1_C", Status: report.StatusFail, Output: "want x, got y\n"}
	failed := Combine(ex, []report.ExerciseReport{{Tests: []report.TestReport{pass, fail}, Causes: []report.Cause{{Kind: report.TestsFailed}}}})
	assert.False(t, failed.Passed)
	assert.Equal(t, pass.Output, failed.Tests[0].Output, "Combine(a failed exercise) keeps a passed test's output")
	assert.Equal(t, fail.Output, failed.Tests[1].Output)
}
