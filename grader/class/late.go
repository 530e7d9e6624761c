package class

import (
	"fmt"
	"time"

	"github.com/coursekit/course/grader/late"
	"github.com/coursekit/course/grader/report"
)

// lateNote is the short note of a late submission in the class table.
func lateNote(l *report.Late) string {
	return fmt.Sprintf("late %s: -%s%%", time.Duration(l.Late)*time.Second, report.FormatPoints(l.Penalty*100))
}

// ApplyLate takes the late penalty of rule from every graded result. A
// result whose time cannot be told is not graded: without it the grade
// could be wrong either way.
func ApplyLate(results []Result, rule *late.Rule) {
	for i := range results {
		r := &results[i]
		if r.Err != nil {
			continue
		}
		if err := rule.Apply(r.Report, r.Name); err != nil {
			r.Report, r.Err = nil, err
		}
	}
}
