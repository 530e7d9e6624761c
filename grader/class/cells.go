package class

import (
	"strconv"
	"strings"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
)

// The cells of a class's CSV table, made safe for a spreadsheet.

// CSVHeader is the header row of a class table: submission, one column per
// exercise (the points it earned), score (after any late penalty), max
// score, raw score and late penalty (empty without a late policy), and a
// note.
func CSVHeader(exerciseIDs []string) []string {
	row := []string{"submission"}
	row = append(row, exerciseIDs...)
	return append(row, "score", "max_score", "raw_score", "late_penalty", "note")
}

// maxCSVCell bounds a cell (a note, a name): spreadsheets keep at most
// 32,767 characters of one, and a note is read at a glance.
const maxCSVCell = 500

// CSVCell makes text from a submission safe in a spreadsheet: control
// characters and line breaks escaped (a newline in a name must not make
// it read as another name), a cell that a spreadsheet would run as a
// formula (starting with =, +, -, @) quoted with a leading apostrophe, and
// a long text cut short.
func CSVCell(text string) string {
	text = safetext.Clip(safetext.Line(text), maxCSVCell)
	if text != "" && strings.ContainsRune("=+-@", rune(text[0])) {
		return "'" + text
	}
	return text
}

// CSVRow is r as a row under CSVHeader(exerciseIDs).
func CSVRow(r *report.Report, exerciseIDs []string) []string {
	row := []string{CSVCell(r.Submission)}
	byID := map[string]report.ExerciseReport{}
	for _, ex := range r.Exercises {
		byID[ex.ID] = ex
	}
	for _, id := range exerciseIDs {
		ex, ok := byID[id]
		switch {
		case !ok:
			row = append(row, "")
		default:
			row = append(row, report.FormatPoints(ex.Points))
		}
	}
	note := buildNote(r)
	raw, penalty := "", ""
	if r.Late != nil {
		raw, penalty = report.FormatPoints(r.Late.RawScore), report.FormatPoints(r.Late.Penalty*100)+"%"
	}
	return append(row, report.FormatPoints(r.Score), strconv.Itoa(r.MaxScore), raw, penalty, CSVCell(note))
}

// ErrorCSVRow is the row of a submission that could not be graded at all.
func ErrorCSVRow(name string, exerciseIDs []string, err error) []string {
	row := []string{CSVCell(name)}
	for range exerciseIDs {
		row = append(row, "")
	}
	return append(row, "", "", "", "", CSVCell("not graded: "+strings.SplitN(err.Error(), "\n", 2)[0]))
}

// buildNote says why r was not built, in one line: "rejected before
// building: <its first problem>", "build failed: <the compiler's line>";
// "" when it was built. The CSV's note and the class page say the same.
func buildNote(r *report.Report) string {
	if r.Build.OK {
		return ""
	}
	if c, ok := rejection(r); ok && c.Detail != "" {
		return "rejected before building: " + c.Detail
	}
	if r.Build.Rejected {
		return "rejected before building: " + format.CompilerLine(r.Build.Output)
	}
	return "build failed: " + format.CompilerLine(r.Build.Output)
}

// rejection is the cause of a report whose file the static check refused.
func rejection(r *report.Report) (report.Cause, bool) {
	if !r.Build.Rejected {
		return report.Cause{}, false
	}
	for _, ex := range r.Exercises {
		if c, ok := ex.Cause(report.Rejected); ok {
			return c, true
		}
	}
	return report.Cause{}, false
}
