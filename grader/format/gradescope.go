package format

import (
	"fmt"
	"strings"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
)

// GradescopeResults is Gradescope's results.json: what an autograder
// writes to /autograder/results/results.json.
type GradescopeResults struct {
	Score         float64          `json:"score"`
	ExecutionTime float64          `json:"execution_time"`
	Output        string           `json:"output,omitempty"`
	OutputFormat  string           `json:"output_format,omitempty"`
	Visibility    string           `json:"visibility,omitempty"`
	Tests         []GradescopeTest `json:"tests"`
}

// GradescopeTest is one entry of GradescopeResults.Tests.
type GradescopeTest struct {
	Score        float64 `json:"score"`
	MaxScore     float64 `json:"max_score"`
	Status       string  `json:"status"` // "passed" or "failed"
	Name         string  `json:"name"`
	Number       string  `json:"number,omitempty"`
	Output       string  `json:"output,omitempty"`
	OutputFormat string  `json:"output_format,omitempty"`
	Visibility   string  `json:"visibility,omitempty"`
}

// Gradescope turns r into Gradescope's results.json. Each exercise is one
// visible entry worth its points, whose output shows the public tests and
// only counts the hidden ones. The hidden tests' own output goes into a
// second, zero-point entry per exercise that students see only once the
// instructor publishes the grades ("after_published").
func Gradescope(r *report.Report) GradescopeResults {
	res := GradescopeResults{
		Score:         r.Score,
		ExecutionTime: r.Seconds,
		OutputFormat:  "text",
		Visibility:    "visible",
	}
	if !r.Build.OK {
		res.Output = "Your file could not be built:\n" + r.Build.Output
	}
	if d := r.Late.Describe(); d != "" {
		res.Output = "Your submission was " + d + ".\n\n" + res.Output
	}
	for _, ex := range r.Exercises {
		status := "failed"
		if ex.Passed {
			status = "passed"
		}
		var out, hiddenOut strings.Builder
		// The reason may count hidden tests too ("4 of 18 tests failed");
		// the public lines below and the hidden count say it per kind.
		if ex.Reason != "" && !ex.OnlyCounts() {
			fmt.Fprintf(&out, "%s\n\n", ex.Reason)
		}
		for _, t := range ex.Tests {
			if t.Hidden {
				hiddenOut.WriteString(testLine(t))
			} else {
				out.WriteString(testLine(t))
			}
		}
		hidden, hiddenPassed := ex.HiddenCount()
		if hidden > 0 {
			fmt.Fprintf(&out, "\nhidden tests: %d of %d passed\n", hiddenPassed, hidden)
		}
		if ex.Scoring == lab.ScorePerTest {
			res.Tests = append(res.Tests, perTestEntries(ex, out.String())...)
			continue
		}
		res.Tests = append(res.Tests, GradescopeTest{
			Score: ex.Points, MaxScore: float64(ex.MaxPoints), Status: status,
			Name: ex.ID + " " + ex.Name, Number: ex.ID, Output: out.String(), OutputFormat: "text",
			Visibility: "visible",
		})
		if ex.HiddenReason != "" {
			hiddenOut.WriteString("\n" + ex.HiddenReason + "\n")
		}
		if hidden > 0 {
			res.Tests = append(res.Tests, GradescopeTest{
				Score: 0, MaxScore: 0, Status: status,
				Name: ex.ID + " " + ex.Name + " (hidden tests)", Number: ex.ID + ".h", Output: hiddenOut.String(),
				OutputFormat: "text", Visibility: "after_published",
			})
		}
	}
	return res
}

// perTestEntries are the entries of an exercise scored per test: a
// zero-point visible entry with the exercise's summary, then one entry a
// test, worth its points: visible for a public test, after_published for a
// hidden one (its name and output are the hidden test's).
func perTestEntries(ex report.ExerciseReport, summary string) []GradescopeTest {
	status := func(ok bool) string {
		if ok {
			return "passed"
		}
		return "failed"
	}
	entries := []GradescopeTest{{
		Score: 0, MaxScore: 0, Status: status(ex.Passed),
		Name: fmt.Sprintf("%s %s (%s of %d points)", ex.ID, ex.Name, report.FormatPoints(ex.Points), ex.MaxPoints), Number: ex.ID,
		Output: summary, OutputFormat: "text", Visibility: "visible",
	}}
	for k, t := range ex.Tests {
		var got, worth float64
		if t.Points != nil && t.MaxPoints != nil {
			got, worth = *t.Points, *t.MaxPoints
		}
		e := GradescopeTest{
			Score: got, MaxScore: worth, Status: status(t.Status == report.StatusPass),
			Name: ex.ID + " " + t.Name, Number: fmt.Sprintf("%s.%d", ex.ID, k+1),
			Output: t.Name + ": " + t.Status + "\n", OutputFormat: "text", Visibility: "visible",
		}
		if t.Status != report.StatusPass && t.Output != "" {
			e.Output += indent(FailureExcerpt(t.Output), "    ")
		}
		if t.Hidden {
			e.Visibility = "after_published"
			if ex.HiddenReason != "" {
				e.Output += "\n" + ex.HiddenReason + "\n"
			}
		}
		entries = append(entries, e)
	}
	return entries
}
