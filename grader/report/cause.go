package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
)

// CauseKind is what made an exercise fail.
type CauseKind string

// The kinds of cause, and the fields of Cause each uses.
const (
	TestsFailed       CauseKind = "tests-failed"      // Failed of Total tests failed, NotRun did not run
	TestsNotPassed    CauseKind = "tests-not-passed"  // Failed of Total tests did not pass (some were skipped or never ended): a student's own run
	RunBroken         CauseKind = "run-broken"        // go test ran no test, and not for the build: a student's own run
	Rejected          CauseKind = "rejected"          // the static check refused the file: Detail its first problem, Hint what is allowed
	BuildFailed       CauseKind = "build-failed"      // the file did not build
	NoTests           CauseKind = "no-tests"          // the course has no tests for the exercise
	NoTestsRan        CauseKind = "no-tests-ran"      // the run ended before any test, ExitCode
	TimedOut          CauseKind = "timed-out"         // a run was still going after Limit nanoseconds
	InitHung          CauseKind = "init-hung"         // no test started within Limit nanoseconds
	BudgetUsed        CauseKind = "budget-used"       // not run: the runs used up their budget of Limit nanoseconds
	MemoryExceeded    CauseKind = "memory"            // a run used more than Limit bytes; InInit before any test
	ProcessesExceeded CauseKind = "processes"         // a run wanted more than Limit processes; InInit before any test
	Race              CauseKind = "race"              // the race detector reported a race: Detail sums it up
	TooManyLines      CauseKind = "too-many-lines"    // a run printed more than Limit lines
	OutputDropped     CauseKind = "output-dropped"    // a run printed more than Limit bytes, and the rest was dropped
	Imitated          CauseKind = "imitated"          // events for tests not asked for: Detail names them
	TwoResults        CauseKind = "two-results"       // a test reported more than one result
	ReportUnreadable  CauseKind = "report-unreadable" // the harness's report could not be read: Detail says why
	ReportMissing     CauseKind = "report-missing"    // the harness never reported
	ExitStatus        CauseKind = "exit-status"       // every test passed, but the binary exited with ExitCode
	RunnerCode        CauseKind = "runner-code"       // every test passed, but m.Run returned ExitCode
)

// Cause is one reason an exercise failed: its kind and what the kind needs.
// Its text (String) is made here and nowhere else.
type Cause struct {
	Kind CauseKind `json:"kind"`
	// Hidden: the cause came from a run of hidden tests, so its detail may
	// quote them (see Public).
	Hidden bool `json:"hidden,omitempty"`
	// Failed, Total and NotRun count tests (TestsFailed).
	Failed int `json:"failed,omitempty"`
	Total  int `json:"total,omitempty"`
	NotRun int `json:"not_run,omitempty"`
	// Limit is the limit the run hit: nanoseconds for times, bytes for
	// memory and output, a count for processes and lines.
	Limit int64 `json:"limit,omitempty"`
	// ExitCode is the exit status that decided (NoTestsRan, ExitStatus, RunnerCode).
	ExitCode int `json:"exit_code,omitempty"`
	// InInit: the limit was hit before any test started, in the
	// package's initialisation.
	InInit bool `json:"in_init,omitempty"`
	// Detail and Hint are the text the kind carries (see the kinds).
	Detail string `json:"detail,omitempty"`
	Hint   string `json:"hint,omitempty"`
	// Local: the cause of a student's own go test run (course test, course
	// status), which names go test where the grader's names its binary.
	Local bool `json:"local,omitempty"`
}

// CountCause is the cause of an exercise whose tests ran and some failed:
// "12 of 18 tests failed, 6 not run" (hidden tests are not run once a
// public one fails).
func CountCause(tests []TestReport) Cause {
	notRun := CountStatus(tests, StatusNotRun)
	failed := len(tests) - CountStatus(tests, StatusPass) - notRun
	return Cause{Kind: TestsFailed, Failed: failed, Total: len(tests), NotRun: notRun}
}

const initPlace = "in the package's initialisation (an init function or a package-level variable)"

// String is the cause in one line, for an instructor.
func (c Cause) String() string {
	d := time.Duration(c.Limit)
	switch c.Kind {
	case TestsFailed:
		s := fmt.Sprintf("%d of %d tests failed", c.Failed, c.Total)
		if c.NotRun > 0 {
			s += fmt.Sprintf(", %d not run", c.NotRun)
		}
		return s
	case Rejected:
		s := "rejected before building"
		if c.Detail != "" {
			s += ": " + c.Detail
		}
		if c.Hint != "" {
			s += "; " + c.Hint
		}
		return s
	case TestsNotPassed:
		return fmt.Sprintf("%d of %d tests did not pass", c.Failed, c.Total)
	case RunBroken:
		return "go test ran no test"
	case BuildFailed:
		if c.Local {
			return "the code does not compile"
		}
		return "the submission does not build"
	case NoTests:
		return "the course has no tests for this exercise"
	case NoTestsRan:
		if c.Local {
			return fmt.Sprintf("no tests ran (go test exited with status %d)", c.ExitCode)
		}
		return fmt.Sprintf("no tests ran (exit status %d)", c.ExitCode)
	case TimedOut:
		return fmt.Sprintf("timed out: still running after %s", d)
	case InitHung:
		return fmt.Sprintf("no test started within %s: the package's initialisation (an init function or a package-level variable) did not finish", d)
	case BudgetUsed:
		return fmt.Sprintf("not run: the submission's runs used up their time budget of %s", d)
	case MemoryExceeded:
		what := fmt.Sprintf("the run used more than %s and was killed", humanize.IBytes(uint64(c.Limit)))
		if c.InInit {
			return "memory limit exceeded before any test started, " + initPlace + ": " + what
		}
		return "memory limit exceeded: " + what
	case ProcessesExceeded:
		what := fmt.Sprintf("the run tried to have more than %d processes and threads at once", c.Limit)
		if c.InInit {
			return "process limit exceeded before any test started, " + initPlace + ": " + what
		}
		return "process limit exceeded: " + what
	case Race:
		return "data race (the race detector found one): " + c.Detail
	case TooManyLines:
		return fmt.Sprintf("printed more than %d lines of output", c.Limit)
	case OutputDropped:
		return fmt.Sprintf("printed more than %d KiB of output; the rest was dropped", c.Limit>>10)
	case Imitated:
		return fmt.Sprintf("events for tests that were not run: %s (output that imitates the test runner is not allowed)", c.Detail)
	case TwoResults:
		return "a test reported more than one result (output that imitates the test runner is not allowed)"
	case ReportUnreadable:
		return "the grader's own report of this run is unreadable: " + c.Detail
	case ReportMissing:
		return "the grader's own report of this run is missing (the test binary did not finish normally)"
	case ExitStatus:
		if c.Local {
			return fmt.Sprintf("every test passed, but go test exited with status %d", c.ExitCode)
		}
		return fmt.Sprintf("every test passed, but the test binary exited with status %d", c.ExitCode)
	case RunnerCode:
		return fmt.Sprintf("the test runner returned %d although every test passed", c.ExitCode)
	}
	return string(c.Kind)
}

// Public is the cause as a student may see it at once: of a cause from a
// run of hidden tests only its kind (the text before its first colon),
// since what follows can come from the hidden tests (names student code
// printed, a race inside one); a count of tests is shown whole.
func (c Cause) Public() string {
	if !c.Hidden || c.Kind == TestsFailed {
		return c.String()
	}
	kind, _, _ := strings.Cut(c.String(), ":")
	return "hidden tests: " + kind
}

// IsTimeout reports whether the cause is running out of time: a run that
// timed out, or an initialisation that never finished.
func (c Cause) IsTimeout() bool { return c.Kind == TimedOut || c.Kind == InitHung }

// Fail marks e failed for causes, and sets its reasons from them: a
// count of failed tests over all of e's tests when every cause is such a
// count of the grader's (the public and the hidden tests'),
// else each cause's public text, joined; HiddenReason holds the whole
// text of the causes from hidden runs.
func (e *ExerciseReport) Fail(causes ...Cause) {
	e.Passed = false
	if len(causes) > 0 && !slices.ContainsFunc(causes, func(c Cause) bool { return c.Kind != TestsFailed || c.Local }) {
		causes = []Cause{CountCause(e.Tests)}
	}
	e.Causes = causes
	var public, hidden []string
	for _, c := range causes {
		public = append(public, c.Public())
		if c.Hidden && c.Kind != TestsFailed {
			hidden = append(hidden, c.String())
		}
	}
	e.Reason = strings.Join(public, "; ")
	e.HiddenReason = strings.Join(hidden, "; ")
}

// OnlyCounts reports whether e failed only for tests that failed, which
// every format shows test by test anyway.
func (e *ExerciseReport) OnlyCounts() bool {
	return len(e.Causes) > 0 && !slices.ContainsFunc(e.Causes, func(c Cause) bool { return c.Kind != TestsFailed })
}

// Cause returns e's first cause of kind k.
func (e *ExerciseReport) Cause(k CauseKind) (Cause, bool) {
	for _, c := range e.Causes {
		if c.Kind == k {
			return c, true
		}
	}
	return Cause{}, false
}
