package class

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/names"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
	"github.com/coursekit/course/grader/submission"
	"github.com/coursekit/course/grader/textcol"
)

// Result is what became of one submission of a class.
type Result struct {
	Name, Path string
	Report     *report.Report // nil when it could not be graded
	Err        error          // why it could not be graded
}

// Grader grades one submission; *grader.Grader is one.
type Grader interface {
	Grade(ctx context.Context, sub *submission.Submission) (*report.Report, error)
}

// GradeAll grades subs with jobs workers and sends each result as it
// comes. Submissions with the same files are graded once (the others get
// that report under their own name). Once ctx is done no submission starts,
// and one that was running when it ended is left out (its report would
// describe the interruption, not the submission). The channel is closed
// when every worker is gone.
func GradeAll(ctx context.Context, g Grader, subs []*submission.Submission, jobs int) <-chan Result {
	g = &once{g: g, by: map[[32]byte]*onceEntry{}}
	todo := make(chan *submission.Submission)
	out := make(chan Result)
	go func() {
		defer close(todo)
		for _, s := range subs {
			select {
			case todo <- s:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range min(max(jobs, 1), max(len(subs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range todo {
				if ctx.Err() != nil {
					continue
				}
				rep, err := g.Grade(ctx, s)
				if ctx.Err() != nil {
					continue
				}
				out <- Result{Name: s.Name, Path: s.Path, Report: rep, Err: err}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

// Sort puts results in the order of their names, as people read them
// (names.Compare).
func Sort(results []Result) {
	slices.SortStableFunc(results, func(a, b Result) int { return names.Compare(a.Name, b.Name) })
}

// Split returns the reports of the graded results and, name → first line
// of the error, the ones that could not be graded: what Summarize and
// grader.JUnitClass take.
func Split(results []Result) (reports []*report.Report, notGraded map[string]string) {
	notGraded = map[string]string{}
	for _, r := range results {
		if r.Err != nil {
			notGraded[r.Name] = safetext.FirstLine(r.Err.Error())
			continue
		}
		rep := *r.Report
		rep.Submission = r.Name // the name the class knows it by
		reports = append(reports, &rep)
	}
	return reports, notGraded
}

// notGradedJSON is a submission in the class array that could not be
// graded; ReadJSON reads it back.
type notGradedJSON struct {
	Submission string `json:"submission"`
	Path       string `json:"path"`
	Error      string `json:"error"`
}

// WriteJSON writes the class as `course grade --json` does: an array with
// each graded submission's report and {"submission", "path", "error"} for
// each one that could not be graded.
func WriteJSON(w io.Writer, results []Result) error {
	return format.WriteJSON(w, jsonEntries(results))
}

// jsonEntries are the entries of the class array: each graded
// submission's report, or {"submission", "path", "error"}.
func jsonEntries(results []Result) []any {
	out := make([]any, len(results))
	for i, r := range results {
		if r.Err != nil {
			out[i] = notGradedJSON{Submission: r.Name, Path: r.Path, Error: r.Err.Error()}
		} else {
			out[i] = r.Report
		}
	}
	return out
}

// WriteTable writes one row per submission: pass/FAIL per exercise of ids,
// the score and a note. WriteSummaryText gives the pass rates.
func WriteTable(w io.Writer, results []Result, ids []string, st format.Style) error {
	header := []textcol.Cell{textcol.Plain("SUBMISSION")}
	for _, id := range ids {
		header = append(header, textcol.Plain(id))
	}
	header = append(header, textcol.Plain("SCORE"))
	hasNote := false
	rows := [][]textcol.Cell{header}
	for _, r := range results {
		row := []textcol.Cell{textcol.Plain(safetext.Line(r.Name))}
		note := ""
		if r.Err != nil {
			for range ids {
				row = append(row, textcol.Plain("-"))
			}
			row = append(row, textcol.Plain("-"))
			note = "not graded: " + safetext.Line(safetext.FirstLine(r.Err.Error()))
		} else {
			byID := map[string]report.ExerciseReport{}
			for _, ex := range r.Report.Exercises {
				byID[ex.ID] = ex
			}
			for _, id := range ids {
				ex, ok := byID[id]
				switch {
				case !ok:
					row = append(row, textcol.Plain("-"))
				case ex.Passed:
					row = append(row, textcol.Cell{Text: "pass", Paint: st.Pass})
				default:
					row = append(row, textcol.Cell{Text: "FAIL", Paint: st.Fail})
				}
			}
			row = append(row, textcol.Plain(fmt.Sprintf("%s/%d", report.FormatPoints(r.Report.Score), r.Report.MaxScore)))
			switch {
			case r.Report.Build.Rejected:
				note = "rejected before building"
			case !r.Report.Build.OK:
				note = "build failed"
			}
			if n := r.Report.Late.Note(); n != "" {
				note = joinNote(note, n)
			}
		}
		if note != "" {
			hasNote = true
			row = append(row, textcol.Cell{Text: note, Paint: st.Dim})
		}
		rows = append(rows, row)
	}
	if hasNote {
		rows[0] = append(rows[0], textcol.Plain("NOTE"))
	}
	return textcol.Write(w, rows)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Outcomes counts the results that failed some exercise and those that
// could not be graded: what a class run's exit status says.
func Outcomes(results []Result) (failed, notGraded int) {
	for _, r := range results {
		switch {
		case r.Err != nil:
			notGraded++
		case !r.Report.Passed():
			failed++
		}
	}
	return failed, notGraded
}

// Elapsed is the closing line of a class run: how many were graded, in how
// long, and how many could not be.
func Elapsed(graded, notGraded int, elapsed time.Duration) string {
	s := "s"
	if graded == 1 {
		s = ""
	}
	line := fmt.Sprintf("graded %d submission%s in %.1fs", graded, s, elapsed.Seconds())
	if notGraded > 0 {
		line += fmt.Sprintf(", %d could not be graded", notGraded)
	}
	return line
}
