package class

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
)

// studentRow is a student's row of the students' table.
type studentRow struct {
	Name, Path, Score string
	NotGraded         string // why it could not be graded
	Graded            bool
	Cells             []studentCell
	Late, LateTitle   string
	// Why is what cost points, a line each: the build's note, or each
	// failed exercise's causes and first failing test.
	Why    []whyLine
	Anchor string // the id of the student's details
}

type studentCell struct {
	Text           string
	Graded, Passed bool
	Title          string
}

// whyLine is one thing that cost a student points: Exercise's (none for
// the whole submission) Text, and the first test that failed.
type whyLine struct {
	Exercise, Text, Test string
}

// studentDetail is a student's section of details: the score, what went
// wrong as a whole, and each exercise with its causes and first failure.
type studentDetail struct {
	Anchor, Name, Path, Score string
	Graded                    bool
	Why                       []whyLine
	NotGraded, Note           string
	BuildOutput, Hint         string // the compiler's output, or the check's refusal and what is allowed
	Late, Seconds             string
	Exercises                 []detailExercise
}

type detailExercise struct {
	ID, Name, Points, Tests string
	Graded, Passed          bool
	Causes                  []string
	Test, Status            string // the first failing test, and how it ended
	Hidden                  bool
	Message                 string // its output, cut to what a person reads
}

// maxBuildLines is how many lines of a compiler's output a student's
// details show.
const maxBuildLines = 20

// students fills the students' table, their details and the list of
// those that could not be graded.
func (p *page) students(s *Summary) {
	for i, st := range s.Students {
		row := studentRowOf(st)
		row.Anchor = fmt.Sprintf("student-%d", i+1)
		p.Students = append(p.Students, row)
		p.HasLate = p.HasLate || st.Late != nil
		if !st.Graded {
			p.NotGraded = append(p.NotGraded, row)
		}
		p.Details = append(p.Details, detailOf(st, row, s.Exercises))
	}
}

func studentRowOf(st Student) studentRow {
	row := studentRow{Name: visible(st.Name), Path: visible(st.Path), Graded: st.Graded, Why: why(st)}
	if !st.Graded {
		row.NotGraded = visible(st.NotGraded)
		row.Score = "–"
		for range st.Exercises {
			row.Cells = append(row.Cells, studentCell{Text: "–", Title: "not graded"})
		}
		return row
	}
	row.Score = report.FormatPoints(st.Score) + "/" + fmt.Sprint(st.MaxScore)
	for _, e := range st.Exercises {
		c := studentCell{Graded: e.Graded, Passed: e.Passed}
		switch {
		case !e.Graded:
			c.Text, c.Title = "–", "not graded in this run"
		default:
			c.Text = report.FormatPoints(e.Points)
			c.Title = fmt.Sprintf("%s of %d points", c.Text, e.MaxPoints)
		}
		row.Cells = append(row.Cells, c)
	}
	row.Late, row.LateTitle = lateCell(st)
	return row
}

// lateCell is what the late policy did to st, short and in full.
func lateCell(st Student) (short, full string) {
	penalty, ok := st.LatePenalty()
	if !ok {
		return "", ""
	}
	policy := visible(st.Late.Policy)
	switch {
	case st.WithinGrace():
		late := st.Late.Submitted.Sub(st.Late.Due).Round(time.Second)
		return fmt.Sprintf("none (late by %s, within the grace period)", late),
			fmt.Sprintf("late by %s, within the grace period of %s: nothing taken", late, policy)
	case st.Late.Late == 0:
		return "on time", "on time (" + policy + ")"
	}
	return fmt.Sprintf("−%s%% (late by %s; raw %s)", report.FormatPoints(penalty*100),
		time.Duration(st.Late.Late)*time.Second, report.FormatPoints(st.Late.RawScore)), visible(st.Late.Describe())
}

// why says what st's score is made of, from its typed record: why it was
// not graded or built, else each failed exercise's causes and first
// failure (or that every exercise passed), and the late penalty.
func why(st Student) []whyLine {
	switch {
	case !st.Graded:
		return []whyLine{{Text: "not graded: " + visible(st.NotGraded)}}
	case st.Note != "":
		return []whyLine{{Text: visible(st.Note)}}
	}
	var out []whyLine
	for _, e := range st.Exercises {
		if !e.Failed() {
			continue
		}
		line := whyLine{Exercise: visible(e.ID), Text: strings.Join(causeTexts(e), "; ")}
		if t := e.FirstFailure; t != nil {
			line.Test = visible(t.Name) + " (" + t.Status + ")"
		}
		out = append(out, line)
	}
	if len(out) == 0 {
		out = append(out, whyLine{Text: "every exercise passed"})
	}
	if penalty, _ := st.LatePenalty(); penalty > 0 {
		short, _ := lateCell(st)
		out = append(out, whyLine{Text: "late penalty " + short})
	}
	return out
}

// causeTexts are why e failed, one text a cause, for the instructor: the
// whole text, also of a cause from the hidden tests.
func causeTexts(e StudentExercise) []string {
	var out []string
	for _, c := range e.Causes {
		out = append(out, visible(c.String()))
	}
	if len(out) == 0 {
		out = append(out, visible(cmp.Or(e.Reason, "failed")))
	}
	return out
}

func detailOf(st Student, row studentRow, exercises []ExerciseStats) studentDetail {
	d := studentDetail{Anchor: row.Anchor, Name: row.Name, Path: row.Path, Score: row.Score, Graded: st.Graded, Why: row.Why,
		NotGraded: row.NotGraded, Note: visible(st.Note)}
	if !st.Graded {
		return d
	}
	d.Seconds = fmt.Sprintf("%.1f", st.Seconds)
	_, d.Late = lateCell(st)
	if !st.Build.OK {
		d.BuildOutput = clipLines(st.Build.Output, maxBuildLines)
		if st.Rejection != nil {
			d.Hint = visible(st.Rejection.Hint)
		}
		return d
	}
	for i, e := range st.Exercises {
		de := detailExercise{ID: visible(e.ID), Name: visible(exercises[i].Name), Graded: e.Graded, Passed: e.Passed}
		if e.Graded {
			de.Points = report.FormatPoints(e.Points) + "/" + fmt.Sprint(e.MaxPoints)
			de.Tests = fmt.Sprintf("%d/%d", e.TestsPassed, e.Tests)
		}
		if e.Failed() {
			de.Causes = causeTexts(e)
		}
		if t := e.FirstFailure; t != nil {
			de.Test, de.Status, de.Hidden = visible(t.Name), t.Status, t.Hidden
			de.Message = format.FailureExcerpt(t.Output)
		}
		d.Exercises = append(d.Exercises, de)
	}
	return d
}

// clipLines is the first n lines of out, made printable, with how many
// more there were.
func clipLines(out string, n int) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("… (%d more lines)", len(lines)-n))
	}
	return safetext.Printable(strings.Join(lines, "\n"))
}
