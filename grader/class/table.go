package class

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
)

// Row is r's row under grader.CSVHeader(ids), named as the class knows it.
func Row(r Result, ids []string) []string {
	if r.Err != nil {
		return ErrorCSVRow(r.Name, ids, r.Err)
	}
	row := CSVRow(r.Report, ids)
	row[0] = CSVCell(r.Name)
	return row
}

// withRoster puts the roster's cells of row's submission after its name;
// ok is false when the roster has no such submission.
func withRoster(row []string, ros *Roster, name string) (out []string, ok bool) {
	cells, ok := ros.Lookup(name)
	if !ok {
		cells = make([]string, len(ros.Columns()))
	}
	out = append([]string{row[0]}, cells...)
	return append(out, row[1:]...), ok
}

// Table writes a new gradebook as the class is graded: the header first,
// then each submission's row as soon as it is added (flushed at once, so
// that an interrupted run keeps every finished row), and with a roster, a
// row for each student who handed nothing in when it is finished.
type Table struct {
	w       *csv.Writer
	ids     []string
	roster  *Roster
	names   []string
	unknown []string
}

// NewTable writes the header of a gradebook of the exercises ids to w,
// with ros's columns after "submission" when ros is not nil.
func NewTable(w io.Writer, ids []string, ros *Roster) (*Table, error) {
	t := &Table{w: csv.NewWriter(w), ids: ids, roster: ros}
	header := CSVHeader(ids)
	if ros != nil {
		header = append(append([]string{header[0]}, ros.Columns()...), header[1:]...)
	}
	return t, t.write(header)
}

// Add writes r's row.
func (t *Table) Add(r Result) error {
	row := Row(r, t.ids)
	t.names = append(t.names, CSVCell(r.Name))
	if t.roster != nil {
		var ok bool
		if row, ok = withRoster(row, t.roster, r.Name); !ok {
			t.unknown = append(t.unknown, r.Name)
		}
	}
	return t.write(row)
}

// Finish writes, with a roster, a row for every student of it with no
// submission; it returns those students' submission names and the
// submissions the roster does not list.
func (t *Table) Finish() (missing, unknown []string, err error) {
	if t.roster == nil {
		return nil, nil, nil
	}
	_, joined, _ := JoinRoster(CSVHeader(t.ids), nil, t.roster)
	for _, row := range joined {
		if !slices.ContainsFunc(t.names, func(n string) bool { return key(n) == key(row[0]) }) {
			missing = append(missing, row[0])
			if err := t.write(row); err != nil {
				return missing, t.unknown, err
			}
		}
	}
	return missing, t.unknown, nil
}

func (t *Table) write(row []string) error {
	if err := t.w.Write(row); err != nil {
		return err
	}
	t.w.Flush()
	return t.w.Error()
}

// Regrade grades into an earlier gradebook: each added result replaces its
// submission's row in place (or comes last), every other row stays. The
// caller writes the book back when grading ends.
type Regrade struct {
	Book   *Gradebook
	ids    []string
	roster *Roster
}

// NewRegrade regrades into book, a gradebook of the exercises ids, with
// ros's cells in new rows when the book has a roster's columns.
func NewRegrade(book *Gradebook, ids []string, ros *Roster) (*Regrade, error) {
	if ros != nil && book.Roster != len(ros.Columns()) {
		return nil, fmt.Errorf("the gradebook has %d roster columns and the roster %d: regrade with the roster it was made with, or without one", book.Roster, len(ros.Columns()))
	}
	return &Regrade{Book: book, ids: ids, roster: ros}, nil
}

// Failed reports whether submission name is to be graded again by
// --only-failed: its row is not full marks, or it has none.
func (g *Regrade) Failed(name string) bool {
	failed, known := g.Book.Failed(name)
	return failed || !known
}

// Add puts r's row in the book.
func (g *Regrade) Add(r Result) error {
	row := Row(r, g.ids)
	if g.roster != nil {
		row, _ = withRoster(row, g.roster, r.Name)
	}
	return g.Book.Put(row)
}
