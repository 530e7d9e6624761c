package cli

// What the student-side commands (status, test, watch, hint) share: finding
// the practice workspace around a directory, and running the student's own
// tests there with the plain go command, summed up per exercise. One
// mechanism for all of them, so that they can never disagree on a verdict.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/judge"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/testjson"
)

// studentTestTimeout bounds a student's own run of the tests (course test,
// status, watch): every exercise asked for, in one go test.
const studentTestTimeout = time.Minute

// Workspace is a practice workspace that `course practice` made.
type Workspace struct {
	Dir string // its root, absolute: the directory holding .course/workspace.json
	Lab *lab.Lab
}

// openWorkspace finds the workspace that holds dir (dir itself or the
// nearest parent with a .course/workspace.json) and its lab. Outside a
// workspace it is a usage error that says how to make one.
func openWorkspace(dir string, catalog func() (*lab.Catalog, error)) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, inputError(fmt.Errorf("--dir %s: %w", dir, err))
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return nil, inputError(fmt.Errorf("--dir %s: %w", dir, pathErrCause(err)))
	case !fi.IsDir():
		return nil, inputError(fmt.Errorf("--dir %s: not a directory", dir))
	}
	root := ""
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, filepath.FromSlash(lab.WorkspaceInfoPath))); err == nil {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	c, err := catalog()
	if err != nil {
		return nil, failure(err)
	}
	if root == "" {
		how := "'course practice <chapter> <dir>'"
		switch chs := c.Chapters(); len(chs) {
		case 0:
		case 1:
			how = "'course practice " + chs[0] + " <dir>'"
		default:
			how += " (chapters " + strings.Join(chs, ", ") + ")"
		}
		return nil, inputError(fmt.Errorf("not inside a practice workspace (no %s here or above); create one with %s",
			filepath.FromSlash(lab.WorkspaceInfoPath), how))
	}
	info, err := lab.ReadWorkspaceInfo(root)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, NoHelp: true, Err: fmt.Errorf("not a usable practice workspace: %w", err)}
	}
	l, err := c.Lookup(info.Chapter)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, NoHelp: true, Err: fmt.Errorf("workspace %s: %w", root, err)}
	}
	return &Workspace{Dir: root, Lab: l}, nil
}

// pathErrCause drops the *os.PathError wrapper of an error about a path
// that the message names already.
func pathErrCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// orderedExercises returns the lab's exercises in the order a student does
// them: the graded ones as the manifest lists them, then the bonus ones
// (which a student may do, for points apart).
func orderedExercises(l *lab.Lab) []lab.Exercise {
	var main, bonus []lab.Exercise
	for _, e := range l.Exercises {
		if e.Bonus {
			bonus = append(bonus, e)
		} else {
			main = append(main, e)
		}
	}
	return append(main, bonus...)
}

// GoTestFunc runs `go test` with args (what follows "test") in dir,
// writing what the go command prints, standard output and standard error
// together, to out. It returns the go command's exit status, and an error
// only when the command could not be run at all or ctx ended.
type GoTestFunc func(ctx context.Context, dir string, args []string, out io.Writer) (exitCode int, err error)

// execGoTest is the GoTestFunc of a real run: the go command on PATH, in
// the student's environment, exactly as they would run it themselves.
func execGoTest(ctx context.Context, dir string, args []string, out io.Writer) (int, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"test"}, args...)...)
	cmd.Dir = dir
	cmd.Stdout = out
	cmd.Stderr = out // the same writer: exec then writes from one goroutine
	cmd.Cancel = func() error {
		// Let go test stop its test binary and clean up; a Ctrl-C on a
		// terminal has signalled both already. Windows cannot interrupt.
		if runtime.GOOS != "windows" {
			if err := cmd.Process.Signal(os.Interrupt); err == nil {
				return nil
			}
		}
		return cmd.Process.Kill()
	}
	cmd.WaitDelay = 5 * time.Second // then the pipes are closed on a lingering test binary
	err := cmd.Run()
	if ctx.Err() != nil {
		return -1, ctx.Err()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil // -1 when a signal ended it
	}
	if err != nil {
		return -1, fmt.Errorf("cannot run go test: %w", err)
	}
	return 0, nil
}

// testOutcome is one test of an exercise after a run: a report's test,
// Own when the student wrote it.
type testOutcome = report.TestReport

// exerciseOutcome is the verdict on one exercise, as judge.Local gives it.
type exerciseOutcome struct {
	Exercise lab.Exercise
	report.ExerciseReport
}

// passedTests counts the tests that passed.
func (e *exerciseOutcome) passedTests() int { return e.TestsPassed() }

// countStatus counts the tests with status.
func countStatus(tests []testOutcome, status string) int { return report.CountStatus(tests, status) }

// runOutcome is the verdict on the exercises of one `course` run.
type runOutcome struct {
	Exercises []*exerciseOutcome
	// Broken is set when go test ran no test at all: the code does not
	// compile (BuildFailed), or the go command or the test binary failed
	// before any test. Every exercise then fails, and BrokenOutput is what
	// the go command printed, to be shown once.
	Broken       bool
	BuildFailed  bool
	BrokenOutput string
}

// find returns the outcome of exercise id, or nil.
func (o *runOutcome) find(id string) *exerciseOutcome {
	for _, e := range o.Exercises {
		if e.Exercise.ID == id {
			return e
		}
	}
	return nil
}

// maxKeptOutput is how much output of one test, or outside the tests, a
// run keeps.
const maxKeptOutput = 1 << 20

// testProgress hears, while go test runs, how many tests of how many have
// finished; label says what runs.
type testProgress func(label string, done, total int)

// testExercises runs the public tests of exs in ws with goTest and judges
// each exercise by the rule of `go test -run LabN_M`: it passes when every
// one of its tests (the lab's public ones, and any of the student's own
// with its prefix) passed and go test exited 0.
//
// All of exs are run at once, with -run anchored on their test prefixes. If
// that run exits 0, or an exercise has a failing test, or every test of an
// exercise passed while another exercise's test failed (which is then why
// go test exited 1), the verdict is that of the exercise's own run. Only an
// exercise whose verdict the shared run leaves open (a crash or hang cut it
// short, or go test failed with no failing test) is run again on its own.
func (ws *Workspace) testExercises(ctx context.Context, goTest GoTestFunc, exs []lab.Exercise, progress testProgress) (*runOutcome, error) {
	label := "running the tests"
	if len(exs) == 1 {
		label = "running " + exs[0].ID
	}
	sum, code, err := ws.goTest(ctx, goTest, exs, label, progress)
	if err != nil {
		return nil, err
	}
	out := &runOutcome{}
	if broken, build, text := brokenRun(sum, code); broken {
		out.Broken, out.BuildFailed, out.BrokenOutput = true, build, text
		for _, e := range exs {
			eo := ws.judge(e, sum, code)
			eo.Fail(judge.Broken(build))
			out.Exercises = append(out.Exercises, eo)
		}
		return out, nil
	}
	failedSomewhere := false
	timedOut := slices.ContainsFunc(sum.Output, isTimeoutPanic)
	for _, t := range sum.Tests {
		failedSomewhere = failedSomewhere || t.Fails > 0
		timedOut = timedOut || slices.ContainsFunc(t.Output, isTimeoutPanic)
	}
	failsAlone := func(t testOutcome) bool {
		// A test that was still running when go test's -timeout struck
		// would hang on its own too; running it again costs the timeout again.
		return t.Status == report.StatusFail || t.Status == report.StatusSkip || (timedOut && t.Status == report.StatusNoEnd)
	}
	for _, e := range exs {
		eo := ws.judge(e, sum, code)
		if len(exs) > 1 && code != 0 && !eo.Passed {
			switch {
			case slices.ContainsFunc(eo.Tests, failsAlone):
				// It fails on its own too.
			case failedSomewhere && len(eo.Tests) > 0 && eo.passedTests() == len(eo.Tests):
				// Every test of it passed: go test's status 1 is another exercise's failing test.
				eo.Passed, eo.Reason, eo.Causes, eo.Output = true, "", nil, ""
			default:
				// A crash or a hang cut the run short, or go test failed with
				// no failing test: only the exercise's own run can tell.
				alone, err := ws.testExercises(ctx, goTest, []lab.Exercise{e}, progress)
				if err != nil {
					return nil, err
				}
				eo = alone.Exercises[0]
				if alone.Broken {
					eo.Output = alone.BrokenOutput
				}
			}
		}
		out.Exercises = append(out.Exercises, eo)
	}
	return out, nil
}

// isTimeoutPanic reports whether a line of output is the testing
// package's panic when -timeout struck.
func isTimeoutPanic(line string) bool { return strings.HasPrefix(line, "panic: test timed out after ") }

// goTest runs go test -json for the tests of exs and sums up its events.
func (ws *Workspace) goTest(ctx context.Context, goTest GoTestFunc, exs []lab.Exercise, label string, progress testProgress) (*testjson.Summary, int, error) {
	prefixes := make([]string, len(exs))
	total := 0
	for i, e := range exs {
		prefixes[i] = regexp.QuoteMeta(e.TestPrefix)
		total += len(ws.Lab.PublicTests(e.ID))
	}
	// Not go test's ten minutes: a walk without a seen set loops for ever,
	// and a student should hear so in a minute.
	args := []string{"-json", "-count=1", "-timeout", studentTestTimeout.String(), "-run", "^(" + strings.Join(prefixes, "|") + ")", "."}

	pr, pw := io.Pipe()
	sum := testjson.NewSummary()
	decoded := make(chan error, 1)
	go func() {
		d := testjson.NewDecoder(pr)
		done := 0
		kept := map[string]int{} // bytes of output kept, by top-level test ("" outside tests)
		if progress != nil {
			progress(label, 0, total)
		}
		for {
			ev, err := d.Next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				pr.CloseWithError(err)
				decoded <- err
				return
			}
			if ev.Action == testjson.ActionOutput {
				// A test printing in a loop must not fill the memory; what
				// is shown of it is a few lines anyway.
				top, _, _ := strings.Cut(ev.Test, "/")
				if kept[top] >= maxKeptOutput {
					continue
				}
				kept[top] += len(ev.Output)
			}
			sum.Add(ev)
			if progress != nil && ev.Test != "" && !strings.Contains(ev.Test, "/") && ev.Action.IsFinal() {
				done++
				progress(label, done, max(total, done))
			}
		}
	}()
	code, err := goTest(ctx, ws.Dir, args, pw)
	pw.Close()
	if derr := <-decoded; derr != nil && err == nil {
		err = derr
	}
	return sum, code, err
}

// brokenRun reports whether a run ran no test because go test could not
// get that far, whether the cause was the build, and what it printed.
func brokenRun(sum *testjson.Summary, code int) (broken, build bool, output string) {
	if len(sum.BuildFailed) > 0 {
		text := strings.Join(sum.BuildOutput, "")
		if strings.TrimSpace(text) == "" {
			text = goOutput(sum.Output)
		}
		return true, true, text
	}
	if code != 0 && len(sum.Tests) == 0 {
		return true, false, strings.Join(sum.BuildOutput, "") + goOutput(sum.Output)
	}
	return false, false, ""
}

// goOutput joins the package-level output of a run, leaving out the lines
// that go test prints about every run (PASS, FAIL, ok, the package line).
func goOutput(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case t == "", t == "PASS", t == "FAIL", strings.HasPrefix(t, "ok  \t"), strings.HasPrefix(t, "FAIL\t"),
			strings.HasPrefix(t, "testing: warning: no tests to run"), strings.HasPrefix(t, "?   \t"):
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

// judge decides exercise e from the events of a run that exited with code,
// as if the run had been the exercise's own (judge.Local); what the run
// printed outside any test comes with a failure.
func (ws *Workspace) judge(e lab.Exercise, sum *testjson.Summary, code int) *exerciseOutcome {
	eo := &exerciseOutcome{Exercise: e, ExerciseReport: judge.Local(e, ws.Lab.PublicTests(e.ID), sum, code)}
	if !eo.Passed {
		eo.Output = goOutput(sum.Output)
	}
	return eo
}

// styleFor is how to colour what is written to w: only on a terminal, and
// never when NO_COLOR is set, as `course grade` does.
func styleFor(w io.Writer, getenv func(string) string) format.Style {
	return format.Style{Color: isTerminal(w) && getenv("NO_COLOR") == ""}
}
