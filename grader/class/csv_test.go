package class

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/report"
)

// ids7 are the exercises of the fixture lab 7 that the CSV tests grade.
var ids7 = []string{"7.1", "7.2"}

// header7 is the CSV header `course grade --csv` writes for ids7.
const header7 = "submission,7.1,7.2,score,max_score,raw_score,late_penalty,note\n"

// gradedCSV is what `course grade --csv` writes for the fixture class of
// lab 7 and ids7: rows made by grader.CSVRow and grader.ErrorCSVRow,
// written by encoding/csv, one a passing late submission.
func gradedCSV(t *testing.T) string {
	t.Helper()
	reports, notGraded := class()
	erin := reportOf("erin", 1, pass71(), pass72())
	erin.Late = &report.Late{Penalty: 0.1, RawScore: 20}
	erin.Score = 18
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	require.NoError(t, w.Write(CSVHeader(ids7)))
	for _, r := range append(reports, erin) {
		require.NoError(t, w.Write(CSVRow(r, ids7)))
	}
	require.NoError(t, w.Write(ErrorCSVRow("dave", ids7, errors.New(notGraded["dave"]))))
	w.Flush()
	require.NoError(t, w.Error())
	return b.String()
}

// readRoster reads testdata/csv/roster.csv, a spreadsheet's export: a byte
// order mark, CRLF line ends, " Submission " as the third of four columns,
// a quoted name with a comma, an email that is a formula, a blank row.
func readRoster(t *testing.T) *Roster {
	t.Helper()
	f, err := os.Open("testdata/csv/roster.csv")
	require.NoError(t, err)
	defer f.Close()
	ros, err := ReadRoster(f)
	require.NoError(t, err, "ReadRoster(testdata/csv/roster.csv)")
	return ros
}

func TestReadGradebookCSV_ReadsWhatCourseGradeWrites(t *testing.T) {
	text := gradedCSV(t)
	g, err := ReadGradebook(strings.NewReader(text), ids7)
	require.NoError(t, err, "ReadGradebook of:\n%s", text)
	assert.Equal(t, CSVHeader(ids7), g.Header)
	assert.Equal(t, 0, g.Roster)
	var names []string
	for _, row := range g.Rows {
		names = append(names, row[0])
	}
	assert.Equal(t, []string{"carol", "alice", "bob", "erin", "dave"}, names, "rows in the file's order")
	assert.Equal(t, []string{"erin", "10", "10", "18", "20", "20", "10%", ""}, g.Rows[3])

	var out bytes.Buffer
	require.NoError(t, g.Write(&out))
	assert.Equal(t, text, out.String(), "Write writes back what was read")
}

func TestReadGradebookCSV_NamesTheFileItReads(t *testing.T) {
	p := t.TempDir() + "/grades.csv"
	require.NoError(t, os.WriteFile(p, []byte("submission,7.1,7.3,score,max_score,raw_score,late_penalty,note\n"), 0o644))
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	_, err = ReadGradebook(f, ids7)
	require.Error(t, err)
	assert.Equal(t, p+`, line 1: column 3 is "7.3", want "7.2": `+otherExercises, err.Error())
}

func TestReadGradebookCSV_RefusesWhatItCannotTrust(t *testing.T) {
	row := func(cells ...string) string { return strings.Join(cells, ",") + "\n" }
	alice := row("alice", "10", "10", "20", "20", "", "", "")
	for _, c := range []struct {
		name, text   string
		line, column int
		want         string // the whole message
	}{
		{"an empty file", "", 0, 0,
			"gradebook: the file is empty: " + notOurs},
		{"not a gradebook", "name,email\nalice,a@x\n", 1, 1,
			`gradebook, line 1: column 1 is "name", want "submission": ` + notOurs},
		{"other exercises", "submission,7.1,7.3,score,max_score,raw_score,late_penalty,note\n", 1, 3,
			`gradebook, line 1: column 3 is "7.3", want "7.2": ` + otherExercises},
		{"one more exercise", "submission,7.1,7.2,7.3,score,max_score,raw_score,late_penalty,note\n", 1, 4,
			`gradebook, line 1: column 4 is "7.3", want "score": ` + otherExercises},
		{"one exercise fewer", "submission,7.1,score,max_score,raw_score,late_penalty,note\n", 1, 3,
			`gradebook, line 1: column 3 is "score", want "7.2": ` + otherExercises},
		{"the note missing", "submission,7.1,7.2,score,max_score,raw_score,late_penalty\n", 1, 8,
			`gradebook, line 1: column 8 is missing, want "note": ` + otherExercises},
		{"a column after the note", strings.TrimSuffix(header7, "\n") + ",extra\n", 1, 9,
			`gradebook, line 1: column 9 is "extra", want no more columns: ` + otherExercises},
		{"a roster column without a name", "submission,email,,7.1,7.2,score,max_score,raw_score,late_penalty,note\n", 1, 3,
			"gradebook, line 1: column 3, a roster column, has no name"},
		{"a roster column twice", "submission,email,Email,7.1,7.2,score,max_score,raw_score,late_penalty,note\n", 1, 3,
			`gradebook, line 1: column 3 is "Email" again (column 2)`},
		{"a roster column named submission", "submission,Submission,7.1,7.2,score,max_score,raw_score,late_penalty,note\n", 1, 2,
			`gradebook, line 1: column 2 is "Submission" again (column 1)`},
		{"a short row after a note of two lines", header7 + row("bob", "", "", "", "", "", "", `"not graded:`+"\n"+`two lines"`) + "carol,1,2\n", 4, 0,
			"gradebook, line 4: 3 cells, want 8 as in the header"},
		{"a long row", header7 + row("alice", "10", "10", "20", "20", "", "", "", "x"), 2, 0,
			"gradebook, line 2: 9 cells, want 8 as in the header"},
		{"a submission twice", header7 + alice + row("bob", "0", "0", "0", "20", "", "", "") + alice, 4, 1,
			`gradebook, line 4: submission "alice" is also on line 2`},
		{"a name and its spreadsheet-safe cell", header7 + row("-x", "0", "0", "0", "20", "", "", "") + row("'-x", "0", "0", "0", "20", "", "", ""), 3, 1,
			`gradebook, line 3: submission "'-x" is also on line 2`},
		{"no submission name", header7 + row(" ", "10", "10", "20", "20", "", "", ""), 2, 1,
			"gradebook, line 2: no submission name"},
		{"points that are not a number", header7 + row("alice", "ten", "10", "20", "20", "", "", ""), 2, 2,
			`gradebook, line 2: column 2 (7.1) is "ten", not a number course grade writes there`},
		{"a score that is not a number", header7 + row("alice", "10", "10", "NaN", "20", "", "", ""), 2, 4,
			`gradebook, line 2: column 4 (score) is "NaN", not a number course grade writes there`},
		{"a max_score that is not whole", header7 + row("alice", "10", "10", "20", "20.5", "", "", ""), 2, 5,
			`gradebook, line 2: column 5 (max_score) is "20.5", not a number course grade writes there`},
		{"a penalty without its percent", header7 + row("alice", "10", "10", "18", "20", "20", "10", ""), 2, 7,
			`gradebook, line 2: column 7 (late_penalty) is "10", not a number course grade writes there`},
		{"a quote left open", header7 + alice + `bob,"0,0,0,20,,,` + "\n", 3, 0,
			`gradebook, line 3: not valid CSV (column 18): extraneous or missing " in quoted-field`},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := ReadGradebook(strings.NewReader(c.text), ids7)
			require.Error(t, err, "ReadGradebook(%q)", c.text)
			assert.Nil(t, g)
			var ge *GradebookError
			require.True(t, errors.As(err, &ge), "%T is a *GradebookError", err)
			assert.Equal(t, c.want, err.Error())
			assert.Equal(t, c.line, ge.Line, "line")
			assert.Equal(t, c.column, ge.Column, "column")
			if strings.Contains(c.want, "not valid CSV") {
				assert.ErrorIs(t, err, csv.ErrQuote)
			}
		})
	}
}

func TestGradebookCSV_Failed(t *testing.T) {
	g, err := ReadGradebook(strings.NewReader(gradedCSV(t)), ids7)
	require.NoError(t, err)
	require.NoError(t, g.Put([]string{"=frank", "10", "10", "20", "20", "", "", ""}))
	require.NoError(t, g.Put([]string{"gina", "10", "10", "20", "20", "", "", "build failed: x.go:1: oops"}))
	require.NoError(t, g.Put([]string{"ivy", "10", "10", "20", "", "", "", ""}))
	require.NoError(t, g.Put([]string{"joe", "10", "10", "25", "20", "", "", ""}))
	for _, c := range []struct {
		name          string
		failed, known bool
	}{
		{"alice", false, true}, // full marks
		{"bob", true, true},    // 10 of 20
		{"carol", true, true},  // 0 of 20
		{"dave", true, true},   // not graded
		{"erin", true, true},   // 18 of 20, late
		{"=frank", false, true},
		{"'=frank", false, true},
		{"gina", true, true}, // full marks, but the build failed
		{"ivy", true, true},  // no max_score
		{"joe", false, true}, // above the maximum: a bonus
		{"zed", false, false},
		{"", false, false},
	} {
		failed, known := g.Failed(c.name)
		assert.Equal(t, c.known, known, "Failed(%q): known", c.name)
		assert.Equal(t, c.failed, failed, "Failed(%q): failed", c.name)
	}
}

func TestGradebookCSV_PutReplacesInPlaceOrAppends(t *testing.T) {
	g, err := ReadGradebook(strings.NewReader(gradedCSV(t)), ids7)
	require.NoError(t, err)
	bob := CSVRow(reportOf("bob", 1, pass71(), pass72()), ids7)
	require.NoError(t, g.Put(bob))
	require.NoError(t, g.Put(ErrorCSVRow("=zoe", ids7, errors.New("no such folder"))))
	bob[1] = "changed after Put"
	var names []string
	for _, row := range g.Rows {
		names = append(names, row[0])
	}
	assert.Equal(t, []string{"carol", "alice", "bob", "erin", "dave", "'=zoe"}, names)
	assert.Equal(t, []string{"bob", "10", "10", "20", "20", "", "", ""}, g.Rows[2], "bob's new row, where his old one was, not changed through the caller's slice")
	failed, known := g.Failed("bob")
	assert.True(t, known)
	assert.False(t, failed, "bob passes now")

	for _, row := range [][]string{nil, {}, {"", "1", "1", "2", "20", "", "", ""}, {"bob", "10"}} {
		err := g.Put(row)
		var ge *GradebookError
		require.True(t, errors.As(err, &ge), "Put(%q): %v is a *GradebookError", row, err)
	}
	assert.Len(t, g.Rows, 6, "a refused row changes nothing")
	assert.EqualError(t, g.Put([]string{"bob", "10"}), `gradebook: submission "bob": a row of 2 cells, want 8`)
}

func TestGradebookCSV_PutKeepsTheRosterCells(t *testing.T) {
	header, rows, _ := JoinRoster(CSVHeader(ids7), [][]string{
		CSVRow(reportOf("alice", 1, pass71(), fail72()), ids7),
	}, readRoster(t))
	g := &Gradebook{Header: header, Rows: rows, Roster: 3}
	require.NoError(t, g.Put(CSVRow(reportOf("alice", 1, pass71(), pass72()), ids7)))
	require.NoError(t, g.Put(CSVRow(reportOf("eve", 1, pass71(), pass72()), ids7)))
	require.NoError(t, g.Put(CSVRow(reportOf("mallory", 1, pass71(), pass72()), ids7)))
	assert.Equal(t, [][]string{
		{"alice", "1001", "Lovelace, Ada", "ada@example.edu", "10", "10", "20", "20", "", "", ""},
		{"bob", "1002", "Bob Byte", `'=HYPERLINK("http://x")`, "", "", "", "", "", "", "no submission"},
		{"eve", "1003", "Eve Evans", "eve@example.edu", "10", "10", "20", "20", "", "", ""},
		{"mallory", "", "", "", "10", "10", "20", "20", "", "", ""},
	}, g.Rows)
	require.NoError(t, g.Put([]string{"bob", "1002", "Bob Byte", "bob@example.edu", "0", "0", "0", "20", "", "", ""}), "a row of the whole width")
	assert.Equal(t, "bob@example.edu", g.Rows[1][3])
	assert.EqualError(t, g.Put([]string{"bob", "1", "2"}), `gradebook: submission "bob": a row of 3 cells, want 11, or 8 without the roster's`)
}

func TestGradebookCSV_WriteMakesCellsSafeAndRefusesRaggedRows(t *testing.T) {
	g := &Gradebook{Header: CSVHeader(ids7), Rows: [][]string{
		{"-rm", "10", "10", "20", "20", "", "", "line\none \x1b[2J"},
		{"ok", "10", "10", "20", "20", "", "", `say "hi", then`},
	}}
	var b bytes.Buffer
	require.NoError(t, g.Write(&b))
	assert.Equal(t, header7+`'-rm,10,10,20,20,,,line\x0aone \x1b[2J`+"\n"+`ok,10,10,20,20,,,"say ""hi"", then"`+"\n", b.String())

	g.Rows = append(g.Rows, []string{"short"})
	b.Reset()
	err := g.Write(&b)
	var ge *GradebookError
	require.True(t, errors.As(err, &ge), "%v is a *GradebookError", err)
	assert.EqualError(t, err, "gradebook: row 3 has 1 cells, want 8 as in the header")
	assert.Empty(t, b.String(), "nothing written")
}

func TestReadRoster_ReadsASpreadsheetsExport(t *testing.T) {
	ros := readRoster(t)
	assert.Equal(t, []string{"Student ID", "Name", "Email"}, ros.Columns())
	assert.Equal(t, []string{"alice", "bob", "eve"}, ros.Submissions())
	for _, c := range []struct {
		name  string
		cells []string
	}{
		{"alice", []string{"1001", "Lovelace, Ada", "ada@example.edu"}},
		{" bob ", []string{"1002", "Bob Byte", `=HYPERLINK("http://x")`}},
		{"eve", []string{"1003", "Eve Evans", "eve@example.edu"}},
		{"mallory", nil},
		{"", nil},
	} {
		cells, ok := ros.Lookup(c.name)
		assert.Equal(t, c.cells != nil, ok, "Lookup(%q): found", c.name)
		assert.Equal(t, c.cells, cells, "Lookup(%q)", c.name)
	}
	assert.Equal(t, []string{"alice", "eve"}, ros.Missing([]string{"bob", "mallory"}))
	assert.Nil(t, ros.Missing([]string{"eve", "bob", "alice"}))
	assert.Equal(t, []string{"alice", "bob", "eve"}, ros.Missing(nil))

	cells, _ := ros.Lookup("alice")
	cells[0] = "changed"
	again, _ := ros.Lookup("alice")
	assert.Equal(t, "1001", again[0], "Lookup returns a copy")
}

func TestReadRoster_MatchesNamesAsTheGraderWritesThem(t *testing.T) {
	ros, err := ReadRoster(strings.NewReader("submission,email\n-dash,d@x\n"))
	require.NoError(t, err)
	for _, name := range []string{"-dash", "'-dash"} {
		cells, ok := ros.Lookup(name)
		assert.True(t, ok, "Lookup(%q)", name)
		assert.Equal(t, []string{"d@x"}, cells)
	}
	assert.Nil(t, ros.Missing([]string{"'-dash"}))
}

func TestReadRoster_RefusesWhatItCannotUse(t *testing.T) {
	for _, c := range []struct {
		name, text   string
		line, column int
		want         string
	}{
		{"an empty file", "", 0, 0,
			`roster: the file is empty: a roster is a CSV file with a header naming a "submission" column`},
		{"no submission column", "student_id,email\n1,a@x\n", 1, 0,
			`roster, line 1: no "submission" column: name the column holding each student's submission name (the folder or file name course grade prints) "submission"`},
		{"no student", "submission,email\n", 0, 0,
			"roster: no student: the roster has a header and no row"},
		{"a column without a name", "submission,email,\nalice,a@x,\n", 1, 3,
			"roster, line 1: column 3 has no name"},
		{"a column twice", "email,submission, Email \nalice,a@x,b@x\n", 1, 3,
			`roster, line 1: column 3 is "Email", as column 1 is`},
		{"two submission columns", "Submission,submission\nalice,bob\n", 1, 2,
			`roster, line 1: column 2 is "submission", as column 1 is`},
		{"a column the gradebook has", "submission,Score\nalice,1\n", 1, 2,
			`roster, line 1: column 2 is "Score", a column of the gradebook's own: rename it`},
		{"a column like an exercise", "submission,10.2\nalice,1\n", 1, 2,
			`roster, line 1: column 2 is "10.2", which looks like an exercise id: rename it`},
		{"no submission name", "email,submission\na@x,alice\nb@x, \n", 3, 2,
			"roster, line 3: no submission name"},
		{"a submission twice", "submission,email\nalice,a@x\n\"bob\nby\",b@x\nalice ,c@x\n", 5, 1,
			`roster, line 5: submission "alice" is also on line 2`},
		{"a short row", "submission,email,name\nalice,a@x,Ada\nbob,b@x\n", 3, 0,
			"roster, line 3: 2 cells, want 3 as in the header"},
		{"a stray quote", "submission,email\nal\"ice,a@x\n", 2, 0,
			`roster, line 2: not valid CSV (column 3): bare " in non-quoted-field`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ros, err := ReadRoster(strings.NewReader(c.text))
			require.Error(t, err, "ReadRoster(%q)", c.text)
			assert.Nil(t, ros)
			var re *RosterError
			require.True(t, errors.As(err, &re), "%T is a *RosterError", err)
			assert.Equal(t, c.want, err.Error())
			assert.Equal(t, c.line, re.Line, "line")
			assert.Equal(t, c.column, re.Column, "column")
			if strings.Contains(c.want, "not valid CSV") {
				assert.ErrorIs(t, err, csv.ErrBareQuote)
			}
		})
	}
}

func TestJoinRoster_GivesEveryStudentARow(t *testing.T) {
	ros := readRoster(t)
	header := CSVHeader(ids7)
	rows := [][]string{
		CSVRow(reportOf("eve", 1, pass71(), pass72()), ids7),
		ErrorCSVRow("mallory", ids7, errors.New("holds no session.go")),
		CSVRow(reportOf("alice", 1, pass71(), fail72()), ids7),
	}
	before := fmt.Sprint(header, rows)
	newHeader, newRows, unknown := JoinRoster(header, rows, ros)
	assert.Equal(t, before, fmt.Sprint(header, rows), "the arguments are not changed")
	assert.Equal(t, []string{"submission", "Student ID", "Name", "Email", "7.1", "7.2", "score", "max_score", "raw_score", "late_penalty", "note"}, newHeader)
	assert.Equal(t, [][]string{
		{"eve", "1003", "Eve Evans", "eve@example.edu", "10", "10", "20", "20", "", "", ""},
		{"mallory", "", "", "", "", "", "", "", "", "", "not graded: holds no session.go"},
		{"alice", "1001", "Lovelace, Ada", "ada@example.edu", "10", "0", "10", "20", "", "", ""},
		{"bob", "1002", "Bob Byte", `'=HYPERLINK("http://x")`, "", "", "", "", "", "", "no submission"},
	}, newRows)
	assert.Equal(t, []string{"mallory"}, unknown)

	// The joined table is a gradebook ReadGradebook takes back.
	var b bytes.Buffer
	require.NoError(t, (&Gradebook{Header: newHeader, Rows: newRows}).Write(&b))
	g, err := ReadGradebook(&b, ids7)
	require.NoError(t, err, "ReadGradebook of the joined table")
	assert.Equal(t, 3, g.Roster)
	assert.Equal(t, newHeader, g.Header)
	assert.Equal(t, newRows, g.Rows)
	for name, want := range map[string]bool{"eve": false, "alice": true, "bob": true, "mallory": true} {
		failed, known := g.Failed(name)
		assert.True(t, known, "Failed(%q): known", name)
		assert.Equal(t, want, failed, "Failed(%q)", name)
	}
	_, err = ReadGradebook(strings.NewReader(b.String()), []string{"7.1"})
	require.Error(t, err, "the joined table is for 7.1 and 7.2")
}

func TestJoinRoster_WithoutRosterCopies(t *testing.T) {
	header := CSVHeader(ids7)
	rows := [][]string{CSVRow(reportOf("eve", 1, pass71(), pass72()), ids7)}
	newHeader, newRows, unknown := JoinRoster(header, rows, nil)
	assert.Equal(t, header, newHeader)
	assert.Equal(t, rows, newRows)
	assert.Nil(t, unknown)
	newRows[0][0] = "changed"
	assert.Equal(t, "eve", rows[0][0], "a copy")
}

// ExampleJoinRoster joins a roster to two graded submissions: bob, on the
// roster, handed nothing in, and mallory is not on it.
func ExampleJoinRoster() {
	ros, err := ReadRoster(strings.NewReader("email,submission\nalice@example.edu,alice\nbob@example.edu,bob\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	ids := []string{"7.1", "7.2"}
	header, rows, unknown := JoinRoster(CSVHeader(ids), [][]string{
		{"alice", "10", "5", "15", "20", "", "", ""},
		{"mallory", "10", "10", "20", "20", "", "", ""},
	}, ros)
	g := &Gradebook{Header: header, Rows: rows, Roster: len(ros.Columns())}
	if err := g.Write(os.Stdout); err != nil {
		fmt.Println(err)
	}
	fmt.Println("not on the roster:", unknown)
	// Output:
	// submission,email,7.1,7.2,score,max_score,raw_score,late_penalty,note
	// alice,alice@example.edu,10,5,15,20,,,
	// mallory,,10,10,20,20,,,
	// bob,bob@example.edu,,,,,,,no submission
	// not on the roster: [mallory]
}

// TestReadRoster_MatchesNamesComposedOrNot: "Zoë" typed in a spreadsheet
// (composed, NFC) and read from a macOS folder (decomposed, NFD) are one
// student, whichever side has which.
func TestReadRoster_MatchesNamesComposedOrNot(t *testing.T) {
	composed, decomposed := "Zo\u00eb", "Zoe\u0308"
	for _, tc := range [][2]string{{composed, decomposed}, {decomposed, composed}} {
		ros, err := ReadRoster(strings.NewReader("submission,email\n" + tc[0] + ",z@x\n"))
		require.NoError(t, err)
		cells, ok := ros.Lookup(tc[1])
		assert.True(t, ok, "a roster row %q, Lookup(%q)", tc[0], tc[1])
		assert.Equal(t, []string{"z@x"}, cells)
		assert.Nil(t, ros.Missing([]string{tc[1]}), "%q handed in", tc[1])
	}
}
