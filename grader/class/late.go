package class

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/coursekit/course/grader"
	"github.com/coursekit/course/grader/report"
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
		name := strings.TrimSpace(row[nameCol])
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

// ApplyLate takes the late penalty of policy from every graded result, due
// at due and handed in when submittedAt says. A result whose time cannot be
// told is not graded: without it the grade could be wrong either way.
func ApplyLate(results []Result, policy grader.LatePolicy, due time.Time, submittedAt func(Result) (time.Time, error)) {
	for i := range results {
		r := &results[i]
		if r.Err != nil {
			continue
		}
		at, err := submittedAt(*r)
		if err != nil {
			r.Report, r.Err = nil, fmt.Errorf("cannot tell when it was handed in, so not whether it is late: %w", err)
			continue
		}
		policy.Apply(r.Report, due, at)
	}
}

// lateNote is the short note of a late submission in the class table.
func lateNote(l *report.Late) string {
	return fmt.Sprintf("late %s: -%s%%", time.Duration(l.Late)*time.Second, report.FormatPoints(l.Penalty*100))
}

// Late is a late policy, the due date and where the time each submission
// was handed in comes from.
type Late struct {
	Policy      grader.LatePolicy
	Due         time.Time
	SubmittedAt func(Result) (time.Time, error)
}

// Apply takes the penalty from r's score, or makes r not graded when its
// time cannot be told.
func (l *Late) Apply(r Result) Result {
	one := []Result{r}
	ApplyLate(one, l.Policy, l.Due, l.SubmittedAt)
	return one[0]
}

// TimesFromFile reads a CSV of submission times (see ReadTimes) and
// returns the time of a result by its name.
func TimesFromFile(path string) (func(Result) (time.Time, error), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	times, err := ReadTimes(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return func(r Result) (time.Time, error) {
		t, ok := times[r.Name]
		if !ok {
			return time.Time{}, fmt.Errorf("%s has no row for %s", path, r.Name)
		}
		return t, nil
	}, nil
}
