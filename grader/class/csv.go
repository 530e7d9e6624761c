package class

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// This file reads and rewrites the table `course grade --csv` writes (a
// Gradebook) and joins a class roster to it, so that the file has a row for
// every student, with the columns a gradebook import (Canvas, Moodle,
// Gradescope) matches students by.

// ownColumns are the columns of grader.CSVHeader after the exercises.
var ownColumns = CSVHeader(nil)[1:]

// exerciseLike is a column name that looks like an exercise id ("10.2"):
// never a roster column, so that ReadGradebook can tell where the roster's
// columns end.
var exerciseLike = regexp.MustCompile(`^[0-9]+(\.[0-9]+)+$`)

// noSubmission is the note of a roster student's row that JoinRoster adds
// when the student handed nothing in.
const noSubmission = "no submission"

// otherExercises is the advice in the error for a gradebook written for
// other exercises.
const otherExercises = "the file was written for other exercises; grade with the same --chapter and --lab flags or start a new file"

// notOurs is the advice in the error for a file that is not a gradebook.
const notOurs = "not a table written by course grade --csv"

// GradebookError is what ReadGradebook, Put and Write return for a table
// that is not one `course grade --csv` wrote for the exercises asked for.
type GradebookError struct {
	File   string // the file's name when the reader has one, or "gradebook"
	Line   int    // the 1-based physical line at fault (1 for the header); 0 for the whole file or a row given to Put
	Column int    // the 1-based column at fault; 0 for the whole row or file
	Err    error
}

func (e *GradebookError) Error() string { return fileError(e.File, e.Line, e.Err) }

func (e *GradebookError) Unwrap() error { return e.Err }

// RosterError is what ReadRoster returns for a roster it cannot use.
type RosterError struct {
	File   string // the file's name when the reader has one, or "roster"
	Line   int    // the 1-based physical line at fault (1 for the header); 0 for the whole file
	Column int    // the 1-based column at fault; 0 for the whole row or file
	Err    error
}

func (e *RosterError) Error() string { return fileError(e.File, e.Line, e.Err) }

func (e *RosterError) Unwrap() error { return e.Err }

func fileError(file string, line int, err error) string {
	if line > 0 {
		return fmt.Sprintf("%s, line %d: %v", file, line, err)
	}
	return fmt.Sprintf("%s: %v", file, err)
}

// Gradebook is a table `course grade --csv` wrote: its header, which is
// grader.CSVHeader of the exercises with, when a roster was joined, the
// roster's columns after "submission"; and its rows, in the file's order.
type Gradebook struct {
	Header []string
	Rows   [][]string
	// Roster is the number of roster columns, which follow "submission";
	// 0 when no roster was joined.
	Roster int
}

// ReadGradebook reads a table that `course grade --csv` wrote for the
// exercises ids, maybe with a roster joined (JoinRoster). It fails closed:
// anything else is a *GradebookError naming the line and column at fault:
// an empty file or one that is not CSV; a header other than
// grader.CSVHeader(ids) with, maybe, roster columns after "submission" (the
// first column that differs is named: a file written for other exercises);
// a roster column without a name or named twice; a row of another width
// than the header's; a row without a submission name, or with the name of
// an earlier row (both lines are named); a points or score cell that is not
// a number, or a max_score that is not a whole number.
func ReadGradebook(r io.Reader, ids []string) (*Gradebook, error) {
	file := nameOf(r, "gradebook")
	bad := func(line, col int, err error) error {
		return &GradebookError{File: file, Line: line, Column: col, Err: err}
	}
	cr := csvReader(r)
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, bad(0, 0, errors.New("the file is empty: "+notOurs))
	}
	if err != nil {
		return nil, bad(csvErrorLine(err), 0, csvError(err))
	}
	roster, err := gradebookRoster(header, ids)
	if err != nil {
		var ce *columnError
		errors.As(err, &ce)
		return nil, bad(1, ce.column, err)
	}

	g := &Gradebook{Header: header, Roster: roster}
	lines := map[string]int{} // submission's key → line
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bad(csvErrorLine(err), 0, csvError(err))
		}
		line, _ := cr.FieldPos(0)
		if len(row) != len(header) {
			return nil, bad(line, 0, fmt.Errorf("%d cells, want %d as in the header", len(row), len(header)))
		}
		name := row[0]
		if strings.TrimSpace(name) == "" {
			return nil, bad(line, 1, errors.New("no submission name"))
		}
		if first, ok := lines[key(name)]; ok {
			return nil, bad(line, 1, fmt.Errorf("submission %q is also on line %d", visible(name), first))
		}
		lines[key(name)] = line
		if col, err := checkNumbers(header, row, 1+roster); err != nil {
			return nil, bad(line, col, err)
		}
		g.Rows = append(g.Rows, row)
	}
	return g, nil
}

// columnError is a header at fault in one column (1-based).
type columnError struct {
	column int
	err    error
}

func (e *columnError) Error() string { return e.err.Error() }

func (e *columnError) Unwrap() error { return e.err }

// gradebookRoster checks a gradebook's header against grader.CSVHeader(ids)
// and returns the number of roster columns in it: those between
// "submission" and the first column that is an exercise's (one of ids, or a
// name like "10.2") or one of the score columns.
func gradebookRoster(header, ids []string) (int, error) {
	want := CSVHeader(ids)
	if header[0] != "submission" {
		return 0, &columnError{1, fmt.Errorf("column 1 is %q, want %q: %s", visible(header[0]), "submission", notOurs)}
	}
	end := 1
	for end < len(header) && !slices.Contains(ids, header[end]) && !slices.Contains(ownColumns, header[end]) && !exerciseLike.MatchString(header[end]) {
		end++
	}
	roster := end - 1
	if end == len(header) {
		// No exercise or score column at all: not a gradebook.
		roster = 0
	}
	seen := map[string]int{"submission": 1}
	for i, name := range header[1 : 1+roster] {
		col := i + 2
		k := strings.ToLower(strings.TrimSpace(name))
		if k == "" {
			return 0, &columnError{col, fmt.Errorf("column %d, a roster column, has no name", col)}
		}
		if c, ok := seen[k]; ok {
			return 0, &columnError{col, fmt.Errorf("column %d is %q again (column %d)", col, visible(name), c)}
		}
		seen[k] = col
	}
	for i := range max(len(header)-roster, len(want)) {
		col := roster + i + 1
		switch {
		case i == 0:
			continue
		case i >= len(want):
			return 0, &columnError{col, fmt.Errorf("column %d is %q, want no more columns: %s", col, visible(header[col-1]), otherExercises)}
		case col > len(header):
			return 0, &columnError{col, fmt.Errorf("column %d is missing, want %q: %s", col, want[i], otherExercises)}
		case header[col-1] != want[i]:
			return 0, &columnError{col, fmt.Errorf("column %d is %q, want %q: %s", col, visible(header[col-1]), want[i], otherExercises)}
		}
	}
	return roster, nil
}

// checkNumbers checks the cells of row after the roster columns (from
// index first): points, score and raw_score empty or a number, max_score
// empty or a whole number, late_penalty empty or a percentage. It returns
// the 1-based column at fault.
func checkNumbers(header, row []string, first int) (int, error) {
	for i := first; i < len(row); i++ {
		cell := row[i]
		if cell == "" {
			continue
		}
		var ok bool
		switch header[i] {
		case "note":
			continue
		case "max_score":
			n, err := strconv.Atoi(cell)
			ok = err == nil && n >= 0
		case "late_penalty":
			num, pct := strings.CutSuffix(cell, "%")
			ok = pct && isNumber(num)
		default: // an exercise's points, score, raw_score
			ok = isNumber(cell)
		}
		if !ok {
			return i + 1, fmt.Errorf("column %d (%s) is %q, not a number course grade writes there", i+1, visible(header[i]), visible(cell))
		}
	}
	return 0, nil
}

func isNumber(s string) bool {
	x, err := strconv.ParseFloat(s, 64)
	return err == nil && !math.IsInf(x, 0) && !math.IsNaN(x)
}

// find returns the index of the row of submission name, or -1.
func (g *Gradebook) find(name string) int {
	k := key(name)
	return slices.IndexFunc(g.Rows, func(row []string) bool { return len(row) > 0 && key(row[0]) == k })
}

// column returns the index of the column called name after the roster's.
func (g *Gradebook) column(name string) int {
	if i := slices.Index(g.Header[min(1+g.Roster, len(g.Header)):], name); i >= 0 {
		return 1 + g.Roster + i
	}
	return -1
}

// Failed reports whether the gradebook has a row for submission name
// (known) and whether that row is short of full marks (failed): it is not
// failed only when its score is a number at least its max_score and its
// note is empty. A row of a submission that could not be graded ("not
// graded: ..."), that did not build, that is late, or that a roster join
// added ("no submission") is failed. The name is matched as the grader
// writes it, so "=x" finds the row of "'=x".
func (g *Gradebook) Failed(name string) (failed, known bool) {
	i := g.find(name)
	if i < 0 {
		return false, false
	}
	row := g.Rows[i]
	cell := func(col string) (string, bool) {
		j := g.column(col)
		if j < 0 || j >= len(row) {
			return "", false
		}
		return row[j], true
	}
	score, ok1 := cell("score")
	maxScore, ok2 := cell("max_score")
	note, ok3 := cell("note")
	s, err1 := strconv.ParseFloat(score, 64)
	m, err2 := strconv.ParseFloat(maxScore, 64)
	passed := ok1 && ok2 && ok3 && err1 == nil && err2 == nil && s >= m && note == ""
	return !passed, true
}

// Put puts row, a submission's row, in the gradebook: in place of the row
// of the same submission (its first cell), where that row is, or at the
// end. The row has the header's width, or, in a gradebook with roster
// columns, the width without them (grader.CSVRow's): the roster cells of
// the row it replaces are then kept, and are empty in a new row. Any other
// width, or no submission name, is a *GradebookError and changes nothing.
func (g *Gradebook) Put(row []string) error {
	bad := func(err error) error { return &GradebookError{File: "gradebook", Err: err} }
	switch {
	case len(row) == 0 || strings.TrimSpace(row[0]) == "":
		return bad(errors.New("a row without a submission name"))
	case len(row) == len(g.Header):
		row = slices.Clone(row)
	case g.Roster > 0 && len(row) == len(g.Header)-g.Roster:
		cells := make([]string, g.Roster)
		if i := g.find(row[0]); i >= 0 {
			copy(cells, g.Rows[i][1:])
		}
		row = slices.Concat(row[:1], cells, row[1:])
	case g.Roster > 0:
		return bad(fmt.Errorf("submission %q: a row of %d cells, want %d, or %d without the roster's", visible(row[0]), len(row), len(g.Header), len(g.Header)-g.Roster))
	default:
		return bad(fmt.Errorf("submission %q: a row of %d cells, want %d", visible(row[0]), len(row), len(g.Header)))
	}
	if i := g.find(row[0]); i >= 0 {
		g.Rows[i] = row
	} else {
		g.Rows = append(g.Rows, row)
	}
	return nil
}

// Write writes the header and the rows, in their order, as CSV, every cell
// made safe for a spreadsheet by grader.CSVCell. A row of another width
// than the header's is a *GradebookError, and then nothing is written.
func (g *Gradebook) Write(w io.Writer) error {
	for i, row := range g.Rows {
		if len(row) != len(g.Header) {
			return &GradebookError{File: "gradebook", Err: fmt.Errorf("row %d has %d cells, want %d as in the header", i+1, len(row), len(g.Header))}
		}
	}
	cw := csv.NewWriter(w)
	for _, row := range slices.Concat([][]string{g.Header}, g.Rows) {
		out := make([]string, len(row))
		for i, cell := range row {
			out[i] = CSVCell(cell)
		}
		if err := cw.Write(out); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Roster is a class list: the submission name each student is graded under
// and the columns a gradebook knows the student by (student_id, email,
// name, ...).
type Roster struct {
	columns []string   // the columns other than submission, in order
	names   []string   // the submissions, in order
	cells   [][]string // the other columns' cells of each submission
	byKey   map[string]int
	nameCol int // the submission column's index in the file
}

// ReadRoster reads a roster: a CSV file whose header names its columns, one
// of them "submission" (in any case, spaces around it ignored): the name a
// student's submission is graded under, a workspace folder's name or a
// file's name without its extension, as `course grade` prints it. Every
// other column is carried as it is, in the file's order. A leading UTF-8
// byte order mark is skipped, and so are rows with every cell blank, as a
// spreadsheet leaves them.
//
// Anything else is a *RosterError naming the line and column at fault: an
// empty file, one that is not CSV, or one without a student; no
// "submission" column; a column without a name, or a name given twice
// (case and spaces ignored); a column named like one of the gradebook's own
// (score, max_score, raw_score, late_penalty, note) or like an exercise id
// ("10.2"); a row of another width than the header's; a row without a
// submission name; a submission given twice (both lines are named).
func ReadRoster(r io.Reader) (*Roster, error) {
	file := nameOf(r, "roster")
	bad := func(line, col int, err error) error {
		return &RosterError{File: file, Line: line, Column: col, Err: err}
	}
	cr := csvReader(r)
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, bad(0, 0, errors.New(`the file is empty: a roster is a CSV file with a header naming a "submission" column`))
	}
	if err != nil {
		return nil, bad(csvErrorLine(err), 0, csvError(err))
	}
	ros := &Roster{byKey: map[string]int{}, nameCol: -1}
	seen := map[string]int{}
	for i, name := range header {
		col := i + 1
		name = strings.TrimSpace(name)
		k := strings.ToLower(name)
		switch c, dup := seen[k]; {
		case name == "":
			return nil, bad(1, col, fmt.Errorf("column %d has no name", col))
		case dup:
			return nil, bad(1, col, fmt.Errorf("column %d is %q, as column %d is", col, visible(name), c))
		case k == "submission":
			ros.nameCol = i
		case slices.Contains(ownColumns, k):
			return nil, bad(1, col, fmt.Errorf("column %d is %q, a column of the gradebook's own: rename it", col, visible(name)))
		case exerciseLike.MatchString(name):
			return nil, bad(1, col, fmt.Errorf("column %d is %q, which looks like an exercise id: rename it", col, visible(name)))
		default:
			ros.columns = append(ros.columns, name)
		}
		seen[k] = col
	}
	if ros.nameCol < 0 {
		return nil, bad(1, 0, errors.New(`no "submission" column: name the column holding each student's submission name (the folder or file name course grade prints) "submission"`))
	}
	lines := map[string]int{}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bad(csvErrorLine(err), 0, csvError(err))
		}
		line, _ := cr.FieldPos(0)
		if !slices.ContainsFunc(row, func(c string) bool { return strings.TrimSpace(c) != "" }) {
			continue
		}
		if len(row) != len(header) {
			return nil, bad(line, 0, fmt.Errorf("%d cells, want %d as in the header", len(row), len(header)))
		}
		name := strings.TrimSpace(row[ros.nameCol])
		if name == "" {
			return nil, bad(line, ros.nameCol+1, errors.New("no submission name"))
		}
		k := key(name)
		if first, ok := lines[k]; ok {
			return nil, bad(line, ros.nameCol+1, fmt.Errorf("submission %q is also on line %d", visible(name), first))
		}
		lines[k] = line
		ros.byKey[k] = len(ros.names)
		ros.names = append(ros.names, name)
		ros.cells = append(ros.cells, slices.Delete(slices.Clone(row), ros.nameCol, ros.nameCol+1))
	}
	if len(ros.names) == 0 {
		return nil, bad(0, 0, errors.New("no student: the roster has a header and no row"))
	}
	return ros, nil
}

// Columns returns the roster's columns other than "submission", in its
// order.
func (ros *Roster) Columns() []string { return slices.Clone(ros.columns) }

// Submissions returns the roster's submission names, in its order.
func (ros *Roster) Submissions() []string { return slices.Clone(ros.names) }

// Lookup returns the cells of submission's student under Columns, and
// whether the roster has the submission. The name is matched as the grader
// writes it, so "=x" finds the student of "'=x".
func (ros *Roster) Lookup(submission string) ([]string, bool) {
	i, ok := ros.byKey[key(strings.TrimSpace(submission))]
	if !ok {
		return nil, false
	}
	return slices.Clone(ros.cells[i]), true
}

// Missing returns the roster's submissions that are not among graded, in
// the roster's order: the students who handed nothing in.
func (ros *Roster) Missing(graded []string) []string {
	done := map[string]bool{}
	for _, name := range graded {
		done[key(strings.TrimSpace(name))] = true
	}
	var out []string
	for _, name := range ros.names {
		if !done[key(name)] {
			out = append(out, name)
		}
	}
	return out
}

// JoinRoster joins the roster ros to a gradebook table: header is
// grader.CSVHeader's, and each row's first cell a submission name. It
// inserts the roster's columns after "submission", in the header and in
// every row: the student's cells, or empty cells for a submission the
// roster does not have, whose names it returns in unknown. Then it adds a
// row for each roster student without a row, in the roster's order: the
// student's cells, empty points and scores, and the note (the last column)
// "no submission". So the table has a row for every student, as a gradebook
// import (Canvas, Moodle, Gradescope) takes it: a student a row, matched by
// an id or email column, with a score column. The roster's column names and
// cells are made safe for a spreadsheet by grader.CSVCell. The arguments
// are not changed; with a nil ros the result is a copy of them.
func JoinRoster(header []string, rows [][]string, ros *Roster) (newHeader []string, newRows [][]string, unknown []string) {
	newHeader = slices.Clone(header)
	newRows = make([][]string, 0, len(rows))
	for _, row := range rows {
		newRows = append(newRows, slices.Clone(row))
	}
	if ros == nil || len(header) == 0 {
		return newHeader, newRows, nil
	}
	safe := func(cells []string) []string {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = CSVCell(c)
		}
		return out
	}
	insert := func(row, cells []string) []string {
		if len(row) == 0 {
			return slices.Concat([]string{""}, cells)
		}
		return slices.Concat(row[:1], cells, row[1:])
	}
	newHeader = insert(header, safe(ros.columns))
	var graded []string
	for i, row := range newRows {
		name := ""
		if len(row) > 0 {
			name = row[0]
		}
		cells, ok := ros.Lookup(name)
		if !ok {
			unknown = append(unknown, name)
			cells = make([]string, len(ros.columns))
		}
		newRows[i] = insert(row, safe(cells))
		graded = append(graded, name)
	}
	for _, name := range ros.Missing(graded) {
		row := make([]string, len(newHeader))
		row[0] = CSVCell(name)
		cells, _ := ros.Lookup(name)
		copy(row[1:], safe(cells))
		row[len(row)-1] = noSubmission
		newRows = append(newRows, row)
	}
	return newHeader, newRows, unknown
}

// key is a submission name as the grader writes it in a CSV cell, so that
// a name matches its cell: grader.CSVCell does nothing to a cell it made.
//
// Names are compared in Unicode's composed form (NFC): a "Zoë" typed in a
// spreadsheet and one read from a macOS folder (decomposed) are one student.
func key(name string) string { return CSVCell(norm.NFC.String(name)) }

// nameOf is the name of r when it is a file, or else what.
func nameOf(r io.Reader, what string) string {
	if f, ok := r.(interface{ Name() string }); ok && f.Name() != "" {
		return f.Name()
	}
	return what
}

// csvReader reads r as CSV, skipping a leading UTF-8 byte order mark (a
// spreadsheet's export starts with one), strictly quoted, rows of any
// width (the callers check them, to say which line is at fault).
func csvReader(r io.Reader) *csv.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	return cr
}

// csvErrorLine is the physical line of a CSV parse error, or 0.
func csvErrorLine(err error) int {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Line
	}
	return 0
}

// csvError says what is wrong in a CSV parse error, without its line
// (the caller's error names it); errors.Is finds csv.ErrQuote and the like.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("not valid CSV (column %d): %w", pe.Column, pe.Err)
	}
	return err
}
