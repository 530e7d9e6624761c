// Package judge decides verdicts from what runs of a test binary did. The
// results come from the harness's report (package harness), never from
// text student code can print; the events (test2json) give each test's
// output and fail a run that imitates them; a run that hit a limit, raced,
// timed out or dropped output fails whatever its tests said. Every verdict
// carries its causes, typed (package report).
package judge

import (
	"fmt"
	"strings"
	"time"

	"github.com/coursekit/course/grader/harness"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/coursekit/course/grader/testjson"
)

// MaxTestOutput is how much of one test's output a report keeps.
const MaxTestOutput = 8 << 10

// MaxOutputLines bounds how many lines of a run's output become events.
const MaxOutputLines = 100_000

// Expected is a test the grader asks a run for.
type Expected struct {
	Name   string
	Hidden bool
}

// Limits are the resource limits a run had, for the causes.
type Limits struct {
	Memory    int64
	Processes int
}

// Run is one run of the test binary, ready to be judged.
type Run struct {
	Tests   []Expected // every test the run was asked to run
	Events  *testjson.Summary
	Outcome sandbox.Outcome
	Report  harness.Report // the harness's report on fd 3: the tests' results
	// TooManyLines: the output was not read as events at all (each line
	// costs the grader memory).
	TooManyLines bool
	Timeout      time.Duration
	// NotStarted: the submission's time budget was used up before this run
	// could start, and says so instead of a timeout.
	NotStarted *report.Cause
	OutputCap  int
	Limits     Limits
}

// Statuses reads the status of each test in tests from the run's report and
// events.
func (r *Run) Statuses(tests []Expected) (reports []report.TestReport, allPass bool, seconds float64) {
	allPass = true
	for _, t := range tests {
		// The result is the harness's; the events give only the output,
		// and say whether a test without a result had started.
		tr := report.TestReport{Name: t.Name, Hidden: t.Hidden, Status: report.StatusNotRun}
		res, seen := r.Events.Test(t.Name)
		if seen {
			tr.Output = clip(res.OutputText(), MaxTestOutput)
			seconds += res.Elapsed
		}
		switch result, ok := r.Report.Results[t.Name]; {
		case seen && (res.Runs > 1 || res.Passes+res.Fails+res.Skips > 1):
			tr.Status = report.StatusForged
		case ok:
			tr.Status = result
		case seen && res.Runs > 0:
			tr.Status = report.StatusNoEnd
		}
		if tr.Status != report.StatusPass {
			allPass = false
		}
		reports = append(reports, tr)
	}
	return reports, allPass, seconds
}

// Trouble is what makes the whole run fail, whatever its tests said: a
// limit it hit, a race, a timeout, dropped output, events for tests it was
// not asked to run, a test with more than one result.
func (r *Run) Trouble() (report.Cause, bool) {
	want := map[string]bool{}
	for _, t := range r.Tests {
		want[t.Name] = true
	}
	var strangers []string
	forged := false
	for _, res := range r.Events.Tests {
		if !want[res.Name] {
			name := res.Name
			if len(name) > 60 {
				name = name[:60] + "…"
			}
			strangers = append(strangers, safetext.Printable(name))
		}
		forged = forged || res.Runs > 1 || res.Passes+res.Fails+res.Skips > 1
	}
	race, raceSummary := RaceReport(string(r.Outcome.Output))
	switch {
	case r.TooManyLines:
		return report.Cause{Kind: report.TooManyLines, Limit: MaxOutputLines}, true
	case r.Outcome.MemoryExceeded:
		return report.Cause{Kind: report.MemoryExceeded, Limit: r.Limits.Memory}, true
	case r.Outcome.ProcessesExceeded:
		return report.Cause{Kind: report.ProcessesExceeded, Limit: int64(r.Limits.Processes)}, true
	case race:
		return report.Cause{Kind: report.Race, Detail: raceSummary}, true
	case r.NotStarted != nil:
		return *r.NotStarted, true
	case r.Outcome.TimedOut || r.Outcome.Duration >= r.Timeout:
		// Either -test.timeout stopped the binary, or the grader killed it.
		return report.Cause{Kind: report.TimedOut, Limit: int64(r.Timeout)}, true
	case r.Outcome.Dropped > 0:
		return report.Cause{Kind: report.OutputDropped, Limit: int64(r.OutputCap)}, true
	case len(strangers) > 0:
		names := strings.Join(strangers, ", ")
		if len(strangers) > 3 {
			names = fmt.Sprintf("%s and %d more", strings.Join(strangers[:3], ", "), len(strangers)-3)
		}
		return report.Cause{Kind: report.Imitated, Detail: names}, true
	case forged:
		return report.Cause{Kind: report.TwoResults}, true
	}
	return report.Cause{}, false
}

// Imitated reports whether the run's events imitate the test runner: an
// event for a test it was not asked to run, or a second result for one.
func (r *Run) Imitated() bool {
	want := map[string]bool{}
	for _, t := range r.Tests {
		want[t.Name] = true
	}
	for _, res := range r.Events.Tests {
		if !want[res.Name] || res.Runs > 1 || res.Passes+res.Fails+res.Skips > 1 {
			return true
		}
	}
	return false
}

// InitHung reports whether the run timed out before any test started.
func (r *Run) InitHung() bool {
	return r.Outcome.TimedOut && len(r.Events.Tests) == 0 && r.Outcome.Duration > 0
}

// InitFailed is why the package's initialisation failed in this run, if it
// did: the run hung, or ran out of memory or processes, before any test
// started. Every other run would do the same. A race it had first is the
// cause: after it, nothing the run did is trusted.
func (r *Run) InitFailed() (report.Cause, bool) {
	if len(r.Events.Tests) > 0 || !(r.InitHung() || r.Outcome.MemoryExceeded || r.Outcome.ProcessesExceeded) {
		return report.Cause{}, false
	}
	if race, summary := RaceReport(string(r.Outcome.Output)); race {
		return report.Cause{Kind: report.Race, Detail: summary}, true
	}
	if r.InitHung() {
		return report.Cause{Kind: report.InitHung, Limit: int64(r.Timeout)}, true
	}
	c, _ := r.Trouble()
	c.InInit = true
	return c, true
}

// consistent reports whether the run ended the normal way: the harness
// reported with this run's nonce, the binary exited with the code m.Run
// returned, and that code says what the results say.
func (r *Run) consistent() bool {
	_, allPass, _ := r.Statuses(r.Tests)
	return r.Report.OK && r.Outcome.ExitCode == r.Report.Code && (r.Report.Code == 0) == allPass
}

// Exercise decides one exercise from a run of exactly its tests. It passes
// only if the harness reported, with this run's nonce, a pass for every
// expected test and the end of m.Run with 0, the process exited 0 in time
// without dropping output, and the events show no test outside the
// expected ones and no test with two results. Results come only from the
// harness: text printed by student code can add events, which fails the
// run, but can neither add nor remove a result.
func Exercise(er *report.ExerciseReport, r *Run) {
	tests, allPass, _ := r.Statuses(r.Tests)
	if r.Imitated() || r.Report.Bad != "" || r.TooManyLines {
		for i := range tests {
			tests[i].Void = true
		}
	}
	er.Tests = append(er.Tests, tests...)
	er.Output = clip(strings.Join(r.Events.Output, ""), MaxTestOutput)
	trouble, troubled := r.Trouble()
	switch {
	case len(r.Tests) == 0:
		er.Fail(report.Cause{Kind: report.NoTests})
	case troubled:
		er.Fail(trouble)
	case r.Report.Bad != "":
		er.Fail(report.Cause{Kind: report.ReportUnreadable, Detail: r.Report.Bad})
	case report.CountStatus(er.Tests, report.StatusNotRun) == len(er.Tests):
		er.Fail(report.Cause{Kind: report.NoTestsRan, ExitCode: r.Outcome.ExitCode})
	case !allPass:
		er.Fail(report.CountCause(er.Tests))
	case r.Outcome.ExitCode != 0:
		er.Fail(report.Cause{Kind: report.ExitStatus, ExitCode: r.Outcome.ExitCode})
	case !r.Report.OK:
		er.Fail(report.Cause{Kind: report.ReportMissing})
	case r.Report.Code != 0:
		er.Fail(report.Cause{Kind: report.RunnerCode, ExitCode: r.Report.Code})
	default:
		er.Passed = true
		er.Points = float64(er.MaxPoints)
	}
}

// Shared decides one exercise from a run of several exercises' tests: it
// passes if the run as a whole is clean (no trouble, ended the normal way)
// and every one of the exercise's tests passed. ok is false when this run
// cannot decide: the exercise must then run on its own, so that another
// exercise's crash or hang never costs it its points.
func Shared(er *report.ExerciseReport, r *Run, tests []Expected) (ok bool) {
	if _, troubled := r.Trouble(); troubled || !r.consistent() {
		return false
	}
	reports, allPass, seconds := r.Statuses(tests)
	if !allPass {
		return false
	}
	er.Tests = append(er.Tests, reports...)
	er.Seconds = seconds
	er.Passed = true
	er.Points = float64(er.MaxPoints)
	return true
}

// NotRun is the part of an exercise whose tests did not run; with a cause,
// it failed for it.
func NotRun(ex lab.Exercise, tests []Expected, cause *report.Cause) report.ExerciseReport {
	er := report.ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points, Passed: true}
	for _, t := range tests {
		er.Tests = append(er.Tests, report.TestReport{Name: t.Name, Status: report.StatusNotRun, Hidden: t.Hidden})
	}
	if cause != nil {
		er.Fail(*cause)
	}
	return er
}

// Combine makes one exercise's report of its parts: the part of its public
// tests, then the part of its hidden ones, whose causes are marked hidden.
func Combine(ex lab.Exercise, parts []report.ExerciseReport) report.ExerciseReport {
	er := report.ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points, Passed: true}
	var causes []report.Cause
	for i, part := range parts {
		er.Tests = append(er.Tests, part.Tests...)
		er.Seconds += part.Seconds
		er.Output += part.Output
		if part.Passed {
			continue
		}
		for _, c := range part.Causes {
			c.Hidden = c.Hidden || i > 0
			causes = append(causes, c)
		}
		er.Passed = false
	}
	if er.Passed {
		er.Points = float64(er.MaxPoints)
		er.KeepFailureOutputOnly()
	} else {
		er.Fail(causes...)
	}
	return er
}

// clip keeps the first n bytes of s, saying how much was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("\n… (%d more bytes)\n", len(s)-n)
}

// RaceReport finds the race detector's first report in a run's output and
// sums it up: which accesses, by which goroutines, at which lines.
func RaceReport(out string) (bool, string) {
	at := strings.Index(out, "WARNING: DATA RACE")
	if at < 0 {
		return false, ""
	}
	var accesses []string
	lines := strings.Split(out[at:], "\n")
	for i := 1; i < len(lines) && len(accesses) < 2; i++ {
		line := strings.TrimSpace(lines[i])
		if line == "==================" {
			break
		}
		// "Write at 0x00c000123456 by goroutine 7:" then the top frame:
		// "pkg.(*T).Method()" and "/path/session.go:45 +0x44".
		what, by, ok := strings.Cut(line, " at 0x")
		if !ok || !strings.HasSuffix(line, ":") {
			continue
		}
		_, goroutine, _ := strings.Cut(by, " by ")
		where := ""
		if i+2 < len(lines) {
			fn := strings.TrimSpace(lines[i+1])
			if slash := strings.LastIndex(fn, "/"); slash >= 0 {
				fn = fn[slash+1:]
			}
			file := strings.Fields(strings.TrimSpace(lines[i+2]))
			if len(file) > 0 {
				loc := file[0]
				if slash := strings.LastIndex(loc, "/"); slash >= 0 {
					loc = loc[slash+1:]
				}
				where = fmt.Sprintf(" in %s at %s", strings.TrimSuffix(fn, "()"), loc)
			}
		}
		accesses = append(accesses, strings.ToLower(what[:1])+what[1:]+" by "+strings.TrimSuffix(goroutine, ":")+where)
	}
	if len(accesses) == 0 {
		return true, "see the report in the test's output"
	}
	return true, strings.Join(accesses, ", ")
}
