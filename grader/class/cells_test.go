package class

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coursekit/course/grader/late"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
	"github.com/stretchr/testify/assert"
)

// A class table a gradebook imports: points per exercise, the score after
// any late penalty, the raw score and the penalty; text from submissions
// cannot become a spreadsheet formula or a terminal escape.
func TestCSVRowGivesPointsAndIsSafeInASpreadsheet(t *testing.T) {
	ids := []string{"10.1", "10.2", "10.3"}
	assert.Equal(t, []string{"submission", "10.1", "10.2", "10.3", "score", "max_score", "raw_score", "late_penalty", "note"}, CSVHeader(ids))

	r := &report.Report{Submission: "=HYPERLINK(\"http://x\")", Build: report.Build{OK: true}, Score: 22.5, MaxScore: 50,
		Exercises: []report.ExerciseReport{
			{ID: "10.1", Passed: true, Points: 15, MaxPoints: 15},
			{ID: "10.2", Points: 7.5, MaxPoints: 20, Scoring: "per-test"},
		}}
	due := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	p, err := late.Parse("20%/day")
	assert.NoError(t, err)
	p.Apply(r, due, due.Add(time.Hour))
	row := CSVRow(r, ids)
	assert.Equal(t, []string{"'=HYPERLINK(\"http://x\")", "15", "7.5", "", "18", "50", "22.5", "20%", ""}, row,
		"CSVRow(a late submission named like a formula)")

	bad := CSVRow(&report.Report{Submission: "x\x1b[2J", Build: report.Build{OK: false, Output: "# p\nsession.go:1:1: boom\n"}, MaxScore: 50}, ids)
	assert.Equal(t, `x\x1b[2J`, bad[0])
	assert.Equal(t, "build failed: session.go:1:1: boom", bad[len(bad)-1])

	row = ErrorCSVRow("@sum", ids, errors.New("holds no session.go\nsecond line"))
	assert.Equal(t, []string{"'@sum", "", "", "", "", "", "", "", "not graded: holds no session.go"}, row)
	assert.Len(t, row, len(CSVHeader(ids)))
}

// Names and notes stay one line, and a tab or carriage return before a
// formula does not let a spreadsheet run it (OWASP's CSV injection list).
func TestCSVCellAndPrintableLineKeepOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"\t=HYPERLINK(\"x\")": `\x09=HYPERLINK("x")`,
		"\r=1+1":              `\x0d=1+1`,
		"=1+1":                "'=1+1",
		"zed\nalice  pass":    `zed\x0aalice  pass`, // not "zed alice": another student may be named so
		"ls\u2028\u202eexe":   `ls\u2028\u202eexe`,
		"bob\x1b[2J":          `bob\x1b[2J`,
		"plain name, 王小明":     "plain name, 王小明",
	} {
		assert.Equal(t, want, CSVCell(in), "CSVCell(%q)", in)
	}
	assert.Equal(t, `zed\x0aalice  pass 15/15`, safetext.Line("zed\nalice  pass 15/15"),
		"a newline in a submission's name would add a row to a table")
	assert.Equal(t, "two\nlines", safetext.Printable("two\nlines"), "Printable keeps the lines of a test's output")
	long := CSVCell(strings.Repeat("A", 500_000))
	assert.Less(t, len(long), 600, "a note of 500 KB is cut short: a spreadsheet keeps 32,767 characters of a cell")
	assert.True(t, strings.HasSuffix(long, "… (499500 more bytes)"), long[len(long)-40:])
}
