package grader

import (
	"fmt"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/coursekit/course/grader/testjson"
)

// maxTestOutput is how much of one test's output a report keeps.
const maxTestOutput = 8 << 10

// runResult is one run of the test binary, ready to be judged.
type runResult struct {
	tests []expectedTest // every test the run was asked to run
	sum   *testjson.Summary
	out   sandbox.Outcome
	rep   harnessReport // the harness's report on fd 3: the tests' results
	// tooManyLines: the output was not read as events at all (each line
	// costs the grader memory).
	tooManyLines bool
	timeout      time.Duration
	// notStarted: the submission's time budget was used up before this
	// run could start; it says so instead of a timeout.
	notStarted string
	cap        int
	lim        limits
}

// statuses reads the status of each test in tests from the run's events.
func (r *runResult) statuses(tests []expectedTest) (reports []report.TestReport, allPass bool, seconds float64) {
	allPass = true
	for _, t := range tests {
		// The result is the harness's; the events give only the output,
		// and say whether a test without a result had started.
		tr := report.TestReport{Name: t.name, Hidden: t.hidden, Status: report.StatusNotRun}
		res, seen := r.sum.Test(t.name)
		if seen {
			tr.Output = clip(res.OutputText(), maxTestOutput)
			seconds += res.Elapsed
		}
		switch result, ok := r.rep.results[t.name]; {
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

// trouble is what makes the whole run fail, whatever its tests said: a
// limit it hit, a race, a timeout, dropped output, events for tests it was
// not asked to run, a test with more than one result. "" if none.
func (r *runResult) trouble() string {
	want := map[string]bool{}
	for _, t := range r.tests {
		want[t.name] = true
	}
	var strangers []string
	forged := false
	for _, res := range r.sum.Tests {
		if !want[res.Name] {
			name := res.Name
			if len(name) > 60 {
				name = name[:60] + "…"
			}
			strangers = append(strangers, safetext.Printable(name))
		}
		forged = forged || res.Runs > 1 || res.Passes+res.Fails+res.Skips > 1
	}
	race, raceSummary := raceReport(string(r.out.Output))
	switch {
	case r.tooManyLines:
		return fmt.Sprintf("printed more than %d lines of output", maxOutputLines)
	case r.out.MemoryExceeded:
		return fmt.Sprintf("memory limit exceeded: the run used more than %s and was killed", humanize.IBytes(uint64(r.lim.memory)))
	case r.out.ProcessesExceeded:
		return fmt.Sprintf("process limit exceeded: the run tried to have more than %d processes and threads at once", r.lim.processes)
	case race:
		return raceReason(raceSummary)
	case r.notStarted != "":
		return r.notStarted
	case r.out.TimedOut || r.out.Duration >= r.timeout:
		// Either -test.timeout stopped the binary, or the grader killed it.
		return fmt.Sprintf("timed out: still running after %s", r.timeout)
	case r.out.Dropped > 0:
		return fmt.Sprintf("printed more than %d KiB of output; the rest was dropped", r.cap>>10)
	case len(strangers) > 0:
		names := strings.Join(strangers, ", ")
		if len(strangers) > 3 {
			names = fmt.Sprintf("%s and %d more", strings.Join(strangers[:3], ", "), len(strangers)-3)
		}
		return fmt.Sprintf("events for tests that were not run: %s (output that imitates the test runner is not allowed)", names)
	case forged:
		return "a test reported more than one result (output that imitates the test runner is not allowed)"
	}
	return ""
}

// imitated reports whether the run's events imitate the test runner: an
// event for a test it was not asked to run, or a second result for one.
func (r *runResult) imitated() bool {
	want := map[string]bool{}
	for _, t := range r.tests {
		want[t.name] = true
	}
	for _, res := range r.sum.Tests {
		if !want[res.Name] || res.Runs > 1 || res.Passes+res.Fails+res.Skips > 1 {
			return true
		}
	}
	return false
}

// initHung reports whether the run timed out before any test started.
func (r *runResult) initHung() bool {
	return r.out.TimedOut && len(r.sum.Tests) == 0 && r.out.Duration > 0
}

// initFailed is why the package's initialisation failed in this run, or ""
// if it did not: the run hung, or ran out of memory or processes, before
// any test started. Every other run would do the same. A race it had first
// is the reason: after it, nothing the run did is trusted.
func (r *runResult) initFailed() string {
	started := len(r.sum.Tests) > 0
	if started || !(r.initHung() || r.out.MemoryExceeded || r.out.ProcessesExceeded) {
		return ""
	}
	if race, summary := raceReport(string(r.out.Output)); race {
		return raceReason(summary)
	}
	if r.initHung() {
		return fmt.Sprintf("no test started within %s: the package's initialisation (an init function or a package-level variable) did not finish", r.timeout)
	}
	limit, detail, _ := strings.Cut(r.trouble(), ": ")
	return limit + " before any test started, in the package's initialisation (an init function or a package-level variable): " + detail
}

// consistent reports whether the run ended the normal way: the grader's
// TestMain reported with this run's nonce, the binary exited with the code
// m.Run returned, and that code says what the events say.
func (r *runResult) consistent() bool {
	_, allPass, _ := r.statuses(r.tests)
	return r.rep.ok && r.out.ExitCode == r.rep.code && (r.rep.code == 0) == allPass
}

// judge decides one exercise from a run of exactly its tests. It passes
// only if the harness reported, with this run's nonce, a pass for every
// expected test and the end of m.Run with 0, the process exited 0 in time
// without dropping output, and the events show no test outside the
// expected ones and no test with two results. Results come only from the
// harness: text printed by student code can add events, which fails the
// run, but can neither add nor remove a result.
func judge(er *report.ExerciseReport, r *runResult) {
	tests, allPass, _ := r.statuses(r.tests)
	if r.imitated() || r.rep.bad != "" || r.tooManyLines {
		for i := range tests {
			tests[i].Void = true
		}
	}
	er.Tests = append(er.Tests, tests...)
	er.Output = clip(strings.Join(r.sum.Output, ""), maxTestOutput)
	switch trouble := r.trouble(); {
	case len(r.tests) == 0:
		er.Reason = "the course has no tests for this exercise"
	case trouble != "":
		er.Reason = trouble
	case r.rep.bad != "":
		er.Reason = "the grader's own report of this run is unreadable: " + r.rep.bad
	case report.CountStatus(er.Tests, report.StatusNotRun) == len(er.Tests):
		er.Reason = fmt.Sprintf("no tests ran (exit status %d)", r.out.ExitCode)
	case !allPass:
		er.Reason = countReason(er.Tests)
	case r.out.ExitCode != 0:
		er.Reason = fmt.Sprintf("every test passed, but the test binary exited with status %d", r.out.ExitCode)
	case !r.rep.ok:
		er.Reason = "the grader's own report of this run is missing (the test binary did not finish normally)"
	case r.rep.code != 0:
		er.Reason = fmt.Sprintf("the test runner returned %d although every test passed", r.rep.code)
	default:
		er.Passed = true
		er.Points = float64(er.MaxPoints)
	}
}

// judgeShared decides one exercise from a run of several exercises'
// tests: it passes if the run as a whole is clean (no trouble, ended the
// normal way) and every one of the exercise's tests passed. ok is false
// when this run cannot decide: the exercise must then run on its own,
// so that another exercise's crash or hang never costs it its points.
func judgeShared(er *report.ExerciseReport, r *runResult, tests []expectedTest) (ok bool) {
	if r.trouble() != "" || !r.consistent() {
		return false
	}
	reports, allPass, seconds := r.statuses(tests)
	if !allPass {
		return false
	}
	er.Tests = append(er.Tests, reports...)
	er.Seconds = seconds
	er.Passed = true
	er.Points = float64(er.MaxPoints)
	return true
}

// maxOutputLines bounds how many lines of a run's output become events.
const maxOutputLines = 100_000

// limits are the resource limits a run had, for the reasons.
type limits struct {
	memory    int64
	processes int
}

// raceReason is the reason of a run with a race report.
func raceReason(summary string) string {
	return "data race (the race detector found one): " + summary
}

// raceReport finds the race detector's first report in a run's output and
// sums it up: which accesses, by which goroutines, at which lines.
func raceReport(out string) (bool, string) {
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

// clip keeps the first n bytes of s, saying how much was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("\n… (%d more bytes)\n", len(s)-n)
}
