package judge

import (
	"slices"
	"strings"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/testjson"
)

// A student's own run of go test (course test, course status, course
// watch) is judged here too, by the same rules, from its events alone:
// there is no harness in a workspace, and nothing to defend against (the
// student runs their own code).

// EventStatus is the status of one top-level test from its go test -json
// events alone.
func EventStatus(r *testjson.TestResult) string {
	switch {
	case r.Fails > 0:
		return report.StatusFail
	case r.Passes == 1 && r.Runs <= 1 && r.Skips == 0:
		return report.StatusPass
	case r.Skips > 0:
		return report.StatusSkip
	case r.Passes > 1:
		return report.StatusFail // one run was asked for (-count=1): something printed fake results
	}
	return report.StatusNoEnd
}

// Local decides exercise ex from the events of a student's own go test run
// that exited with code, as if the run had been the exercise's own: it
// passes when every one of its tests (the lab's public ones, and any of
// the student's own with its prefix, marked Own) passed and go test exited
// 0.
func Local(ex lab.Exercise, public []string, sum *testjson.Summary, code int) report.ExerciseReport {
	er := report.ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points}
	for _, name := range public {
		t := report.TestReport{Name: name, Status: report.StatusNotRun}
		if r, ok := sum.Test(name); ok {
			t.Status, t.Output = EventStatus(r), r.OutputText()
		}
		er.Tests = append(er.Tests, t)
	}
	for _, r := range sum.Tests {
		if strings.HasPrefix(r.Name, ex.TestPrefix) && !slices.Contains(public, r.Name) {
			er.Tests = append(er.Tests, report.TestReport{Name: r.Name, Status: EventStatus(r), Output: r.OutputText(), Own: true})
		}
	}
	failed := len(er.Tests) - er.TestsPassed()
	switch {
	case len(public) == 0:
		er.Fail(report.Cause{Kind: report.NoTests, Local: true})
	case report.CountStatus(er.Tests, report.StatusNotRun) == len(er.Tests):
		er.Fail(report.Cause{Kind: report.NoTestsRan, ExitCode: code, Local: true})
	case failed > 0 && failed == report.CountStatus(er.Tests, report.StatusFail):
		er.Fail(report.Cause{Kind: report.TestsFailed, Failed: failed, Total: len(er.Tests), Local: true})
	case failed > 0:
		er.Fail(report.Cause{Kind: report.TestsNotPassed, Failed: failed, Total: len(er.Tests), Local: true})
	case code != 0:
		er.Fail(report.Cause{Kind: report.ExitStatus, ExitCode: code, Local: true})
	default:
		er.Passed = true
		er.Points = float64(er.MaxPoints)
	}
	return er
}

// Broken is the cause of a student's own run that ran no test: the code
// does not compile (build), or go test failed before any test.
func Broken(build bool) report.Cause {
	if build {
		return report.Cause{Kind: report.BuildFailed, Local: true}
	}
	return report.Cause{Kind: report.RunBroken, Local: true}
}
