package class

import (
	"slices"

	"github.com/coursekit/course/grader/names"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
)

// Student is one row of the class: a graded submission or one that could
// not be graded, with what its score is made of.
type Student struct {
	Name, Path string
	Graded     bool
	// NotGraded is why it could not be graded (the first line of the
	// error); "" when it was graded.
	NotGraded string
	Score     float64 // after the late penalty
	MaxScore  int
	Seconds   float64
	// Exercises line up with Summary.Exercises.
	Exercises []StudentExercise
	// Late is the late policy's record, when one was applied.
	Late *report.Late
	// Build is how building it went: its output is the compiler's, or the
	// static check's refusal when Build.Rejected.
	Build report.Build
	// Rejection is the check's cause when it refused the file (Detail its
	// first problem, Hint what is allowed); nil otherwise.
	Rejection *report.Cause
	// Note says what went wrong as a whole, as the CSV's note column does:
	// "rejected before building: <its first problem>", "build failed: <the
	// compiler's line>", "not graded: <reason>"; "" otherwise.
	Note string
}

// StudentExercise is one exercise of a student's row.
type StudentExercise struct {
	ID        string
	Graded    bool // the report holds the exercise
	Passed    bool
	Points    float64
	MaxPoints int
	// Tests and TestsPassed count the exercise's tests, hidden ones included.
	Tests, TestsPassed int
	// Causes are why it failed, typed; none when it passed.
	Causes []report.Cause
	// Reason is the report's one-line reason, for a report without causes.
	Reason string
	// FirstFailure is the first test that ran and did not pass, with its
	// output; nil when there is none.
	FirstFailure *report.TestReport
}

// Failed reports whether the exercise was graded and failed.
func (e StudentExercise) Failed() bool { return e.Graded && !e.Passed }

// LatePenalty is the share of the score taken for lateness (0.2 for 20%),
// and whether a late policy was applied at all.
func (s Student) LatePenalty() (float64, bool) {
	if s.Late == nil {
		return 0, false
	}
	return s.Late.Penalty, true
}

// WithinGrace reports whether the submission came after the due date but
// within the policy's grace period, so that nothing was taken.
func (s Student) WithinGrace() bool {
	_, ok := s.Late.InGrace()
	return ok
}

func students(reports []*report.Report, notGraded map[string]string, exercises []ExerciseStats) []Student {
	var out []Student
	for _, r := range reports {
		out = append(out, studentOf(r, exercises))
	}
	for name, reason := range notGraded {
		why := safetext.FirstLine(reason)
		st := Student{Name: name, NotGraded: why, Note: "not graded: " + why}
		for _, e := range exercises {
			st.Exercises = append(st.Exercises, StudentExercise{ID: e.ID, MaxPoints: e.MaxPoints})
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b Student) int { return names.Compare(a.Name, b.Name) })
	return out
}

// studentOf is the row of the graded report r.
func studentOf(r *report.Report, exercises []ExerciseStats) Student {
	st := Student{Name: r.Submission, Path: r.Path, Graded: true, Score: r.Score, MaxScore: r.MaxScore, Seconds: r.Seconds,
		Build: r.Build, Note: buildNote(r)}
	if r.Late != nil {
		late := *r.Late
		st.Late = &late
	}
	if c, ok := rejection(r); ok {
		st.Rejection = &c
	}
	byID := map[string]report.ExerciseReport{}
	for _, ex := range r.Exercises {
		byID[ex.ID] = ex
	}
	for _, e := range exercises {
		ex, ok := byID[e.ID]
		se := StudentExercise{ID: e.ID, Graded: ok, Passed: ex.Passed, Points: ex.Points, MaxPoints: e.MaxPoints,
			Tests: len(ex.Tests), TestsPassed: ex.TestsPassed()}
		if ok && !ex.Passed {
			se.Causes, se.Reason = slices.Clone(ex.Causes), ex.Reason
			if t, ok := ex.FirstFailure(); ok {
				se.FirstFailure = &t
			}
		}
		st.Exercises = append(st.Exercises, se)
	}
	return st
}
