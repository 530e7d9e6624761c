package format

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/coursekit/course/grader/names"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
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
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
	SystemOut  string           `xml:"system-out,omitempty"`
}

// junitProperties is a <properties> element: a pointer to it, nil when
// there are none, leaves it out (encoding/xml writes an empty
// <properties></properties> for an empty "properties>property" slice).
type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

// props makes the <properties> of ps: nil, and none written, when empty.
func props(ps ...junitProperty) *junitProperties {
	if len(ps) == 0 {
		return nil
	}
	return &junitProperties{Property: ps}
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname  string           `xml:"classname,attr"`
	Name       string           `xml:"name,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Failure    *junitFailure    `xml:"failure,omitempty"`
	Error      *junitFailure    `xml:"error,omitempty"`
	Skipped    *junitSkipped    `xml:"skipped,omitempty"`
	SystemOut  string           `xml:"system-out,omitempty"`
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
func JUnit(r *report.Report) ([]byte, error) {
	doc := junitTestsuites{Name: safetext.Line(r.Submission), Time: seconds(r.Seconds)}
	for _, ex := range r.Exercises {
		suite := junitSuite{
			Name: ex.ID + " " + ex.Name,
			Time: seconds(ex.Seconds),
			Properties: props(
				junitProperty{"passed", fmt.Sprint(ex.Passed)},
				junitProperty{"points", report.FormatPoints(ex.Points)},
				junitProperty{"max_points", fmt.Sprint(ex.MaxPoints)},
			),
			SystemOut: ex.Output,
		}
		suite.add(r, ex, suite.Name, "")
		doc.add(suite)
	}
	return encodeJUnit(doc)
}

// JUnitClass turns the reports of a class into one JUnit XML document
// named name: one <testsuite> per submission (named after it, its score as
// properties), whose test cases are every exercise's tests, classname
// "10.1 PathTo", name the test's. A submission that could not be graded
// (notGraded: submission name to reason) is a suite with one <error>.
func JUnitClass(name string, reports []*report.Report, notGraded map[string]string) ([]byte, error) {
	doc := junitTestsuites{Name: name}
	var total float64
	for _, sub := range slices.SortedFunc(maps.Keys(notGraded), names.Compare) {
		// Names and reasons come from what students chose: escaped, so
		// that a CI page shows them as they are (no bidi reordering).
		shown := safetext.Line(sub)
		doc.add(junitSuite{Name: shown, Time: seconds(0), Cases: []junitCase{{Classname: shown, Name: JUnitVerdictCase,
			Error: &junitFailure{Message: "not graded: " + safetext.Line(notGraded[sub]), Type: "not graded"}}}, Errors: 1})
	}
	for _, r := range reports {
		total += r.Seconds
		suite := junitSuite{Name: safetext.Line(r.Submission), Time: seconds(r.Seconds), Properties: props(
			junitProperty{"score", report.FormatPoints(r.Score)}, junitProperty{"max_score", fmt.Sprint(r.MaxScore)},
			junitProperty{"path", safetext.Line(r.Path)},
		)}
		for _, ex := range r.Exercises {
			suite.add(r, ex, ex.ID+" "+ex.Name, ex.ID+" ")
		}
		doc.add(suite)
	}
	doc.Time = seconds(total)
	return encodeJUnit(doc)
}

// add puts ex's test cases into s, class their classname; a verdict case,
// named prefix+JUnitVerdictCase, where ex failed without a failing test.
func (s *junitSuite) add(r *report.Report, ex report.ExerciseReport, class, prefix string) {
	failures := 0
	for _, t := range ex.Tests {
		c := junitCase{Classname: class, Name: t.Name}
		if t.Points != nil && t.MaxPoints != nil {
			c.Properties = props(junitProperty{"points", report.FormatPoints(*t.Points)}, junitProperty{"max_points", report.FormatPoints(*t.MaxPoints)})
		}
		switch t.Status {
		case report.StatusPass:
		case report.StatusSkip, report.StatusNotRun:
			c.Skipped = &junitSkipped{Message: t.Status}
			c.SystemOut = t.Output
			s.Skipped++
		default: // fail, did not end, inconsistent
			c.Failure = &junitFailure{Message: failureMessage(t.Status), Type: t.Status, Text: t.Output}
			failures++
		}
		s.Cases = append(s.Cases, c)
	}
	s.Failures += failures
	if !ex.Passed && failures == 0 {
		c := verdictCase(r, ex, class)
		c.Name = prefix + c.Name
		s.Cases = append(s.Cases, c)
		if c.Error != nil {
			s.Errors++
		} else {
			s.Failures++
		}
	}
}

// add counts s into d.
func (d *junitTestsuites) add(s junitSuite) {
	s.Tests = len(s.Cases)
	d.Tests += s.Tests
	d.Failures += s.Failures
	d.Errors += s.Errors
	d.Skipped += s.Skipped
	d.Suites = append(d.Suites, s)
}

func encodeJUnit(doc junitTestsuites) ([]byte, error) {
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
func verdictCase(r *report.Report, ex report.ExerciseReport, class string) junitCase {
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
	case report.StatusFail:
		return "the test failed"
	case report.StatusNoEnd:
		return "the test started but never finished (a hang, or a crash inside it)"
	case report.StatusForged:
		return "the test reported more than one result (something printed fake test events)"
	}
	return strings.TrimSpace("the test ended as: " + status)
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }
