package class

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
)

func TestWriteSummaryText_GivesTheGistInAFewLines(t *testing.T) {
	reports, notGraded := class()
	s, err := Summarize(reports, notGraded, fixtureLab(t))
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, WriteSummaryText(&b, s))
	want := `3 graded, 1 not graded: mean 10, median 10 of 20 (lowest 0, highest 20)
passed: 7.1 33% (1/3), 7.2 67% (2/3)
most failed: TestLab7_1_B (7.1, rules 7.1.1, 7.1.2): 2 of 3 (67%)
`
	assert.Equal(t, want, b.String(), "WriteSummaryText(the class of alice, bob, carol and dave)")
}

func TestWriteSummaryText_NamesWhatTimedOut(t *testing.T) {
	var reports []*report.Report
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g\x1b[2J"} {
		ex := fail71(report.StatusNoEnd)
		ex.Fail(report.Cause{Kind: report.TimedOut, Limit: int64(30 * time.Second)})
		reports = append(reports, reportOf(name, 1, ex))
	}
	s, err := Summarize(reports, nil, nil)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, WriteSummaryText(&b, s))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, 4, "WriteSummaryText(7 timeouts) = %q: totals, pass rates, most failed, timed out", b.String())
	assert.Equal(t, "most failed: TestLab7_1_B (7.1): 7 of 7 (100%)", lines[2], "without the lab the rule cannot be told")
	assert.Equal(t, "timed out: a 7.1, b 7.1, c 7.1, d 7.1, e 7.1, and 2 more", lines[3])
	assert.NotContains(t, b.String(), "\x1b", "a name's escape sequence must never reach the terminal")
}

func TestWriteSummaryText_NothingGraded(t *testing.T) {
	s, err := Summarize(nil, map[string]string{"a": "no session.go"}, nil)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, WriteSummaryText(&b, s))
	assert.Equal(t, "0 graded, 1 not graded: no score to sum up\n", b.String(), "WriteSummaryText(nobody graded)")
}

func TestWriteSummaryText_EveryTestPassed(t *testing.T) {
	s, err := Summarize([]*report.Report{reportOf("a", 1, pass71(), pass72())}, nil, nil)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, WriteSummaryText(&b, s))
	assert.Equal(t, "1 graded: mean 20, median 20 of 20 (lowest 20, highest 20)\npassed: 7.1 100% (1/1), 7.2 100% (1/1)\n", b.String(),
		"WriteSummaryText(one perfect submission): no \"most failed\" line")
}

// TestWriteSummaryText_TheExampleOfTheInstructorsGuide makes the class of
// docs/instructors.md ("The class report (HTML)") from lab 10's own tests
// and checks the lines the guide shows.
func TestWriteSummaryText_TheExampleOfTheInstructorsGuide(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	l, err := cat.Lookup("10")
	require.NoError(t, err)
	// status gives a test its status in a submission: public or hidden.
	grade := func(name string, score float64, status func(ex lab.Exercise, hidden bool) string) *report.Report {
		r := &report.Report{Submission: name, Lab: "10", Build: report.Build{OK: true}, Score: score}
		for _, ex := range l.Exercises {
			if ex.Bonus {
				continue
			}
			er := report.ExerciseReport{ID: ex.ID, Name: ex.Name, MaxPoints: ex.Points, Passed: true}
			for _, hidden := range []bool{false, true} {
				names := l.PublicTests(ex.ID)
				if hidden {
					names = l.HiddenTests(ex.ID)
				}
				for _, n := range names {
					st := status(ex, hidden)
					er.Tests = append(er.Tests, report.TestReport{Name: n, Status: st, Hidden: hidden})
					er.Passed = er.Passed && st == report.StatusPass
				}
			}
			if er.Passed {
				er.Points = float64(ex.Points)
			}
			r.Exercises = append(r.Exercises, er)
			r.MaxScore += ex.Points
		}
		return r
	}
	stub := func(_ lab.Exercise, hidden bool) string {
		if hidden {
			return report.StatusNotRun // hidden tests run only after the public ones passed
		}
		return report.StatusFail
	}
	reports := []*report.Report{
		grade("alice", 100, func(lab.Exercise, bool) string { return report.StatusPass }),
		grade("bob", 0, stub),
		grade("carol", 85, func(ex lab.Exercise, _ bool) string {
			if ex.ID == "10.1" {
				return report.StatusFail
			}
			return report.StatusPass
		}),
		grade("eve", 0, func(lab.Exercise, bool) string { return report.StatusNotRun }),
	}
	reports[3].Build = report.Build{Rejected: true}
	s, err := Summarize(reports, map[string]string{"dave": "submissions/dave: holds no session.go"}, l)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, WriteSummaryText(&b, s))
	want := `4 graded, 1 not graded: mean 46.25, median 42.5 of 100 (lowest 0, highest 100)
passed: 10.1 25% (1/4), 10.2 50% (2/4), 10.3 50% (2/4), 10.4 50% (2/4), 10.5 50% (2/4), 10.6 50% (2/4)
most failed: TestLab10_1_ChangingInputLeavesResultAlone (10.1, rule 10.1.6): 2 of 3 (67%)
`
	assert.Equal(t, want, b.String(), "WriteSummaryText(the guide's class of alice, bob, carol, dave and eve): keep docs/instructors.md in step")
}
