package class

import (
	"fmt"
	"strings"
	"time"
)

// runItem is one line of the page's header: how the class was graded.
type runItem struct {
	Term, Value string
	Code        bool // the value is typed on a command line
}

// runHeader says, in text a printout keeps, when and how the class was
// graded: the date, the course tool's version, the lab, the sandbox, the
// race detector, the flags, the late policy and the due date.
func runHeader(s *Summary) []runItem {
	r := s.Run
	graded := s.Graded
	unrecorded := func(items []Tally) string {
		v := tallyText(items, graded)
		if r.Unrecorded > 0 {
			v = joinNote(v, fmt.Sprintf("not recorded in %d of %d reports (saved before settings were recorded)", r.Unrecorded, graded))
		}
		return orNone(v, "not recorded")
	}
	lab := visible(s.Lab)
	if s.Title != "" {
		lab += ": " + s.Title
	}
	var ids []string
	for _, e := range s.Exercises {
		ids = append(ids, visible(e.ID))
	}
	if len(ids) > 0 {
		lab += " (exercises " + strings.Join(ids, ", ") + ")"
	}
	items := []runItem{
		{Term: "Graded", Value: unrecordedDate(r, graded)},
		{Term: "Course version", Value: unrecorded(r.Versions)},
		{Term: "Lab", Value: lab},
		{Term: "Sandbox", Value: orNone(tallyText(r.Isolation, graded), "not recorded")},
		{Term: "Race detector", Value: orNone(tallyText(r.Race, graded), "not recorded")},
		{Term: "Flags", Value: unrecorded(r.Flags), Code: len(r.Flags) == 1 && r.Unrecorded == 0},
		{Term: "Late policy", Value: orNone(tallyText(r.LatePolicies, graded), "none")},
		{Term: "Due date", Value: orNone(tallyText(r.Due, graded), "none given")},
	}
	if w := s.Whole; w != nil {
		items = append(items, runItem{Term: "Covers", Value: fmt.Sprintf("the %s regraded in this run, of the %d rows of %s (see the overview)",
			nSubmissions(w.Regraded), w.Rows, visible(w.File))})
	}
	return items
}

// unrecordedDate is when the class was graded: a day and a time, or the
// span from the first grading to the last.
func unrecordedDate(r RunInfo, graded int) string {
	if r.First.IsZero() {
		return "not recorded"
	}
	const day, clock = "2006-01-02", "15:04"
	first, last := r.First.UTC(), r.Last.UTC()
	v := first.Format(day + " " + clock)
	switch {
	case last.Sub(first) < time.Minute:
	case first.Format(day) == last.Format(day):
		v += " – " + last.Format(clock)
	default:
		v += " – " + last.Format(day+" "+clock)
	}
	v += " UTC"
	if r.Unrecorded > 0 {
		v += fmt.Sprintf("; not recorded in %d of %d reports", r.Unrecorded, graded)
	}
	return v
}

// tallyText is one value alone, or each value with how many of total
// reports hold it.
func tallyText(items []Tally, total int) string {
	if len(items) == 1 && items[0].Count == total {
		return visible(items[0].Value)
	}
	var parts []string
	for _, t := range items {
		parts = append(parts, fmt.Sprintf("%s (%d of %d)", visible(t.Value), t.Count, total))
	}
	return strings.Join(parts, "; ")
}

func orNone(v, none string) string {
	if v == "" {
		return none
	}
	return v
}
