package class

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/late"
	"github.com/coursekit/course/grader/report"
)

// scored is a class of lab 7 (maximum 20) with the given scores, named
// s00, s01, ... in that order.
func scored(scores ...float64) []*report.Report {
	var out []*report.Report
	for i, x := range scores {
		out = append(out, withScore(reportOf(fmt.Sprintf("s%02d", i), 1, fail71(report.StatusFail), fail72()), x))
	}
	return out
}

func TestSummarize_MeanMedianMinMax(t *testing.T) {
	for _, c := range []struct {
		name   string
		scores []float64
		want   Stats
	}{
		{"one", []float64{7}, Stats{N: 1, Mean: 7, Median: 7, Min: 7, Max: 7}},
		{"odd count, unsorted", []float64{20, 0, 5}, Stats{N: 3, Mean: 25.0 / 3, Median: 5, Min: 0, Max: 20}},
		{"even count: the mean of the middle two", []float64{10, 0, 20, 5}, Stats{N: 4, Mean: 8.75, Median: 7.5, Min: 0, Max: 20}},
		{"hundredths", []float64{0.01, 19.99}, Stats{N: 2, Mean: 10, Median: 10, Min: 0.01, Max: 19.99}},
		{"all equal", []float64{4, 4, 4, 4}, Stats{N: 4, Mean: 4, Median: 4, Min: 4, Max: 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Summarize(scored(c.scores...), nil, nil)
			require.NoError(t, err, "Summarize(scores %v)", c.scores)
			assert.InDelta(t, c.want.Mean, s.Score.Mean, 1e-9, "Summarize(scores %v).Score.Mean", c.scores)
			got := s.Score
			got.Mean = c.want.Mean
			assert.Equal(t, c.want, got, "Summarize(scores %v).Score", c.scores)
		})
	}
}

func TestSummarize_HistogramEdges(t *testing.T) {
	counts := func(bins []Bin) []int {
		out := make([]int, len(bins))
		for i, b := range bins {
			out[i] = b.Count
		}
		return out
	}
	// Maximum 20: bins of 2 points. A score on an edge belongs to the bin it
	// starts; the maximum to the last bin.
	s, err := Summarize(scored(0, 1.99, 2, 3.5, 17.99, 18, 20), nil, nil)
	require.NoError(t, err)
	require.Len(t, s.Histogram, Bins, "Summarize(...).Histogram: one bin per tenth of the maximum")
	assert.Equal(t, []int{2, 2, 0, 0, 0, 0, 0, 0, 1, 2}, counts(s.Histogram),
		"Summarize(scores 0, 1.99, 2, 3.5, 17.99, 18, 20 of 20).Histogram counts: 1.99 is in 0–2, 2 in 2–4, 17.99 in 16–18, 18 and 20 in 18–20")
	assert.Equal(t, "0–2", s.Histogram[0].Label(), "the first bin's label")
	assert.Equal(t, "18–20", s.Histogram[9].Label(), "the last bin's label")

	// Maximum 15: edges that are not whole numbers (1.5, 3, 4.5, ...).
	var class []*report.Report
	for i, x := range []float64{1.49, 1.5, 13.49, 13.5, 15} {
		r := reportOf(fmt.Sprintf("s%d", i), 1, exercise("7.1", 15, test("TestLab7_1_A", report.StatusFail)))
		class = append(class, withScore(r, x))
	}
	s, err = Summarize(class, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 1, 0, 0, 0, 0, 0, 0, 1, 2}, counts(s.Histogram),
		"Summarize(scores 1.49, 1.5, 13.49, 13.5, 15 of 15).Histogram counts")
	assert.Equal(t, "1.5–3", s.Histogram[1].Label())
	assert.Equal(t, "13.5–15", s.Histogram[9].Label())
}

func TestSummarize_NobodyGraded(t *testing.T) {
	s, err := Summarize(nil, map[string]string{"zed": "no session.go", "amy": "too large"}, nil)
	require.NoError(t, err, "Summarize(no reports, two not graded)")
	assert.Equal(t, Stats{}, s.Score, "the statistics of no score")
	assert.Len(t, s.Histogram, Bins)
	for _, b := range s.Histogram {
		assert.Zero(t, b.Count, "a histogram of no score counts nothing")
	}
	assert.Equal(t, 0, s.Graded)
	assert.Equal(t, 2, s.NotGraded)
	require.Len(t, s.Students, 2)
	assert.Equal(t, "amy", s.Students[0].Name, "students by name")
	assert.Equal(t, "not graded: too large", s.Students[0].Note)
	assert.False(t, s.Students[0].Graded)
}

func TestSummarize_ExercisePassRates(t *testing.T) {
	reports, notGraded := class()
	s, err := Summarize(reports, notGraded, fixtureLab(t))
	require.NoError(t, err)
	assert.Equal(t, "7", s.Lab)
	assert.Equal(t, "A demo lab", s.Title)
	assert.Equal(t, 20, s.MaxScore)
	assert.Equal(t, 3, s.Graded)
	assert.Equal(t, 1, s.NotGraded)
	require.Len(t, s.Exercises, 2, "Summarize(class).Exercises: only the exercises the reports have (not the bonus 7.3)")
	assert.Equal(t, ExerciseStats{ID: "7.1", Name: "First", MaxPoints: 10, Graded: 3, Passed: 1, MeanPoints: 10.0 / 3}, s.Exercises[0])
	assert.Equal(t, ExerciseStats{ID: "7.2", Name: "Second", MaxPoints: 10, Graded: 3, Passed: 2, MeanPoints: 20.0 / 3}, s.Exercises[1])
	assert.Equal(t, 33, s.Exercises[0].Percent(), "1 of 3 passed 7.1")
	assert.Equal(t, 67, s.Exercises[1].Percent(), "2 of 3 passed 7.2: rounded half up as `course grade` does")
}

func TestSummarize_PercentRoundsHalfUp(t *testing.T) {
	for _, c := range []struct{ passed, graded, want int }{
		{0, 0, 0}, {1, 8, 13}, {3, 8, 38}, {1, 200, 1}, {1, 201, 0}, {2, 2, 100},
	} {
		e := ExerciseStats{Passed: c.passed, Graded: c.graded}
		assert.Equal(t, c.want, e.Percent(), "ExerciseStats{Passed: %d, Graded: %d}.Percent()", c.passed, c.graded)
	}
}

func TestSummarize_ExercisesInTheirOrderWithoutTheLab(t *testing.T) {
	ex := func(id string) report.ExerciseReport {
		return report.ExerciseReport{ID: id, Passed: true, Points: 1, MaxPoints: 1}
	}
	r := &report.Report{Submission: "a", Lab: "9", Exercises: []report.ExerciseReport{ex("9.10"), ex("9.2"), ex("9.1")}, Score: 3, MaxScore: 3}
	s, err := Summarize([]*report.Report{r}, nil, nil)
	require.NoError(t, err)
	var ids []string
	for _, e := range s.Exercises {
		ids = append(ids, e.ID)
	}
	assert.Equal(t, []string{"9.1", "9.2", "9.10"}, ids, "Summarize without a lab orders exercise ids as numbers")
}

func TestSummarize_TestFailureRates(t *testing.T) {
	reports, notGraded := class()
	s, err := Summarize(reports, notGraded, fixtureLab(t))
	require.NoError(t, err)
	type row struct {
		Name                  string
		Total, Failed, NotRun int
	}
	var got []row
	for _, ts := range s.Tests {
		got = append(got, row{ts.Name, ts.Total, ts.Failed, ts.NotRun})
	}
	// TestLab7_1_B failed for carol and did not end for bob: 2 of 3.
	// TestLab7_2_C and TestLab7_2_HiddenD failed for carol only: a tie of
	// count and rate, broken by name. The passes come last, in exercise
	// order, by name.
	assert.Equal(t, []row{
		{"TestLab7_1_B", 3, 2, 0},
		{"TestLab7_2_C", 3, 1, 0},
		{"TestLab7_2_HiddenD", 3, 1, 0},
		{"TestLab7_1_A", 3, 0, 0},
	}, got, "Summarize(class).Tests: most failed first")
	assert.Equal(t, 67, s.Tests[0].Percent(), "TestLab7_1_B failed 2 of 3 runs")
	assert.True(t, s.Tests[2].Hidden, "TestLab7_2_HiddenD is a hidden test")
}

func TestSummarize_TestsThatDidNotRunAreNotFailures(t *testing.T) {
	notRun := exercise("7.1", 10, test("TestLab7_1_A", report.StatusNotRun), test("TestLab7_1_B", report.StatusNotRun))
	reports := []*report.Report{
		reportOf("a", 1, notRun),
		reportOf("b", 1, notRun),
		reportOf("c", 1, exercise("7.1", 10, test("TestLab7_1_A", report.StatusFail), test("TestLab7_1_B", report.StatusPass))),
		reportOf("d", 1, exercise("7.1", 10, test("TestLab7_1_A", report.StatusPass), test("TestLab7_1_B", report.StatusSkip))),
		reportOf("e", 1, exercise("7.1", 10, test("TestLab7_1_A", report.StatusPass), test("TestLab7_1_B", report.StatusForged))),
	}
	s, err := Summarize(reports, nil, nil)
	require.NoError(t, err)
	require.Len(t, s.Tests, 2)
	// B: skip and inconsistent are failures (2 of 3 that ran); A: 1 of 3.
	assert.Equal(t, "TestLab7_1_B", s.Tests[0].Name)
	assert.Equal(t, [3]int{5, 2, 2}, [3]int{s.Tests[0].Total, s.Tests[0].Failed, s.Tests[0].NotRun}, "TestLab7_1_B: total, failed, not run")
	assert.Equal(t, 3, s.Tests[0].Ran())
	assert.Equal(t, 67, s.Tests[0].Percent(), "2 of the 3 runs of TestLab7_1_B failed")
	assert.Equal(t, [3]int{5, 1, 2}, [3]int{s.Tests[1].Total, s.Tests[1].Failed, s.Tests[1].NotRun}, "TestLab7_1_A: total, failed, not run")
}

func TestSummarize_TiesOfCountAreBrokenByRate(t *testing.T) {
	// X failed once in 1 run, Y once in 2: the same count, X the higher rate.
	reports := []*report.Report{
		reportOf("a", 1, exercise("7.1", 10, test("TestLab7_1_Y", report.StatusFail), test("TestLab7_1_X", report.StatusFail))),
		reportOf("b", 1, exercise("7.1", 10, test("TestLab7_1_Y", report.StatusPass), test("TestLab7_1_X", report.StatusNotRun))),
	}
	s, err := Summarize(reports, nil, nil)
	require.NoError(t, err)
	require.Len(t, s.Tests, 2)
	assert.Equal(t, []string{"TestLab7_1_X", "TestLab7_1_Y"}, []string{s.Tests[0].Name, s.Tests[1].Name},
		"Summarize(...).Tests: a tie in failures goes to the higher failure rate")
}

func TestSummarize_TestsMapToTheirRules(t *testing.T) {
	reports, notGraded := class()
	// An instructor's --tests test: the lab does not know it, so its rule
	// cannot be told.
	reports[0].Exercises[1].Tests = append(reports[0].Exercises[1].Tests, report.TestReport{Name: "TestLab7_2_Mine", Status: report.StatusFail, Hidden: true})
	s, err := Summarize(reports, notGraded, fixtureLab(t))
	require.NoError(t, err)
	rules := map[string][]string{}
	for _, ts := range s.Tests {
		rules[ts.Name] = ts.Rules
	}
	assert.Equal(t, map[string][]string{
		"TestLab7_1_A":       {"7.1.1"},
		"TestLab7_1_B":       {"7.1.1", "7.1.2"},
		"TestLab7_2_C":       {"7.2.1"},
		"TestLab7_2_HiddenD": {"7.2.1"},
		"TestLab7_2_Mine":    nil,
	}, rules, "Summarize(class, lab 7).Tests[].Rules, from the tests' `// Rule` doc comments")

	// The rules of the graded exercises only (not the bonus's 7.3.1), in
	// the table's order. 7.1.1: broken by carol and bob (B failed), checked
	// by all three; 7.2.1: broken by carol.
	require.Len(t, s.Rules, 3, "Summarize(class, lab 7).Rules")
	want := []RuleStats{
		{ID: "7.1.1", Text: "The first rule of 7.1.", Exercise: "7.1", Tests: []string{"TestLab7_1_A", "TestLab7_1_B"}, Broken: 2, Checked: 3},
		{ID: "7.1.2", Text: "The second rule of 7.1.", Exercise: "7.1", Tests: []string{"TestLab7_1_B"}, Broken: 2, Checked: 3,
			Hints: []lab.Hint{{EN: "Index the entries first (rule 7.1.2).", ZH: "先建索引（规则 7.1.2）。"}}},
		{ID: "7.2.1", Text: "The rule of 7.2.", Exercise: "7.2", Tests: []string{"TestLab7_2_C", "TestLab7_2_HiddenD"}, Broken: 1, Checked: 3},
	}
	assert.Equal(t, want, s.Rules, "Summarize(class, lab 7).Rules: counts per submission, the hints that name each rule")
	assert.Len(t, s.Hints["7.1"], 2, "Summarize(class, lab 7).Hints[7.1]: every hint of the exercise")
	assert.NotContains(t, s.Hints, "7.3", "no hints of an exercise that was not graded")
}

func TestSummarize_RulesOfLab10(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	l, err := cat.Lookup("10")
	require.NoError(t, err)
	ex := func(id, name string, max int, tests ...report.TestReport) report.ExerciseReport {
		return report.ExerciseReport{ID: id, Name: name, MaxPoints: max, Tests: tests}
	}
	r := &report.Report{Submission: "carol", Lab: "10", MaxScore: 35, Exercises: []report.ExerciseReport{
		ex("10.1", "PathTo", 15, report.TestReport{Name: "TestLab10_1_WorkedExample", Status: report.StatusFail}),
		ex("10.5", "JSONLSessionStore", 20, report.TestReport{Name: "TestLab10_5_FailedWriteTaintsWriter", Status: report.StatusFail}),
	}}
	s, err := Summarize([]*report.Report{r}, nil, l)
	require.NoError(t, err)
	rules := map[string][]string{}
	for _, ts := range s.Tests {
		rules[ts.Name] = ts.Rules
	}
	// As docs/lab10-rules.md lists them.
	assert.Equal(t, []string{"10.1.3", "10.1.6"}, rules["TestLab10_1_WorkedExample"])
	assert.Equal(t, []string{"10.5.4"}, rules["TestLab10_5_FailedWriteTaintsWriter"])
	var r1054 *RuleStats
	for i := range s.Rules {
		if s.Rules[i].ID == "10.5.4" {
			r1054 = &s.Rules[i]
		}
	}
	require.NotNil(t, r1054, "Summarize(lab 10 report).Rules holds 10.5.4")
	assert.Equal(t, 1, r1054.Broken)
	require.NotEmpty(t, r1054.Hints, "lab 10's hints.json has a hint naming rule 10.5.4")
	assert.Contains(t, r1054.Hints[0].EN, "10.5.4")
	for _, rs := range s.Rules {
		assert.Contains(t, []string{"10.1", "10.5"}, rs.Exercise, "rule %s: only the graded exercises' rules", rs.ID)
	}
}

func TestSummarize_TimedOutAndSlowest(t *testing.T) {
	timedOut := func(causes ...report.Cause) report.ExerciseReport {
		ex := fail71(report.StatusNoEnd)
		ex.Fail(causes...)
		return ex
	}
	var reports []*report.Report
	for i, sec := range []float64{1, 7, 3, 7, 2, 9, 0.5} {
		reports = append(reports, reportOf(fmt.Sprintf("s%d", i), sec, pass71()))
	}
	reports[1].Exercises[0] = timedOut(report.Cause{Kind: report.TimedOut, Limit: int64(30 * time.Second)})
	reports[2].Exercises[0] = timedOut(report.Cause{Kind: report.InitHung, Limit: int64(30 * time.Second)})
	reports[3].Exercises[0] = timedOut(report.Cause{Kind: report.TestsFailed, Failed: 1, Total: 2},
		report.Cause{Kind: report.TimedOut, Hidden: true, Limit: int64(30 * time.Second), Detail: "TestLab7_1_HiddenSecret"})
	reports[4].Exercises[0] = timedOut(report.Cause{Kind: report.BudgetUsed, Limit: int64(2 * time.Minute)})
	reports[5].Exercises[0] = timedOut(report.CountCause([]report.TestReport{{Status: report.StatusFail, Output: "a test said timed out in its output"}}))

	s, err := Summarize(reports, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, []TimeOut{
		{"s1", "7.1", "timed out: still running after 30s"},
		{"s2", "7.1", "no test started within 30s: the package's initialisation (an init function or a package-level variable) did not finish"},
		{"s3", "7.1", "hidden tests: timed out"},
	}, s.TimedOut, "Summarize(...).TimedOut: the causes that ran out of time (a run timed out, or no test started), as students see them")
	assert.Equal(t, []Timing{{"s5", 9}, {"s1", 7}, {"s3", 7}, {"s2", 3}, {"s4", 2}}, s.Slowest,
		"Summarize(...).Slowest: the %d slowest, ties by name", SlowestCount)
}

func TestSummarize_StudentRows(t *testing.T) {
	reports, notGraded := class()
	lateOne := reportOf("erin", 1, pass71(), pass72())
	due := time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC)
	policy, err := late.Parse("10%/day")
	require.NoError(t, err)
	policy.Apply(lateOne, due, due.Add(26*time.Hour))
	rejected := reportOf("frank", 1, fail71(report.StatusNotRun), exercise("7.2", 10, test("TestLab7_2_C", report.StatusNotRun)))
	rejected.Build = report.Build{Rejected: true, Output: "session.go:3: import \"os\" is not allowed"}
	reports = append(reports, lateOne, rejected)

	s, err := Summarize(reports, notGraded, nil)
	require.NoError(t, err, "Summarize(class with a late and a rejected submission)")
	var names []string
	for _, st := range s.Students {
		names = append(names, st.Name)
	}
	assert.Equal(t, []string{"alice", "bob", "carol", "dave", "erin", "frank"}, names, "Summarize(...).Students: by name, graded or not")

	bob := s.Students[1]
	assert.Equal(t, 10.0, bob.Score)
	bobFirst := test("TestLab7_1_B", report.StatusNoEnd)
	assert.Equal(t, []StudentExercise{
		{ID: "7.1", Graded: true, Passed: false, Points: 0, MaxPoints: 10, Tests: 2, TestsPassed: 1, Reason: "some tests failed", FirstFailure: &bobFirst},
		{ID: "7.2", Graded: true, Passed: true, Points: 10, MaxPoints: 10, Tests: 2, TestsPassed: 2},
	}, bob.Exercises, "bob's exercises, in the summary's exercise order, with the first failing test of the failed one")
	_, hasLate := bob.LatePenalty()
	assert.False(t, hasLate, "bob has no late record")

	dave := s.Students[3]
	assert.False(t, dave.Graded)
	assert.Equal(t, "not graded: submissions/dave: holds no session.go", dave.Note, "the first line of the reason")
	assert.Len(t, dave.Exercises, 2, "a row that was not graded still has a cell per exercise")

	erin := s.Students[4]
	penalty, ok := erin.LatePenalty()
	assert.True(t, ok, "erin's report has a late record")
	assert.InDelta(t, 0.2, penalty, 1e-9, "26 hours late at 10%%/day started is 20%%")
	assert.Equal(t, 16.0, erin.Score, "the score after the penalty")
	assert.Equal(t, 20.0, erin.Late.RawScore)

	frank := s.Students[5]
	assert.Equal(t, `rejected before building: session.go:3: import "os" is not allowed`, frank.Note,
		"the note of a rejected file names its first problem, as the CSV's note does")
	assert.Equal(t, StudentExercise{ID: "7.2", Graded: true, MaxPoints: 10, Tests: 1, Reason: "some tests failed"}, frank.Exercises[1],
		"frank's 7.2: graded, failed, 0 points, its test not run")
}

func TestSummarize_DoesNotChangeTheReports(t *testing.T) {
	reports, notGraded := class()
	before, _ := class()
	_, err := Summarize(reports, notGraded, fixtureLab(t))
	require.NoError(t, err)
	assert.Equal(t, before, reports, "Summarize changed its reports (or their order)")
}

func TestSummarize_IsDeterministic(t *testing.T) {
	var reports []*report.Report
	notGraded := map[string]string{}
	for i := range 40 {
		name := fmt.Sprintf("s%02d", (i*17)%40)
		switch i % 4 {
		case 0:
			notGraded[name] = "unreadable " + name
		case 1:
			reports = append(reports, reportOf(name, float64(i%3), pass71(), fail72()))
		default:
			reports = append(reports, reportOf(name, float64(i%3), fail71(report.StatusFail), pass72()))
		}
	}
	first, err := Summarize(reports, notGraded, fixtureLab(t))
	require.NoError(t, err)
	for range 10 {
		again, err := Summarize(reports, notGraded, fixtureLab(t))
		require.NoError(t, err)
		require.Equal(t, first, again, "Summarize gave another summary for the same class")
	}
}

func TestSummarize_RefusesWhatIsNotOneClass(t *testing.T) {
	l := fixtureLab(t)
	other := reportOf("zoe", 1, pass71())
	other.Lab = "8"
	bigger := reportOf("zoe", 1, pass71(), pass72(), exercise("7.3", 5, test("TestLab7_3_E", report.StatusPass)))
	twice := reportOf("zoe", 1, pass71(), pass71())
	unknown := reportOf("zoe", 1, pass71(), exercise("7.9", 10, test("TestLab7_9_X", report.StatusPass)))
	for _, c := range []struct {
		name      string
		reports   []*report.Report
		notGraded map[string]string
		lab       *lab.Lab
		want      string
	}{
		{"a nil report", []*report.Report{reportOf("a", 1, pass71()), nil}, nil, nil, "report 1 is nil"},
		{"no name", []*report.Report{reportOf("", 1, pass71())}, nil, nil, "no submission name"},
		{"a name twice", []*report.Report{reportOf("a", 1, pass71()), reportOf("a", 2, pass71())}, nil, nil, `two submissions are named "a"`},
		{"a graded name also not graded", []*report.Report{reportOf("a", 1, pass71())}, map[string]string{"a": "x"}, nil, `two submissions are named "a"`},
		{"two labs", []*report.Report{reportOf("a", 1, pass71()), other}, nil, nil, "one class is one lab"},
		{"another lab than the one given", []*report.Report{other}, nil, l, `zoe was graded against lab "8", not lab 7`},
		{"different maximum scores", []*report.Report{reportOf("a", 1, pass71(), pass72()), bigger}, nil, nil, "zoe has a maximum score of 25, a of 20"},
		{"an exercise twice", []*report.Report{twice}, nil, nil, `zoe has exercise "7.1" twice`},
		{"an exercise the lab does not have", []*report.Report{unknown}, nil, l, `zoe has exercise "7.9", which lab 7 does not have`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Summarize(c.reports, c.notGraded, c.lab)
			require.Error(t, err, "Summarize(%s) returned a summary, want an error", c.name)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), c.want, "Summarize(%s): the error should say what is wrong", c.name)
		})
	}
}

func TestSummarize_NamesAreShownSafely(t *testing.T) {
	assert.Equal(t, `a\x1b[31mb\u202ec`, visible("a\x1b[31mb\u202ec"), "visible(escape sequence and bidi override)")
	assert.Equal(t, `tab\x09and\x0anewline`, visible("tab\tand\nnewline"), "visible keeps a name on one line")
	_, err := Summarize([]*report.Report{reportOf("a\x1bb", 1, pass71()), reportOf("a\x1bb", 1, pass71())}, nil, nil)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), `a\\x1bb`) && !strings.Contains(err.Error(), "\x1b"),
		"Summarize's error %q should show the name's escape character as \\x1b", err)
}

func TestSummarize_RunInfo(t *testing.T) {
	reports, _ := bigClass()
	reports[3].Settings.Version = "v1.5.0"
	reports[4].Settings = nil
	s, err := Summarize(reports, nil, nil)
	require.NoError(t, err)
	r := s.Run
	assert.Equal(t, bigClassStart, r.First, "Summarize(...).Run.First: when the first grading began")
	assert.Equal(t, bigClassStart.Add(38*17*time.Second), r.Last)
	assert.Equal(t, []Tally{{"v1.4.0", 37}, {"v1.5.0", 1}}, r.Versions, "the versions, the most common first")
	assert.Equal(t, 1, r.Unrecorded, "a report saved before settings were recorded")
	assert.Equal(t, []Tally{{"on", 39}}, r.Race)
	assert.Equal(t, []Tally{{"--sandbox strict --timeout 30s --budget 2m0s --memory 1.0GiB", 38}}, r.Flags)
	assert.Equal(t, []Tally{{"10%/day, grace 15m", 39}}, r.LatePolicies)
	assert.Equal(t, []Tally{{"2026-12-01T23:59:00Z", 39}}, r.Due)
}
