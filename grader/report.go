package grader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"
)

// Report is the verdict on one submission. Its JSON form is what
// `course grade --json` prints.
type Report struct {
	Submission string           `json:"submission"`
	Path       string           `json:"path"`
	Lab        string           `json:"lab"`
	Build      Build            `json:"build"`
	Exercises  []ExerciseReport `json:"exercises"`
	Score      float64          `json:"score"` // in hundredths at most
	MaxScore   int              `json:"max_score"`
	// Late is set when a late policy was applied; Score is then the score
	// after its penalty, and Late.RawScore the one before.
	Late      *Late     `json:"late,omitempty"`
	Isolation Isolation `json:"isolation"`
	// Race is true when the submission was built with the race detector:
	// a data race then fails the exercise whose run it happened in.
	Race    bool    `json:"race"`
	Seconds float64 `json:"seconds"`
}

// Build is how building the submission went.
type Build struct {
	OK bool `json:"ok"`
	// Rejected is true when the static check refused the file, so nothing was built.
	Rejected bool    `json:"rejected,omitempty"`
	Output   string  `json:"output"`
	Seconds  float64 `json:"seconds,omitempty"`
}

// ExerciseReport is the verdict on one exercise.
type ExerciseReport struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Bonus     bool    `json:"bonus,omitempty"` // graded only because it was asked for
	Passed    bool    `json:"passed"`
	Points    float64 `json:"points"` // in hundredths at most; a whole number unless scored per test
	MaxPoints int     `json:"max_points"`
	Reason    string  `json:"reason,omitempty"` // why it failed, in one line: safe to show a student at once
	// Scoring is lab.ScoreAll (the points for passing every test) or
	// lab.ScorePerTest (each passed test earns its share, Tests[].Points).
	Scoring string `json:"scoring"`
	// HiddenReason is the whole reason of a failed hidden run, whose detail
	// may quote the hidden tests: for instructors, and for students only
	// with the hidden tests' details.
	HiddenReason string       `json:"hidden_reason,omitempty"`
	Tests        []TestReport `json:"tests"`
	Output       string       `json:"output,omitempty"` // output outside any test
	Seconds      float64      `json:"seconds,omitempty"`
}

// TestReport is one test of an exercise.
type TestReport struct {
	Name   string `json:"name"`
	Status string `json:"status"` // one of the Status constants
	Hidden bool   `json:"hidden"`
	Output string `json:"output"`
	// Points and MaxPoints are set in an exercise scored per test: what
	// this test earned and what it is worth.
	Points    *float64 `json:"points,omitempty"`
	MaxPoints *float64 `json:"max_points,omitempty"`

	// void: the run that gave this result imitated the test runner or left
	// an unreadable report; its results earn nothing on their own.
	void bool
}

// Passed reports whether every exercise passed.
func (r *Report) Passed() bool {
	for _, ex := range r.Exercises {
		if !ex.Passed {
			return false
		}
	}
	return len(r.Exercises) > 0
}

// TestsPassed counts the passing tests of an exercise.
func (e *ExerciseReport) TestsPassed() int { return countStatus(e.Tests, StatusPass) }

// HiddenCount returns how many of the exercise's tests are hidden, and how
// many of those passed: what a student may know of them.
func (e *ExerciseReport) HiddenCount() (hidden, passed int) {
	for _, t := range e.Tests {
		if t.Hidden {
			hidden++
			if t.Status == StatusPass {
				passed++
			}
		}
	}
	return hidden, passed
}

// FirstFailure returns the first failing test and its output, or ok=false.
func (e *ExerciseReport) FirstFailure() (TestReport, bool) {
	for _, t := range e.Tests {
		if t.Status != StatusPass && t.Status != StatusNotRun {
			return t, true
		}
	}
	return TestReport{}, false
}

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
func WriteText(w io.Writer, r *Report, st Style) error {
	fmt.Fprintf(w, "%s  (lab %s, %s)\n", PrintableLine(r.Submission), PrintableLine(r.Lab), PrintableLine(r.Path))
	if !r.Build.OK {
		what := "build failed"
		if r.Build.Rejected {
			what = "rejected before building"
		}
		fmt.Fprintf(w, "%s:\n%s\n", st.Fail(what), indent(printable(strings.TrimRight(r.Build.Output, "\n")), "  "))
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s/%d\n", ex.ID, ex.Name, verdict, ex.TestsPassed(), len(ex.Tests), FormatPoints(ex.Points), ex.MaxPoints)
		if ex.Passed || !r.Build.OK {
			continue
		}
		notes[i] = append(notes[i], st.Dim(printable(ex.Reason)))
		if ex.HiddenReason != "" {
			notes[i] = append(notes[i], st.Dim(printable(ex.HiddenReason)))
		}
		if t, ok := ex.FirstFailure(); ok {
			notes[i] = append(notes[i], st.Dim(fmt.Sprintf("first failure: %s (%s)", printable(t.Name), t.Status)))
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
	_, err := fmt.Fprintf(w, "\nscore %s/%d   isolation: %s%s   %.1fs\n", FormatPoints(r.Score), r.MaxScore, r.Isolation.Name, race, r.Seconds)
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
		keep = append(keep, printable(line))
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

// printable shows a line of student-controlled output safely on a
// terminal: control characters (an escape sequence could move the cursor
// and paint a fake "pass" over a failure) become visible \x escapes; tabs
// and newlines stay.
// Printable is line made safe to print: control and bidirectional
// characters become visible \x and \u escapes. Reports print every text
// that comes from a submission through it.
func Printable(line string) string { return printable(line) }

// PrintableLine is Printable that also escapes tabs, newlines and carriage
// returns: for a name or a one-line reason, which must stay one line (a
// submission named "zed\nalice  pass" would add a row to a table).
func PrintableLine(s string) string {
	s = printable(s)
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	return strings.NewReplacer("\t", `\x09`, "\n", `\x0a`, "\r", `\x0d`).Replace(s)
}

func printable(line string) string {
	if strings.IndexFunc(line, isUnsafeRune) < 0 {
		return line
	}
	var b strings.Builder
	for _, r := range line {
		switch {
		case isUnsafeRune(r) && r < 0x100:
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		case isUnsafeRune(r):
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isUnsafeRune: control characters (a terminal's escape sequences start
// with one) and the bidirectional controls that make text read otherwise
// than it is stored.
func isUnsafeRune(r rune) bool {
	return r != '\t' && r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) ||
		r == '\u2028' || r == '\u2029') // line and paragraph separators break a line too
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
	text = ClipLine(PrintableLine(text), maxCSVCell)
	if text != "" && strings.ContainsRune("=+-@", rune(text[0])) {
		return "'" + text
	}
	return text
}

// ClipLine keeps the first n bytes of a line (whole runes), saying how many
// more there were.
func ClipLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:cut], len(s)-cut)
}

// CSVRow is r as a row under CSVHeader(exerciseIDs).
func CSVRow(r *Report, exerciseIDs []string) []string {
	row := []string{CSVCell(r.Submission)}
	byID := map[string]ExerciseReport{}
	for _, ex := range r.Exercises {
		byID[ex.ID] = ex
	}
	for _, id := range exerciseIDs {
		ex, ok := byID[id]
		switch {
		case !ok:
			row = append(row, "")
		default:
			row = append(row, FormatPoints(ex.Points))
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
		raw, penalty = FormatPoints(r.Late.RawScore), FormatPoints(r.Late.Penalty*100)+"%"
	}
	return append(row, FormatPoints(r.Score), strconv.Itoa(r.MaxScore), raw, penalty, CSVCell(note))
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
