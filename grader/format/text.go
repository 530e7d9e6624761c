package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
			fmt.Fprintf(w, "\n--- %s %s:\n%s", ex.ID, t.Name, indent(FailureExcerpt(t.Output), "    "))
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

func indent(s, prefix string) string {
	if s == "" {
		return ""
	}
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) + "\n"
}
