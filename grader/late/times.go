package late

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"
)

// TimesError is a CSV of submission times that cannot be read, with the
// line that says why.
type TimesError struct {
	Line int // 1-based; 0 for the file as a whole
	Msg  string
}

func (e *TimesError) Error() string {
	if e.Line == 0 {
		return "submission times: " + e.Msg
	}
	return fmt.Sprintf("submission times, line %d: %s", e.Line, e.Msg)
}

// ReadTimes reads a CSV of when each submission was handed in: a header
// with the columns "submission" and "submitted_at" (others are ignored),
// then a row per submission with an RFC 3339 time ("2026-12-01T09:30:00Z",
// or with an offset). A name twice, a time that is not RFC 3339 or a row
// without the columns is a *TimesError.
func ReadTimes(r io.Reader) (map[string]time.Time, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, &TimesError{Msg: fmt.Sprintf("no header (%v)", err)}
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	nameCol, ok1 := col["submission"]
	timeCol, ok2 := col["submitted_at"]
	if !ok1 || !ok2 {
		return nil, &TimesError{Line: 1, Msg: fmt.Sprintf("the header %q needs the columns submission and submitted_at", strings.Join(header, ","))}
	}
	times := map[string]time.Time{}
	lineOf := map[string]int{}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return times, nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, &TimesError{Line: line, Msg: err.Error()}
		}
		if len(row) <= max(nameCol, timeCol) {
			return nil, &TimesError{Line: line, Msg: fmt.Sprintf("%d cells, want the submission and submitted_at columns", len(row))}
		}
		name := norm.NFC.String(strings.TrimSpace(row[nameCol])) // "Zoë" composed or not (a macOS folder) is one student
		if name == "" {
			return nil, &TimesError{Line: line, Msg: "no submission name"}
		}
		if first, dup := lineOf[name]; dup {
			return nil, &TimesError{Line: line, Msg: fmt.Sprintf("submission %q again (first on line %d)", name, first)}
		}
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(row[timeCol]))
		if err != nil {
			return nil, &TimesError{Line: line, Msg: fmt.Sprintf("submitted_at %q of %q is not an RFC 3339 time such as 2026-12-01T09:30:00Z", row[timeCol], name)}
		}
		times[name], lineOf[name] = t, line
	}
}
