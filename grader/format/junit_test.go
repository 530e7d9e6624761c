package format

import (
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/report"
)

// The document as a CI system reads it, parsed independently of the types
// that wrote it.
type parsedSuites struct {
	XMLName  xml.Name      `xml:"testsuites"`
	Name     string        `xml:"name,attr"`
	Tests    int           `xml:"tests,attr"`
	Failures int           `xml:"failures,attr"`
	Errors   int           `xml:"errors,attr"`
	Skipped  int           `xml:"skipped,attr"`
	Time     string        `xml:"time,attr"`
	Suites   []parsedSuite `xml:"testsuite"`
}

type parsedSuite struct {
	Name       string `xml:"name,attr"`
	Tests      int    `xml:"tests,attr"`
	Failures   int    `xml:"failures,attr"`
	Errors     int    `xml:"errors,attr"`
	Skipped    int    `xml:"skipped,attr"`
	Time       string `xml:"time,attr"`
	Properties []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"properties>property"`
	Cases []struct {
		Classname  string `xml:"classname,attr"`
		Name       string `xml:"name,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Failure *junitMessage `xml:"failure"`
		Error   *junitMessage `xml:"error"`
		Skipped *struct {
			Message string `xml:"message,attr"`
		} `xml:"skipped"`
	} `xml:"testcase"`
	SystemOut string `xml:"system-out"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func parseJUnit(t *testing.T, r *report.Report) parsedSuites {
	t.Helper()
	data, err := JUnit(r)
	require.NoError(t, err)
	require.Contains(t, string(data), `<?xml version="1.0" encoding="UTF-8"?>`)
	var doc parsedSuites
	require.NoError(t, xml.Unmarshal(data, &doc), string(data))
	return doc
}

func TestJUnitCountsEveryKindOfResult(t *testing.T) {
	r := &report.Report{
		Submission: "carol", Lab: "10", Build: report.Build{OK: true}, Seconds: 2.25,
		Exercises: []report.ExerciseReport{
			{ID: "10.1", Name: "PathTo", Passed: true, Points: 15, MaxPoints: 15, Seconds: 0.5, Tests: []report.TestReport{
				{Name: "TestLab10_1_A", Status: report.StatusPass},
				{Name: "TestLab10_1_HiddenB", Status: report.StatusPass, Hidden: true},
			}},
			{ID: "10.2", Name: "ParseSessionEntry", MaxPoints: 20, Reason: "3 of 5 tests failed", Output: "printed outside tests\n", Tests: []report.TestReport{
				{Name: "TestLab10_2_Pass", Status: report.StatusPass},
				{Name: "TestLab10_2_Fail", Status: report.StatusFail, Output: "want <a> & \"b\"\x00\x1b[31m\n"},
				{Name: "TestLab10_2_Hang", Status: report.StatusNoEnd, Output: "=== RUN TestLab10_2_Hang\n"},
				{Name: "TestLab10_2_Forged", Status: report.StatusForged},
				{Name: "TestLab10_2_Skip", Status: report.StatusSkip},
			}},
			{ID: "10.3", Name: "InMemorySessionStore", MaxPoints: 15, Reason: "no test ran", Tests: []report.TestReport{
				{Name: "TestLab10_3_A", Status: report.StatusNotRun},
			}},
		},
	}
	doc := parseJUnit(t, r)
	assert.Equal(t, "carol", doc.Name)
	assert.Equal(t, "2.250", doc.Time)
	require.Len(t, doc.Suites, 3)

	ok, bad, none := doc.Suites[0], doc.Suites[1], doc.Suites[2]
	assert.Equal(t, "10.1 PathTo", ok.Name)
	assert.Equal(t, []int{2, 0, 0}, []int{ok.Tests, ok.Failures, ok.Skipped})
	assert.Equal(t, "0.500", ok.Time)
	for _, c := range ok.Cases {
		assert.Equal(t, "10.1 PathTo", c.Classname)
		assert.Nil(t, c.Failure)
		assert.Nil(t, c.Skipped)
	}
	props := map[string]string{}
	for _, p := range ok.Properties {
		props[p.Name] = p.Value
	}
	assert.Equal(t, map[string]string{"passed": "true", "points": "15", "max_points": "15"}, props)

	assert.Equal(t, "10.2 ParseSessionEntry", bad.Name)
	assert.Equal(t, []int{5, 3, 1}, []int{bad.Tests, bad.Failures, bad.Skipped})
	assert.Equal(t, "printed outside tests\n", bad.SystemOut)
	byName := map[string]int{}
	for i, c := range bad.Cases {
		byName[c.Name] = i
	}
	fail := bad.Cases[byName["TestLab10_2_Fail"]]
	require.NotNil(t, fail.Failure)
	assert.Equal(t, "fail", fail.Failure.Type)
	assert.Equal(t, "want <a> & \"b\"\uFFFD\uFFFD[31m\n", fail.Failure.Text, "escaped, and what XML cannot hold replaced")
	assert.Equal(t, "did not end", bad.Cases[byName["TestLab10_2_Hang"]].Failure.Type)
	assert.Equal(t, "inconsistent", bad.Cases[byName["TestLab10_2_Forged"]].Failure.Type)
	require.NotNil(t, bad.Cases[byName["TestLab10_2_Skip"]].Skipped)
	assert.Equal(t, "skip", bad.Cases[byName["TestLab10_2_Skip"]].Skipped.Message)

	// Nothing failed by itself, yet the exercise failed: a verdict case says why.
	assert.Equal(t, []int{2, 1, 1}, []int{none.Tests, none.Failures, none.Skipped})
	require.Len(t, none.Cases, 2)
	assert.Equal(t, "not run", none.Cases[0].Skipped.Message)
	assert.Equal(t, JUnitVerdictCase, none.Cases[1].Name)
	assert.Equal(t, "no test ran", none.Cases[1].Failure.Message)

	assert.Equal(t, 2+5+2, doc.Tests)
	assert.Equal(t, 0+3+1, doc.Failures)
	assert.Equal(t, 0+1+1, doc.Skipped)
	assert.Equal(t, 0, doc.Errors)
}

// A file that does not build, or was rejected, ran no test: every suite
// has an <error>, which CI systems tell apart from a failed test.
func TestJUnitBuildFailureIsAnErrorInEverySuite(t *testing.T) {
	for _, rejected := range []bool{false, true} {
		r := &report.Report{
			Submission: "eve", Build: report.Build{Rejected: rejected, Output: "session.go:3:1: import \"os\" is not allowed\n"},
			Exercises: []report.ExerciseReport{
				{ID: "10.1", Name: "PathTo", MaxPoints: 15, Reason: "the file was rejected", Tests: []report.TestReport{{Name: "TestLab10_1_A", Status: report.StatusNotRun}}},
				{ID: "10.2", Name: "ParseSessionEntry", MaxPoints: 20, Reason: "the file was rejected", Tests: []report.TestReport{{Name: "TestLab10_2_A", Status: report.StatusNotRun}}},
			},
		}
		doc := parseJUnit(t, r)
		assert.Equal(t, 2, doc.Errors, "JUnit(a report whose build failed, rejected=%v): want one <error> a suite", rejected)
		assert.Equal(t, 0, doc.Failures, "a build failure is no failed test")
		for _, s := range doc.Suites {
			require.Len(t, s.Cases, 2)
			assert.Equal(t, 1, s.Errors)
			assert.Nil(t, s.Cases[1].Failure)
			f := s.Cases[1].Error
			require.NotNil(t, f)
			assert.Contains(t, f.Text, `import "os" is not allowed`)
			if rejected {
				assert.Equal(t, "rejected", f.Type)
			} else {
				assert.Equal(t, "build failed", f.Type)
			}
		}
	}
}

func TestJUnitOfNoExercises(t *testing.T) {
	doc := parseJUnit(t, &report.Report{Submission: "empty", Build: report.Build{OK: true}})
	assert.Equal(t, 0, doc.Tests)
	assert.Empty(t, doc.Suites)
}

// A class in one JUnit file: a suite per submission, its score as
// properties, the exercises as classnames; one that could not be graded is
// a suite with an <error>.
func TestJUnitClassHasASuitePerSubmission(t *testing.T) {
	alice := &report.Report{Submission: "alice", Path: "subs/alice", Build: report.Build{OK: true}, Score: 15, MaxScore: 35, Seconds: 1.5,
		Exercises: []report.ExerciseReport{
			{ID: "10.1", Name: "PathTo", Passed: true, Points: 15, MaxPoints: 15, Tests: []report.TestReport{{Name: "TestLab10_1_A", Status: report.StatusPass}}},
			{ID: "10.2", Name: "Parse", MaxPoints: 20, Reason: "1 of 1 tests failed", Tests: []report.TestReport{{Name: "TestLab10_2_A", Status: report.StatusFail, Output: "want x"}}},
		}}
	eve := &report.Report{Submission: "eve", Build: report.Build{Rejected: true, Output: `import "os" is not allowed`}, MaxScore: 35,
		Exercises: []report.ExerciseReport{{ID: "10.1", Name: "PathTo", MaxPoints: 15, Reason: "rejected", Tests: []report.TestReport{{Name: "TestLab10_1_A", Status: report.StatusNotRun}}}}}
	data, err := JUnitClass("lab 10", []*report.Report{alice, eve}, map[string]string{"dave": "holds no session.go"})
	require.NoError(t, err)
	var doc parsedSuites
	require.NoError(t, xml.Unmarshal(data, &doc), string(data))
	require.Len(t, doc.Suites, 3)
	assert.Equal(t, "lab 10", doc.Name)
	dave, a, e := doc.Suites[0], doc.Suites[1], doc.Suites[2]
	assert.Equal(t, "dave", dave.Name)
	require.NotNil(t, dave.Cases[0].Error)
	assert.Contains(t, dave.Cases[0].Error.Message, "holds no session.go")
	assert.Equal(t, "alice", a.Name)
	assert.Equal(t, 1, a.Failures)
	assert.Equal(t, "10.2 Parse", a.Cases[1].Classname)
	props := map[string]string{}
	for _, p := range a.Properties {
		props[p.Name] = p.Value
	}
	assert.Equal(t, map[string]string{"score": "15", "max_score": "35", "path": "subs/alice"}, props)
	assert.Equal(t, 1, e.Errors, "a rejected file is an error in its suite")
	assert.Equal(t, "10.1 "+JUnitVerdictCase, e.Cases[1].Name)
	assert.Equal(t, 2, doc.Errors)
	assert.Equal(t, 1, doc.Failures)
}

// Names come from the files students chose: a C1 control, a line separator
// or a right-to-left override in one is escaped, so that a CI page shows
// the name as it is stored.
func TestJUnitEscapesNamesTheSubmissionChose(t *testing.T) {
	name := "c1\u009b31mred\u2028ls\u202eog.exe"
	r := &report.Report{Submission: name, Path: "subs/" + name + ".go", Lab: "10", Exercises: []report.ExerciseReport{{ID: "10.1", Name: "PathTo", Passed: true}}}
	for _, doc := range [][]byte{must(JUnit(r)), must(JUnitClass("lab 10", []*report.Report{r}, map[string]string{name + "2": "holds no session.go"}))} {
		for _, raw := range []string{"\u009b", "\u2028", "\u202e"} {
			assert.NotContains(t, string(doc), raw)
		}
		assert.Contains(t, string(doc), `c1\x9b31mred\u2028ls\u202eog.exe`)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestJUnitLeavesOutEmptyProperties: a test case without points (every
// test of an exercise scored all or nothing) has no <properties> element
// at all, not an empty one; one scored per test has its points.
func TestJUnitLeavesOutEmptyProperties(t *testing.T) {
	earned, worth := 5.0, 5.0
	r := &report.Report{Submission: "alice", Lab: "10", Build: report.Build{OK: true}, Exercises: []report.ExerciseReport{
		{ID: "10.1", Name: "PathTo", Passed: true, Points: 15, MaxPoints: 15, Tests: []report.TestReport{{Name: "TestLab10_1_A", Status: report.StatusPass}}},
		{ID: "10.2", Name: "Parse", Passed: true, Points: 5, MaxPoints: 5, Scoring: "per-test",
			Tests: []report.TestReport{{Name: "TestLab10_2_A", Status: report.StatusPass, Points: &earned, MaxPoints: &worth}}},
	}}
	for _, doc := range [][]byte{must(JUnit(r)), must(JUnitClass("lab 10", []*report.Report{r}, nil))} {
		assert.NotContains(t, string(doc), "<properties></properties>")
		assert.NotRegexp(t, `<properties>\s*</properties>`, string(doc))
		assert.Contains(t, string(doc), `<property name="points" value="5"></property>`, "a test scored per test keeps its points")
	}
	doc := parseJUnit(t, r)
	assert.Empty(t, doc.Suites[0].Cases[0].Properties)
	assert.Len(t, doc.Suites[0].Properties, 3, "an exercise's suite keeps passed, points and max_points")
}

// TestJUnitClassListsNotGradedNamesAsPeopleRead: the suites of submissions
// that could not be graded come in names.Compare's order.
func TestJUnitClassListsNotGradedNamesAsPeopleRead(t *testing.T) {
	data := must(JUnitClass("lab 10", nil, map[string]string{"Zoë": "x", "alice": "x", "Bob": "x"}))
	var doc parsedSuites
	require.NoError(t, xml.Unmarshal(data, &doc))
	var got []string
	for _, s := range doc.Suites {
		got = append(got, s.Name)
	}
	assert.Equal(t, []string{"alice", "Bob", "Zoë"}, got)
}
