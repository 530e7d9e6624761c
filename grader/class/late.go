package class

import (
	"github.com/coursekit/course/grader/late"
)

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
