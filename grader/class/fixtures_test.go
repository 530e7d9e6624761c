package class

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
)

// The fixture lab 7: two exercises, three rules, tests whose doc comments
// name the rules they check, and hints of which one names a rule.
const (
	fixtureManifest = `{
  "chapter": "7", "slug": "07-demo", "title": "A demo lab", "package": "demo",
  "module": "example.com/demo", "editable": ["demo.go"],
  "exercises": [
    {"id": "7.1", "name": "First", "test_prefix": "TestLab7_1_", "points": 10},
    {"id": "7.2", "name": "Second", "test_prefix": "TestLab7_2_", "points": 10},
    {"id": "7.3", "name": "Extra", "test_prefix": "TestLab7_3_", "points": 5, "bonus": true}
  ]
}`
	fixtureRules = `[
  {"id": "7.1.1", "text": "The first rule of 7.1."},
  {"id": "7.1.2", "text": "The second rule of 7.1."},
  {"id": "7.2.1", "text": "The rule of 7.2."},
  {"id": "7.3.1", "text": "The rule of the bonus."}
]`
	fixtureHints = `{
  "7.1": [{"en": "Index the entries first (rule 7.1.2).", "zh": "先建索引（规则 7.1.2）。"}, {"en": "Then walk up."}],
  "7.2": [{"en": "Read the handout again."}]
}`
	fixtureTests = `package demo

import "testing"

// Rule 7.1.1: the first.
func TestLab7_1_A(t *testing.T) {}

// Rule 7.1.1, 7.1.2: both.
func TestLab7_1_B(t *testing.T) {}

// Rule 7.2.1: the second exercise.
func TestLab7_2_C(t *testing.T) {}

// Rule 7.3.1: the bonus.
func TestLab7_3_E(t *testing.T) {}
`
	fixtureHidden = `package demo

import "testing"

// Rule 7.2.1: hidden.
func TestLab7_2_HiddenD(t *testing.T) {}
`
)

// fixtureLab loads lab 7 from memory.
func fixtureLab(t *testing.T) *lab.Lab {
	t.Helper()
	labsFS := fstest.MapFS{
		"go.mod":                         {Data: []byte("module github.com/coursekit/course/labs\n\ngo 1.22\n")},
		"07-demo/.meta/lab.json":         {Data: []byte(fixtureManifest)},
		"07-demo/.meta/rules.json":       {Data: []byte(fixtureRules)},
		"07-demo/.meta/hints.json":       {Data: []byte(fixtureHints)},
		"07-demo/demo.go":                {Data: []byte("package demo\n")},
		"07-demo/demo_test.go":           {Data: []byte(fixtureTests)},
		"07-demo/.hidden/demo_h_test.go": {Data: []byte(fixtureHidden)},
	}
	c, err := lab.LoadFS(labsFS, fstest.MapFS{})
	require.NoError(t, err, "lab.LoadFS(fixture lab 7)")
	l, err := c.Lookup("7")
	require.NoError(t, err, "Lookup(7) in the fixture catalog")
	return l
}

// test is a TestReport of name with status.
func test(name, status string) report.TestReport {
	return report.TestReport{Name: name, Status: status}
}

// exercise is an ExerciseReport of lab 7: passed when every test passed,
// all or nothing.
func exercise(id string, maxPoints int, tests ...report.TestReport) report.ExerciseReport {
	names := map[string]string{"7.1": "First", "7.2": "Second", "7.3": "Extra"}
	ex := report.ExerciseReport{ID: id, Name: names[id], MaxPoints: maxPoints, Scoring: lab.ScoreAll, Tests: tests, Passed: len(tests) > 0}
	for _, t := range tests {
		if t.Status != report.StatusPass {
			ex.Passed = false
		}
	}
	if ex.Passed {
		ex.Points = float64(maxPoints)
	} else {
		ex.Reason = "some tests failed"
	}
	return ex
}

// reportOf is a report of lab 7 for name, its score the sum of its
// exercises' points.
func reportOf(name string, seconds float64, exercises ...report.ExerciseReport) *report.Report {
	r := &report.Report{Submission: name, Path: "submissions/" + name + ".zip", Lab: "7", Build: report.Build{OK: true},
		Exercises: exercises, Seconds: seconds}
	for _, ex := range exercises {
		r.Score += ex.Points
		r.MaxScore += ex.MaxPoints
	}
	return r
}

// pass71, fail71, pass72 and fail72 are lab 7's two exercises, passed, or
// failed in one test (7.1) or in both (7.2).
func pass71() report.ExerciseReport {
	return exercise("7.1", 10, test("TestLab7_1_A", report.StatusPass), test("TestLab7_1_B", report.StatusPass))
}

func fail71(status string) report.ExerciseReport {
	return exercise("7.1", 10, test("TestLab7_1_A", report.StatusPass), test("TestLab7_1_B", status))
}

func pass72() report.ExerciseReport {
	hidden := test("TestLab7_2_HiddenD", report.StatusPass)
	hidden.Hidden = true
	return exercise("7.2", 10, test("TestLab7_2_C", report.StatusPass), hidden)
}

func fail72() report.ExerciseReport {
	hidden := test("TestLab7_2_HiddenD", report.StatusFail)
	hidden.Hidden = true
	return exercise("7.2", 10, test("TestLab7_2_C", report.StatusFail), hidden)
}

// withScore sets r's score, as a late penalty or per-test points would.
func withScore(r *report.Report, score float64) *report.Report {
	r.Score = score
	return r
}

// class is a small class of lab 7: alice passes everything, bob fails 7.1
// in one test, carol fails everything, dave could not be graded.
func class() ([]*report.Report, map[string]string) {
	return []*report.Report{
			reportOf("carol", 3.5, fail71(report.StatusFail), fail72()),
			reportOf("alice", 2.0, pass71(), pass72()),
			reportOf("bob", 9.25, fail71(report.StatusNoEnd), pass72()),
		}, map[string]string{
			"dave": "submissions/dave: holds no session.go\nsecond line",
		}
}
