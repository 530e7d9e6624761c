package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
)

// How many lines of a failing test's output are shown: more of the first
// failure, enough of each later one for a testify block.
const (
	maxOutputLines      = 25
	maxLaterOutputLines = 10
)

// TestOptions are the inputs of `course test`.
type TestOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)
	// Getenv reads the environment (NO_COLOR).
	Getenv func(string) string
	// GoTest runs go test in the workspace; execGoTest unless a test replaces it.
	GoTest GoTestFunc

	Dir      string // where to look for the workspace
	Exercise string // the exercise id, as given; "" is the current exercise
}

// NewCmdTest returns the `course test [exercise]` command.
func NewCmdTest(f *Factory) *cobra.Command {
	return newCmdTest(&TestOptions{IO: f.IO, Catalog: f.Catalog, Getenv: os.Getenv, GoTest: execGoTest})
}

func newCmdTest(opts *TestOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "test [exercise]",
		Short: "Run one exercise's tests in your workspace, grouped and readable",
		Long: `Run the public tests of one exercise of your practice workspace, as
'go test -run {run}' does, and show each test: ✓ or ✗, and under a
failing test what it printed.

Without an exercise it tests the current one, as course watch does: it runs
every exercise and shows the first graded one that fails. An optional
(bonus) exercise is tested only when you name it.

It runs without the race detector, as course status and course watch do,
so that they agree. Grading always has it on: under an exercise that
passes, of a lab whose code may run goroutines, it says which
'go test -race' finds what this run does not look for.

Exit status: 0 the exercise passes (without an exercise: every graded one
does), 1 it fails, 2 the command line was wrong (an unknown exercise) or
the tests could not be run.`,
		Example: "  course test\n  course test {exercise}",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Exercise = args[0]
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runTest(ctx, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", ".", "the practice workspace, or a directory inside it")
	return cmd
}

func runTest(ctx context.Context, opts *TestOptions) error {
	ws, err := openWorkspace(opts.Dir, opts.Catalog)
	if err != nil {
		return err
	}
	if opts.Exercise == "" {
		return runCurrentTest(ctx, opts, ws)
	}
	ex, err := lookupExercise(ws.Lab, opts.Exercise)
	if err != nil {
		return usageError(err)
	}
	out := opts.IO.Out
	st := styleFor(out, opts.Getenv)
	fmt.Fprintf(out, "%s %s  (go test -run %s)\n\n", ex.ID, ex.Name, runPattern(ex))
	live := newLiveLine(opts.IO.ErrOut)
	res, err := ws.testExercises(ctx, opts.GoTest, []lab.Exercise{ex}, live.progress)
	live.clear()
	if ctx.Err() != nil {
		return cannotGrade(errors.New("interrupted"))
	}
	if err != nil {
		return cannotGrade(err)
	}
	eo := res.Exercises[0]
	if err := testVerdict(out, res, eo, st); err != nil {
		return err
	}
	if !ws.Lab.Sequential {
		fmt.Fprintln(out, st.Dim(raceNote(ex)))
	}
	return nil
}

// raceNote says, under a passing exercise of a lab whose code may run
// goroutines, what grading adds: every grading build has the race
// detector, which this run (like status and watch, so that they agree)
// leaves out. A lab marked sequential cannot race in the student's code.
func raceNote(e lab.Exercise) string {
	return fmt.Sprintf("Grading runs it with the race detector on: go test -race -run %s finds a data race this run does not look for.", runPattern(e))
}

// runCurrentTest is `course test` without an exercise: it runs them all
// and shows the current one, the first graded exercise that fails.
func runCurrentTest(ctx context.Context, opts *TestOptions, ws *Workspace) error {
	out := opts.IO.Out
	st := styleFor(out, opts.Getenv)
	live := newLiveLine(opts.IO.ErrOut)
	res, err := ws.testExercises(ctx, opts.GoTest, orderedExercises(ws.Lab), live.progress)
	live.clear()
	if ctx.Err() != nil {
		return cannotGrade(errors.New("interrupted"))
	}
	if err != nil {
		return cannotGrade(err)
	}
	eo := currentExercise(res, false)
	if eo == nil {
		fmt.Fprintln(out, allPassLine(res, st, "course test"))
		return nil
	}
	ex := eo.Exercise
	fmt.Fprintf(out, "%s %s  (go test -run %s)\n\n", ex.ID, ex.Name, runPattern(ex))
	return testVerdict(out, res, eo, st)
}

// currentExercise is the exercise to work on: the first that fails of the
// graded ones, and of the bonus ones too when withBonus is set. Nil when
// they all pass.
func currentExercise(res *runOutcome, withBonus bool) *exerciseOutcome {
	for _, eo := range res.Exercises {
		if !eo.Passed && (withBonus || !eo.Exercise.Bonus) {
			return eo
		}
	}
	return nil
}

// allPassLine says that every graded exercise passes, and names an
// optional one that does not, with the command (course test, course
// watch) that takes it on: optional work is offered, never failed.
func allPassLine(res *runOutcome, st format.Style, command string) string {
	for _, eo := range res.Exercises {
		if eo.Exercise.Bonus && !eo.Passed {
			e := eo.Exercise
			return fmt.Sprintf("%s Optional: %s %s (bonus), when you want it: %s %s",
				st.Pass("Every graded exercise passes!"), e.ID, e.Name, command, e.ID)
		}
	}
	return st.Pass("All exercises pass!")
}

// testVerdict writes the run of one exercise and returns its exit status.
func testVerdict(out io.Writer, res *runOutcome, eo *exerciseOutcome, st format.Style) error {
	ex := eo.Exercise
	writeExercise(out, res, eo, st)
	if !eo.Passed {
		return failure(fmt.Errorf("%s %s fails: %s", ex.ID, ex.Name, eo.Reason))
	}
	return nil
}

// lookupExercise finds an exercise by its id ("N.M"), or by the part
// after the chapter ("M").
func lookupExercise(l *lab.Lab, id string) (lab.Exercise, error) {
	e, err := l.Exercise(id)
	if err == nil {
		return e, nil
	}
	// Also "M" and the go test name "LabN_M", as the handout writes it.
	for _, alias := range []string{l.Chapter + "." + id, strings.Replace(strings.TrimPrefix(id, "Lab"), "_", ".", 1)} {
		if short, err2 := l.Exercise(alias); err2 == nil {
			return short, nil
		}
	}
	return e, err
}

// writeExercise writes the run of one exercise: why nothing ran, or each
// test with the output of those that failed, and then the verdict.
func writeExercise(w io.Writer, res *runOutcome, eo *exerciseOutcome, st format.Style) {
	if res.Broken {
		writeBroken(w, res, st)
	} else {
		writeTests(w, eo, st)
	}
	fmt.Fprintf(w, "\n%s\n", verdictLine(eo, st))
}

// writeTests writes one line a test, ✓ or ✗, and under a test that did
// not pass what it printed (without go test's === RUN framing), indented.
func writeTests(w io.Writer, eo *exerciseOutcome, st format.Style) {
	limit := maxOutputLines
	for _, t := range eo.Tests {
		mark, note := st.Fail("✗"), ""
		switch t.Status {
		case report.StatusPass:
			mark = st.Pass("✓")
		case report.StatusSkip:
			mark, note = st.Dim("-"), "skipped"
		case report.StatusNotRun:
			note = "did not run"
		case report.StatusNoEnd:
			note = "did not end: it crashed or hung"
		}
		if t.Own {
			note = strings.TrimPrefix(note+"; your own test", "; ")
		}
		if note != "" {
			note = " " + st.Dim("("+note+")")
		}
		fmt.Fprintf(w, "  %s %s%s\n", mark, t.Name, note)
		if t.Status == report.StatusPass || t.Status == report.StatusNotRun {
			continue
		}
		lines, more := outputExcerpt(t.Output, limit)
		limit = maxLaterOutputLines
		for _, l := range lines {
			fmt.Fprintf(w, "      %s\n", l)
		}
		if more > 0 {
			fmt.Fprintf(w, "      %s\n", st.Dim(fmt.Sprintf(`… %d more lines: go test -v -run "^%s$"`, more, t.Name)))
		}
	}
	if !eo.Passed && strings.TrimSpace(eo.Output) != "" {
		fmt.Fprintf(w, "  %s\n%s", st.Dim("printed outside the tests:"), indentLines(trimOutput(eo.Output), "      "))
	}
}

// verdictLine is "PASS N.M Name: 9 of 9 tests passed", or FAIL and a
// pointer to the hints.
func verdictLine(eo *exerciseOutcome, st format.Style) string {
	e := eo.Exercise
	if eo.Passed {
		return fmt.Sprintf("%s %s %s: %d of %d tests passed", st.Pass("PASS"), e.ID, e.Name, eo.passedTests(), len(eo.Tests))
	}
	what := fmt.Sprintf("%d of %d tests passed", eo.passedTests(), len(eo.Tests))
	_, build := eo.Cause(report.BuildFailed)
	_, broken := eo.Cause(report.RunBroken)
	if eo.passedTests() == len(eo.Tests) || build || broken {
		what = eo.Reason
	}
	return fmt.Sprintf("%s %s %s: %s  (course hint %s for a nudge)", st.Fail("FAIL"), e.ID, e.Name, what, e.ID)
}

// outputExcerpt returns the lines of a test's output that a person reads
// (no === RUN, --- PASS/FAIL framing or blank lines), at most n of them,
// and how many more there were.
func outputExcerpt(out string, n int) (lines []string, more int) {
	var all []string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		t := strings.TrimSpace(line)
		framing := strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- FAIL") ||
			strings.HasPrefix(t, "--- PASS") || strings.HasPrefix(t, "--- SKIP") // not testify's "--- Expected"
		if framing || t == "" {
			continue
		}
		// go test indents a test's output by four spaces; the caller indents it anew.
		all = append(all, strings.TrimPrefix(strings.TrimRight(line, "\r"), "    "))
	}
	if len(all) <= n {
		return all, 0
	}
	// Too long: testify's Diff goes first, and its Messages line, which says
	// what the lab expects, is always kept.
	var short []string
	inDiff := false
	for _, l := range all {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "Diff:"):
			inDiff = true
		case strings.HasPrefix(t, "Test:"), strings.HasPrefix(t, "Messages:"), strings.HasPrefix(t, "Error Trace:"):
			inDiff = false
		}
		if !inDiff {
			short = append(short, l)
		}
	}
	for i, l := range short {
		if i < n || strings.HasPrefix(strings.TrimSpace(l), "Messages:") {
			lines = append(lines, l)
		}
	}
	return lines, len(all) - len(lines)
}

// trimOutput drops the trailing blank lines of s.
func trimOutput(s string) string { return strings.TrimRight(s, "\r\n") }

// indentLines puts prefix before every line of s and ends it with a newline.
func indentLines(s, prefix string) string {
	if s == "" {
		return ""
	}
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) + "\n"
}
