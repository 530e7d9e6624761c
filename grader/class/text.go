package class

import (
	"fmt"
	"io"
	"strings"

	"github.com/coursekit/course/grader/report"
)

// maxTextTimeOuts is how many timed-out exercises the text names.
const maxTextTimeOuts = 5

// WriteSummaryText writes the gist of s in a few lines, for the end of a
// class run on a terminal:
//
//	4 graded, 1 not graded: mean 46.25, median 42.5 of 100 (lowest 0, highest 100)
//	passed: 10.1 25% (1/4), 10.2 50% (2/4), 10.3 50% (2/4), ...
//	most failed: TestLab10_1_ReturnsBranchRootFirst (10.1, rule 10.1.6): 3 of 4 (75%)
//	timed out: bob 10.3
//
// The last two lines only when there is something to say.
//
// After a regrade (s.Whole set) two lines first say what the whole table
// holds and that the rest is about the regraded submissions only.
func WriteSummaryText(w io.Writer, s *Summary) error {
	var b strings.Builder
	if s.Whole != nil {
		writeWholeText(&b, s.Whole)
	}
	fmt.Fprintf(&b, "%d graded", s.Graded)
	if s.NotGraded > 0 {
		fmt.Fprintf(&b, ", %d not graded", s.NotGraded)
	}
	if s.Graded == 0 {
		b.WriteString(": no score to sum up\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, ": mean %s, median %s of %d (lowest %s, highest %s)\n",
		report.FormatPoints(s.Score.Mean), report.FormatPoints(s.Score.Median), s.MaxScore,
		report.FormatPoints(s.Score.Min), report.FormatPoints(s.Score.Max))

	rates := make([]string, len(s.Exercises))
	for i, e := range s.Exercises {
		rates[i] = fmt.Sprintf("%s %d%% (%d/%d)", visible(e.ID), e.Percent(), e.Passed, e.Graded)
	}
	fmt.Fprintf(&b, "passed: %s\n", strings.Join(rates, ", "))

	if len(s.Tests) > 0 && s.Tests[0].Failed > 0 {
		t := s.Tests[0]
		where := visible(t.Exercise)
		switch len(t.Rules) {
		case 0:
		case 1:
			where += ", rule " + t.Rules[0]
		default:
			where += ", rules " + strings.Join(t.Rules, ", ")
		}
		fmt.Fprintf(&b, "most failed: %s (%s): %d of %d (%d%%)\n", visible(t.Name), where, t.Failed, t.Ran(), t.Percent())
	}
	if len(s.TimedOut) > 0 {
		var outs []string
		for i, o := range s.TimedOut {
			if i == maxTextTimeOuts {
				outs = append(outs, fmt.Sprintf("and %d more", len(s.TimedOut)-i))
				break
			}
			outs = append(outs, visible(o.Submission)+" "+visible(o.Exercise))
		}
		fmt.Fprintf(&b, "timed out: %s\n", strings.Join(outs, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeWholeText says what the whole regraded table holds, and what the
// lines after it cover.
func writeWholeText(b *strings.Builder, w *Whole) {
	fmt.Fprintf(b, "whole table %s: %d rows, %d with a score", visible(w.File), w.Rows, w.Scored)
	if w.Scored > 0 {
		fmt.Fprintf(b, ": mean %s, median %s%s (lowest %s, highest %s), %d full marks",
			report.FormatPoints(w.Score.Mean), report.FormatPoints(w.Score.Median), wholeOutOf(w),
			report.FormatPoints(w.Score.Min), report.FormatPoints(w.Score.Max), w.FullMarks)
	}
	fmt.Fprintf(b, "\nthis run regraded %d of them; the lines below are about the %s regraded only\n", w.Regraded, nSubmissions(w.Regraded))
}

// nSubmissions is "1 submission", "2 submissions".
func nSubmissions(n int) string {
	if n == 1 {
		return "1 submission"
	}
	return fmt.Sprintf("%d submissions", n)
}

// wholeOutOf is " of <maximum>" when the table's rows share one.
func wholeOutOf(w *Whole) string {
	if w.MaxScore < 0 {
		return ""
	}
	return fmt.Sprintf(" of %d", w.MaxScore)
}
