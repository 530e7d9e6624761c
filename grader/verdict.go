package grader

import (
	"fmt"
	"strings"
	"time"

	"github.com/coursekit/course/grader/testjson"
)

// Test statuses in a report.
const (
	StatusPass   = "pass"
	StatusFail   = "fail"
	StatusSkip   = "skip"
	StatusNotRun = "not run"      // never started: an earlier crash, a build failure, a rejected file
	StatusNoEnd  = "did not end"  // started but never finished: a hang, a crash inside it
	StatusForged = "inconsistent" // more than one result: something printed fake test events
)

// maxTestOutput is how much of one test's output a report keeps.
const maxTestOutput = 8 << 10

// judge decides one exercise. It passes only if every expected test ran
// exactly once and passed exactly once, no test outside the expected ones
// reported anything, the process exited 0 in time without dropping output,
// and the grader's TestMain reported, with this run's nonce, that m.Run
// returned 0. Text printed by student code can add events but can never
// remove a failure, and cannot produce the TestMain report.
func judge(er *ExerciseReport, expected []expectedTest, sum *testjson.Summary, out outcome, rr runReport, timeout time.Duration, outputCap int) {
	want := map[string]bool{}
	allPass := true
	for _, t := range expected {
		want[t.name] = true
		tr := TestReport{Name: t.name, Hidden: t.hidden, Status: StatusNotRun}
		if r, ok := sum.Test(t.name); ok {
			tr.Output = clip(r.OutputText(), maxTestOutput)
			switch {
			case r.Runs > 1 || r.Passes+r.Fails+r.Skips > 1:
				tr.Status = StatusForged
			case r.Fails == 1:
				tr.Status = StatusFail
			case r.Skips == 1:
				tr.Status = StatusSkip
			case r.Passes == 1 && r.Runs == 1:
				tr.Status = StatusPass
			case r.Runs == 1:
				tr.Status = StatusNoEnd
			}
		}
		if tr.Status != StatusPass {
			allPass = false
		}
		er.Tests = append(er.Tests, tr)
	}
	var strangers []string
	for _, r := range sum.Tests {
		if !want[r.Name] {
			strangers = append(strangers, r.Name)
		}
	}
	er.Output = clip(strings.Join(sum.Output, ""), maxTestOutput)

	switch {
	case len(expected) == 0:
		er.Reason = "the course has no tests for this exercise"
	case out.TimedOut || out.Duration >= timeout:
		// Either -test.timeout stopped the binary, or the grader killed it.
		er.Reason = fmt.Sprintf("timed out: still running after %s", timeout)
	case out.Dropped > 0:
		er.Reason = fmt.Sprintf("printed more than %d KiB of output; the rest was dropped", outputCap>>10)
	case len(strangers) > 0:
		names := strings.Join(strangers, ", ")
		if len(strangers) > 3 {
			names = fmt.Sprintf("%s and %d more", strings.Join(strangers[:3], ", "), len(strangers)-3)
		}
		er.Reason = fmt.Sprintf("events for tests that were not run: %s (output that imitates the test runner is not allowed)", names)
	case countStatus(er.Tests, StatusForged) > 0:
		er.Reason = "a test reported more than one result (output that imitates the test runner is not allowed)"
	case countStatus(er.Tests, StatusNotRun) == len(er.Tests):
		er.Reason = fmt.Sprintf("no tests ran (exit status %d)", out.ExitCode)
	case !allPass:
		er.Reason = fmt.Sprintf("%d of %d tests failed", len(er.Tests)-countStatus(er.Tests, StatusPass), len(er.Tests))
	case out.ExitCode != 0:
		er.Reason = fmt.Sprintf("every test passed, but the test binary exited with status %d", out.ExitCode)
	case !rr.ok:
		er.Reason = "the grader's own report of this run is missing (the test binary did not finish normally)"
	case rr.code != 0:
		er.Reason = fmt.Sprintf("the test runner returned %d although every event said pass", rr.code)
	default:
		er.Passed = true
		er.Points = er.MaxPoints
	}
}

func countStatus(tests []TestReport, status string) int {
	n := 0
	for _, t := range tests {
		if t.Status == status {
			n++
		}
	}
	return n
}

// clip keeps the first n bytes of s, saying how much was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("\n… (%d more bytes)\n", len(s)-n)
}
