package grader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
)

// WriteJSON writes r as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Style colours text for a terminal; the zero value adds no colour.
type Style struct{ Color bool }

func (s Style) paint(code, text string) string {
	if !s.Color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// Pass and Fail format a verdict word.
func (s Style) Pass(text string) string { return s.paint("32", text) }
func (s Style) Fail(text string) string { return s.paint("31", text) }

// Dim formats secondary text.
func (s Style) Dim(text string) string { return s.paint("2", text) }

// WriteText writes r as an aligned table for a person: one row an exercise,
// the reason and first failing test under a failing row, then the score.
func WriteText(w io.Writer, r *report.Report, st Style) error {
	fmt.Fprintf(w, "%s  (lab %s, %s)\n", safetext.Line(r.Submission), safetext.Line(r.Lab), safetext.Line(r.Path))
	if !r.Build.OK {
		what := "build failed"
		if r.Build.Rejected {
			what = "rejected before building"
		}
		fmt.Fprintf(w, "%s:\n%s\n", st.Fail(what), indent(safetext.Printable(strings.TrimRight(r.Build.Output, "\n")), "  "))
	}
	// The rows are aligned first, then coloured, and the notes under a
	// failing row put in afterwards, starting under NAME: tabwriter counts
	// colour codes as text, and a note in a cell would widen its column.
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EXERCISE\tNAME\tRESULT\tTESTS\tPOINTS")
	notes := make([][]string, len(r.Exercises))
	for i, ex := range r.Exercises {
		verdict := "pass"
		if !ex.Passed {
			verdict = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s/%d\n", ex.ID, ex.Name, verdict, ex.TestsPassed(), len(ex.Tests), report.FormatPoints(ex.Points), ex.MaxPoints)
		if ex.Passed || !r.Build.OK {
			continue
		}
		notes[i] = append(notes[i], st.Dim(safetext.Printable(ex.Reason)))
		if ex.HiddenReason != "" {
			notes[i] = append(notes[i], st.Dim(safetext.Printable(ex.HiddenReason)))
		}
		if t, ok := ex.FirstFailure(); ok {
			notes[i] = append(notes[i], st.Dim(fmt.Sprintf("first failure: %s (%s)", safetext.Printable(t.Name), t.Status)))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	lines := strings.SplitAfter(table.String(), "\n")
	pad := strings.Repeat(" ", strings.Index(lines[0], "NAME"))
	at := strings.Index(lines[0], "RESULT") // a rune column, as tabwriter counts
	io.WriteString(w, lines[0])
	for i, ex := range r.Exercises {
		row := []rune(lines[i+1])
		verdict := st.Pass("pass")
		if !ex.Passed {
			verdict = st.Fail("FAIL")
		}
		io.WriteString(w, string(row[:at])+verdict+string(row[at+len("pass"):]))
		for _, n := range notes[i] {
			fmt.Fprintf(w, "%s%s\n", pad, n)
		}
	}
	for _, ex := range r.Exercises {
		if t, ok := ex.FirstFailure(); ok && !ex.Passed && t.Output != "" {
			fmt.Fprintf(w, "\n--- %s %s:\n%s", ex.ID, t.Name, indent(failureExcerpt(t.Output), "    "))
		}
	}
	race := ""
	if r.Race {
		race = "   race detector on"
	}
	if d := r.Late.Describe(); d != "" {
		fmt.Fprintf(w, "\n%s\n", d)
	}
	_, err := fmt.Fprintf(w, "\nscore %s/%d   isolation: %s%s   %.1fs\n", report.FormatPoints(r.Score), r.MaxScore, r.Isolation.Name, race, r.Seconds)
	return err
}

// failureExcerpt keeps the lines of a test's output a person needs: the
// testify block, without the === RUN / --- FAIL framing.
func failureExcerpt(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		framing := strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- FAIL") ||
			strings.HasPrefix(t, "--- PASS") || strings.HasPrefix(t, "--- SKIP") // not testify's "--- Expected"
		if framing || t == "" {
			continue
		}
		keep = append(keep, safetext.Printable(line))
		if len(keep) == 30 {
			keep = append(keep, "…")
			break
		}
	}
	if len(keep) == 0 {
		return "(no output: the test printed nothing before it ended or was stopped)\n"
	}
	return strings.Join(keep, "\n") + "\n"
}

func indent(s, prefix string) string {
	if s == "" {
		return ""
	}
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) + "\n"
}

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
	note := ""
	if !r.Build.OK {
		note = "build failed: " + compilerLine(r.Build.Output)
		if r.Build.Rejected && len(r.Exercises) > 0 {
			note, _, _ = strings.Cut(r.Exercises[0].Reason, "; a lab file may import only")
		}
	}
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
	return append(row, "", "", "", "", CSVCell("not graded: "+firstLine(err.Error())))
}

// compilerLine picks the first line of a build's output that says what is
// wrong (not the "# package" header).
func compilerLine(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return t
		}
	}
	return "see the build output"
}
