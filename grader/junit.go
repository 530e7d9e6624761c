package grader

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
)

// JUnit XML, as CI systems read it (Jenkins, GitLab, GitHub Actions test
// reporters): one <testsuites> for the submission, one <testsuite> per
// exercise, one <testcase> per test.

type junitTestsuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname  string          `xml:"classname,attr"`
	Name       string          `xml:"name,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Failure    *junitFailure   `xml:"failure,omitempty"`
	Error      *junitFailure   `xml:"error,omitempty"`
	Skipped    *junitSkipped   `xml:"skipped,omitempty"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

// JUnitVerdictCase is the name of the extra test case JUnit adds to a
// failed exercise none of whose tests failed by itself (a build failure, a
// rejected file, a crash before any test started, no tests run), so that
// every failed exercise has a failure a CI system shows.
const JUnitVerdictCase = "(exercise verdict)"

// JUnit turns r into a JUnit XML document: a <testsuites> named after the
// submission, with one <testsuite> per exercise (named "10.1 PathTo", with
// its points as properties) and one <testcase> per test (classname the
// suite's name, name the test's). A test that failed, did not end or
// reported inconsistent results has a <failure> holding its output; a
// skipped or never started one is <skipped/>. Text that XML cannot carry
// (control characters from a test's output) becomes U+FFFD.
func JUnit(r *Report) ([]byte, error) {
	doc := junitTestsuites{Name: r.Submission, Time: seconds(r.Seconds)}
	for _, ex := range r.Exercises {
		suite := junitSuite{
			Name: ex.ID + " " + ex.Name,
			Time: seconds(ex.Seconds),
			Properties: []junitProperty{
				{"passed", fmt.Sprint(ex.Passed)},
				{"points", FormatPoints(ex.Points)},
				{"max_points", fmt.Sprint(ex.MaxPoints)},
			},
			SystemOut: ex.Output,
		}
		for _, t := range ex.Tests {
			c := junitCase{Classname: suite.Name, Name: t.Name}
			if t.Points != nil && t.MaxPoints != nil {
				c.Properties = []junitProperty{{"points", FormatPoints(*t.Points)}, {"max_points", FormatPoints(*t.MaxPoints)}}
			}
			switch t.Status {
			case StatusPass:
			case StatusSkip, StatusNotRun:
				c.Skipped = &junitSkipped{Message: t.Status}
				c.SystemOut = t.Output
				suite.Skipped++
			default: // fail, did not end, inconsistent
				c.Failure = &junitFailure{Message: failureMessage(t.Status), Type: t.Status, Text: t.Output}
				suite.Failures++
			}
			suite.Cases = append(suite.Cases, c)
		}
		if !ex.Passed && suite.Failures == 0 {
			c := verdictCase(r, ex, suite.Name)
			suite.Cases = append(suite.Cases, c)
			if c.Error != nil {
				suite.Errors++
			} else {
				suite.Failures++
			}
		}
		suite.Tests = len(suite.Cases)
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Errors += suite.Errors
		doc.Skipped += suite.Skipped
		doc.Suites = append(doc.Suites, suite)
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("junit: %w", err)
	}
	b.WriteString("\n")
	return b.Bytes(), nil
}

// verdictCase is the failing case of a failed exercise without a failing
// test. A file that was rejected or does not build is an <error>: no test
// could run, which CI systems show apart from tests that failed.
func verdictCase(r *Report, ex ExerciseReport, class string) junitCase {
	f := &junitFailure{Message: ex.Reason, Type: "exercise", Text: ex.Output}
	if f.Message == "" {
		f.Message = "the exercise failed"
	}
	c := junitCase{Classname: class, Name: JUnitVerdictCase, Failure: f}
	switch {
	case r.Build.Rejected:
		f.Type, f.Text = "rejected", r.Build.Output
		c.Failure, c.Error = nil, f
	case !r.Build.OK:
		f.Type, f.Text = "build failed", r.Build.Output
		c.Failure, c.Error = nil, f
	}
	return c
}

func failureMessage(status string) string {
	switch status {
	case StatusFail:
		return "the test failed"
	case StatusNoEnd:
		return "the test started but never finished (a hang, or a crash inside it)"
	case StatusForged:
		return "the test reported more than one result (something printed fake test events)"
	}
	return strings.TrimSpace("the test ended as: " + status)
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }
