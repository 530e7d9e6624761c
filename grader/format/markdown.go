package format

import (
	"fmt"
	"io"
	"strings"

	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
)

// WriteMarkdown writes r as a Markdown summary for a CI job's page (GitHub
// Actions' $GITHUB_STEP_SUMMARY): the score, a table of the exercises
// (result, tests passed, points) and, for a file that did not build, the
// compiler's first line. Text from the submission is escaped, so it shows
// as text and never as Markdown or HTML.
func WriteMarkdown(w io.Writer, r *report.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Lab %s: %s of %d points\n\n", safetext.Markdown(r.Lab), report.FormatPoints(r.Score), r.MaxScore)
	if !r.Build.OK {
		what := "did not build"
		if r.Build.Rejected {
			what = "was rejected before building"
		}
		fmt.Fprintf(&b, "The file %s: %s\n\n", what, safetext.Markdown(CompilerLine(r.Build.Output)))
	}
	if d := r.Late.Describe(); d != "" {
		fmt.Fprintf(&b, "Submitted %s.\n\n", safetext.Markdown(d))
	}
	b.WriteString("| Exercise | Name | Result | Tests passed | Points | First failure |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	for _, ex := range r.Exercises {
		verdict, first := "pass", ""
		if !ex.Passed {
			verdict = "**fail**"
			if t, ok := ex.FirstFailure(); ok && !t.Hidden {
				first = safetext.Markdown(t.Name) + " (" + safetext.Markdown(t.Status) + ")"
			} else if ex.Reason != "" {
				first = safetext.Markdown(ex.Reason)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d/%d | %s/%d | %s |\n", safetext.Markdown(ex.ID), safetext.Markdown(ex.Name), verdict,
			ex.TestsPassed(), len(ex.Tests), report.FormatPoints(ex.Points), ex.MaxPoints, first)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
