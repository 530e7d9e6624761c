// Package report is the verdict on a submission as data: the report of a
// submission, of each of its exercises and of each test, why an exercise
// failed (a typed Cause, whose text is made here and nowhere else), its
// points, and what a late policy took. Every stage of grading writes into
// it and every format and statistic reads from it; it depends on no stage.
package report

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
	// Settings are when and how it was graded; nil in a report saved
	// before they were recorded.
	Settings *Settings `json:"settings,omitempty"`
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
	// Reason is why it failed, in one line, safe to show a student at
	// once: the text of Causes (see Fail), kept for readers of the JSON.
	Reason string `json:"reason,omitempty"`
	// Scoring is lab.ScoreAll (the points for passing every test) or
	// lab.ScorePerTest (each passed test earns its share, Tests[].Points).
	Scoring string `json:"scoring"`
	// HiddenReason is the whole text of the causes that came from a run of
	// hidden tests, whose detail may quote the hidden tests: for
	// instructors, and for students only with the hidden tests' details.
	HiddenReason string `json:"hidden_reason,omitempty"`
	// Causes are why it failed, typed: what formats and statistics read.
	Causes  []Cause      `json:"causes,omitempty"`
	Tests   []TestReport `json:"tests"`
	Output  string       `json:"output,omitempty"` // output outside any test
	Seconds float64      `json:"seconds,omitempty"`
}

// TestReport is one test of an exercise.
type TestReport struct {
	Name   string `json:"name"`
	Status string `json:"status"` // one of the Status constants
	Hidden bool   `json:"hidden"`
	// Output is what the test printed (at most 8 KiB); none for the tests
	// of an exercise that passed (KeepFailureOutputOnly).
	Output string `json:"output,omitempty"`
	// Points and MaxPoints are set in an exercise scored per test: what
	// this test earned and what it is worth.
	Points    *float64 `json:"points,omitempty"`
	MaxPoints *float64 `json:"max_points,omitempty"`
	// Own marks a test the student wrote beside the lab's (course test,
	// course status): it counts in their own run, and the grader never
	// sees it.
	Own bool `json:"own,omitempty"`
	// Void is set when the run that gave this result imitated the test
	// runner or left an unreadable report: it earns nothing on its own.
	Void bool `json:"-"`
}

// Test statuses in a report.
const (
	StatusPass   = "pass"
	StatusFail   = "fail"
	StatusSkip   = "skip"
	StatusNotRun = "not run"      // never started: an earlier crash, a build failure, a rejected file
	StatusNoEnd  = "did not end"  // started but never finished: a hang, a crash inside it
	StatusForged = "inconsistent" // more than one result: something printed fake test events
)

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
func (e *ExerciseReport) TestsPassed() int { return CountStatus(e.Tests, StatusPass) }

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

// KeepFailureOutputOnly drops the output of e's passed tests when e
// passed: the test runner's framing (=== RUN, --- PASS), which no report
// shows and which made up most of a correct submission's JSON. A failed
// exercise keeps all of it: a race or a bad exit status may have left its
// trace in a passed test's output.
func (e *ExerciseReport) KeepFailureOutputOnly() {
	if !e.Passed {
		return
	}
	for i := range e.Tests {
		if e.Tests[i].Status == StatusPass {
			e.Tests[i].Output = ""
		}
	}
}

// CountStatus counts the tests of a status.
func CountStatus(tests []TestReport, status string) int {
	n := 0
	for _, t := range tests {
		if t.Status == status {
			n++
		}
	}
	return n
}
