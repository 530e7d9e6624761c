// Package grader grades a student's submission of a lab. It is the facade
// of a pipeline of packages, each of which owns one step:
//
//   - submission reads what a student handed in (only the file they edit),
//   - check is the static wall the file must pass before it is built,
//   - build makes the test binary (setup checks the machine once),
//   - run runs it, confined by sandbox, public tests before hidden ones,
//   - judge decides each exercise from what the runs did,
//   - report holds the verdict as data, and format writes it.
//
// Options, New and Grader.Grade are what most callers need; package class
// grades many submissions at once.
package grader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/coursekit/course/grader/build"
	"github.com/coursekit/course/grader/check"
	"github.com/coursekit/course/grader/judge"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/run"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/coursekit/course/grader/setup"
	"github.com/coursekit/course/grader/submission"
)

// Defaults for Options.
const (
	// DefaultTimeout bounds one run of the test binary. The lab's tests
	// take well under a second each; this leaves room for a slow machine.
	DefaultTimeout = 30 * time.Second
	// DefaultBuildTimeout bounds the build of one submission.
	DefaultBuildTimeout = build.DefaultTimeout
	// budgetTimeouts is how many timeouts one submission's runs may take
	// together when Options.Budget is not set.
	budgetTimeouts = 4
)

// Errors of New that mean nothing can be graded on this machine: it is not
// ready (no C compiler, the lab's modules missing, a temporary directory a
// run cannot reach), its sandbox is weaker than Options.Sandbox asks, or
// it has no go command.
var (
	ErrSetup       = sandbox.ErrSetup
	ErrSandbox     = sandbox.ErrTooWeak
	ErrNoToolchain = build.ErrNoToolchain
)

// Options configure a Grader. The zero value grades every exercise with
// the lab's public tests only; set Hidden to add the hidden ones.
type Options struct {
	// Lab is the lab to grade against. Required.
	Lab *lab.Lab
	// Exercises limits grading to these exercise ids ("10.3"); empty means all.
	Exercises []string
	// Hidden adds the lab's hidden tests to every exercise.
	Hidden bool
	// Bonus grades the lab's bonus exercises too. Without it they are left
	// out, and their points are not in the report's maximum score; naming
	// one in Exercises is then an error.
	Bonus bool
	// TestsDir, if set, is a directory of extra *_test.go files (an
	// instructor's private suite kept outside the course) added like hidden
	// tests. Its test names must use the exercises' prefixes.
	TestsDir string
	// Timeout bounds one run of the test binary (wall clock); DefaultTimeout if zero.
	Timeout time.Duration
	// Budget bounds all runs of one submission together (wall clock, from
	// the first run): once it is used up, the exercises not yet run fail
	// without running. Four timeouts if zero.
	Budget time.Duration
	// Parallel is how many runs of one submission may go at once, each in
	// its own sandbox with its own limits; the number of CPUs if zero.
	Parallel int
	// BuildTimeout bounds the build; DefaultBuildTimeout if zero.
	BuildTimeout time.Duration
	// OutputCap is how many bytes of a run's output are kept; sandbox.DefaultOutputCap if zero.
	OutputCap int
	// Memory is how much memory one run may use, in bytes; sandbox.DefaultMemoryLimit if zero.
	Memory int64
	// Processes is how many processes and threads one run may have;
	// sandbox.DefaultProcessLimit if zero.
	Processes int
	// GoBin is the go command; found on PATH (or in GOROOT) if empty.
	GoBin string
	// SkipPolicy turns off the static check of the student file. Only for
	// testing the run-time defences, and for the course's own mutants;
	// never for real submissions.
	SkipPolicy bool
	// Sandbox is how strongly runs are confined; sandbox.Strict if empty.
	Sandbox sandbox.Mode
	// NoRace builds without the race detector. Every grading build has it
	// (a data race is the one road to memory left without unsafe or
	// reflect); this is only for the course's own code on a machine with
	// no C compiler (course selfcheck --no-race), never for student code.
	NoRace bool
	// OwnCode says the submissions are the course's own code (the
	// self-check's stub, solutions and mutants): their builds use the go
	// command's own cache, as any build of the course does, and keep their
	// binaries, so that the next self-check builds only what changed.
	// Never for student code, whose builds only read a cache.
	OwnCode bool
	// TempDir is where private work directories are made; os.TempDir() if empty.
	TempDir string
	// Version is the course tool's version, recorded in every report's
	// Settings.
	Version string

	// noBubblewrap grades as on a machine without bubblewrap (tests of
	// the weaker sandbox levels).
	noBubblewrap bool
	// ownBinDir, if set, is where the course's own test binaries are kept
	// instead of the grader's cache directory (tests of that cache).
	ownBinDir string
	// observeRun, if set, is told of every run of the test binary: its
	// label ("public-all", "10_3-hidden") and when it started and ended.
	observeRun func(label string, start, end time.Time)
}

// Grader grades submissions of one lab. It is safe for concurrent use.
type Grader struct {
	opts      Options
	race      bool // build with the race detector
	goBin     string
	exercises []run.Exercise
	sandbox   *sandbox.Sandbox // confines student code and bounds the toolchain
	checker   *check.Checker   // the static wall
	builder   *build.Builder
	runner    *run.Config
}

// New checks opts and prepares a Grader. Its errors mean nothing can be
// graded: a missing toolchain (ErrNoToolchain), an unknown exercise, an
// unreadable TestsDir, a machine whose sandbox is weaker than opts.Sandbox
// asks (ErrSandbox), a machine that cannot build the lab (ErrSetup).
func New(opts Options) (*Grader, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	g := &Grader{opts: opts, race: !opts.NoRace}
	var err error
	if g.goBin, err = build.FindGo(opts.GoBin); err != nil {
		return nil, err
	}
	exercises, err := opts.exercises()
	if err != nil {
		return nil, err
	}
	var extra map[string][]byte
	var private []string
	if opts.TestsDir != "" {
		if extra, private, err = readPrivateSuite(opts.TestsDir, opts.Lab); err != nil {
			return nil, err
		}
	}
	if g.sandbox, err = sandbox.New(sandbox.Config{Mode: opts.Sandbox, Memory: opts.Memory, Processes: opts.Processes, NoBubblewrap: opts.noBubblewrap}); err != nil {
		return nil, err
	}
	if err := g.sandbox.CheckReachable(opts.TempDir); err != nil {
		return nil, err
	}
	given, err := opts.Lab.GivenFiles()
	if err != nil {
		return nil, err
	}
	tc, err := setup.Run(setup.Config{Lab: opts.Lab, GoBin: g.goBin, Race: g.race, Hidden: opts.Hidden, Extra: extra,
		Given: given, Sandbox: g.sandbox, TempDir: opts.TempDir})
	if err != nil {
		return nil, err
	}
	g.checker = check.NewWith(opts.Lab.Editable[0], opts.Lab.Package, opts.Lab.GoVersion(), given, tc.Exports, tc.CheckHelper)
	g.checker.Sequential = opts.Lab.Sequential
	var tests []string
	for _, ex := range exercises {
		re := run.Exercise{Exercise: ex}
		for _, name := range opts.Lab.PublicTests(ex.ID) {
			re.Tests = append(re.Tests, judge.Expected{Name: name})
		}
		if opts.Hidden {
			for _, name := range opts.Lab.HiddenTests(ex.ID) {
				re.Tests = append(re.Tests, judge.Expected{Name: name, Hidden: true})
			}
		}
		for _, name := range private {
			if strings.HasPrefix(name, ex.TestPrefix) {
				re.Tests = append(re.Tests, judge.Expected{Name: name, Hidden: true})
			}
		}
		for _, t := range re.Tests {
			tests = append(tests, t.Name)
		}
		g.exercises = append(g.exercises, re)
	}
	g.builder = build.New(build.Config{Lab: opts.Lab, GoBin: g.goBin, Race: g.race, Hidden: opts.Hidden, Extra: extra,
		Graded: graded(opts.Lab, exercises, extra), Tests: tests, Sandbox: g.sandbox, Cache: tc.Cache,
		Timeout: opts.BuildTimeout, Memory: opts.Memory, OwnCode: opts.OwnCode, SetupKey: tc.Key, OwnBinDir: opts.ownBinDir})
	g.runner = &run.Config{Sandbox: g.sandbox, Test2JSON: tc.Test2JSON, Timeout: opts.Timeout, Budget: opts.Budget,
		Parallel: opts.Parallel, OutputCap: opts.OutputCap, Observe: opts.observeRun}
	return g, nil
}

// defaults fills in what opts leaves zero, and refuses what cannot be.
func (o *Options) defaults() error {
	if o.Lab == nil {
		return errors.New("grader: no lab given")
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Budget <= 0 {
		o.Budget = budgetTimeouts * o.Timeout
	}
	if o.Budget < o.Timeout {
		return fmt.Errorf("grader: the budget of all runs (%s) is shorter than one run's timeout (%s)", o.Budget, o.Timeout)
	}
	if o.OutputCap <= 0 {
		o.OutputCap = sandbox.DefaultOutputCap
	}
	if o.Memory <= 0 {
		o.Memory = sandbox.DefaultMemoryLimit
	}
	if o.Processes <= 0 {
		o.Processes = sandbox.DefaultProcessLimit
	}
	if o.Parallel <= 0 {
		o.Parallel = runtime.NumCPU()
	}
	return nil
}

// exercises is the exercises to grade, in the lab's order: every one (the
// bonus ones with Bonus), or those of Exercises.
func (o *Options) exercises() ([]lab.Exercise, error) {
	if len(o.Exercises) == 0 {
		var out []lab.Exercise
		for _, ex := range o.Lab.Exercises {
			if !ex.Bonus || o.Bonus {
				out = append(out, ex)
			}
		}
		return out, nil
	}
	var out []lab.Exercise
	for _, id := range o.Exercises {
		ex, err := o.Lab.Exercise(id)
		if err != nil {
			return nil, err
		}
		if ex.Bonus && !o.Bonus {
			return nil, fmt.Errorf("exercise %s is a bonus exercise, graded only when asked for (course grade --bonus)", id)
		}
		out = append(out, ex)
	}
	return out, nil
}

// graded is the exercises graded, when they are not all of the lab's (a
// --lab selection, or all but the bonus ones): the grading directory then
// holds only the test files they need. Nil with private tests, which may
// use any test file.
func graded(l *lab.Lab, exercises []lab.Exercise, extra map[string][]byte) []string {
	if len(exercises) == len(l.Exercises) || len(extra) > 0 {
		return nil
	}
	ids := make([]string, len(exercises))
	for i, ex := range exercises {
		ids[i] = ex.ID
	}
	return ids
}

// Isolation says how this grader confines runs of student code.
func (g *Grader) Isolation() report.Isolation { return g.sandbox.Isolation() }

// Race reports whether submissions are built with the race detector.
func (g *Grader) Race() bool { return g.race }

// settings are how a submission whose grading began at started is graded.
func (g *Grader) settings(started time.Time) *report.Settings {
	o := g.opts
	mode := o.Sandbox
	if mode == "" {
		mode = sandbox.Strict
	}
	return &report.Settings{Graded: started.UTC().Truncate(time.Second), Version: o.Version, Sandbox: string(mode),
		Timeout: o.Timeout, Budget: o.Budget, Memory: o.Memory, Hidden: o.Hidden, Bonus: o.Bonus,
		PrivateTests: o.TestsDir != "", Exercises: slices.Clone(o.Exercises)}
}

// GoBin returns the go command the grader builds with.
func (g *Grader) GoBin() string { return g.goBin }

// Grade grades one submission. The report says what happened, including a
// rejected file or a failed build; the error is only for the grader's own
// trouble (no temporary directory, a run that could not be confined), which
// makes the grade unknown, and for ctx ending before the grade is known
// (then it is ctx.Err()).
func (g *Grader) Grade(ctx context.Context, sub *submission.Submission) (*report.Report, error) {
	started := time.Now()
	l := g.opts.Lab
	rep := &report.Report{Submission: sub.Name, Path: sub.Path, Lab: l.Chapter, Isolation: g.sandbox.Isolation(), Race: g.race,
		Settings: g.settings(started)}
	editable := l.Editable[0]
	src, ok := sub.Files[editable]
	if !ok {
		return nil, &submission.Error{Path: sub.Path, Reason: "holds no " + editable, Kind: submission.Missing}
	}
	work, err := os.MkdirTemp(g.opts.TempDir, "course-grade-*")
	if err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}
	defer os.RemoveAll(work)
	// The check and the writing of the grading directory go side by side:
	// the directory does not depend on the verdict, and nothing reads it
	// before the build, which starts only once the file has passed.
	checked := make(chan error, 1)
	go func() { checked <- g.check(src) }()
	werr := g.builder.Write(work, src)
	if err := <-checked; err != nil {
		var pe *check.Error
		if !errors.As(err, &pe) {
			return nil, fmt.Errorf("grader: %w", err)
		}
		g.reject(rep, pe, studentName(sub, editable))
		return g.finish(rep, started), nil
	}
	if werr != nil {
		return nil, werr
	}
	bin, built, err := g.builder.Build(ctx, work)
	rep.Build = built
	switch {
	case err != nil:
		return nil, err
	case !built.OK:
		g.failAll(rep, report.Cause{Kind: report.BuildFailed})
		return g.finish(rep, started), nil
	}
	if rep.Exercises, err = g.runner.All(ctx, work, bin, g.exercises); err != nil {
		return nil, err
	}
	return g.finish(rep, started), nil
}

// check is the static wall's verdict on src: nil when it may be built.
func (g *Grader) check(src []byte) error {
	if g.opts.SkipPolicy {
		return nil
	}
	return g.checker.Check(src)
}

// reject fails every exercise of rep for the checker's error pe, whose
// file the student calls name.
func (g *Grader) reject(rep *report.Report, pe *check.Error, name string) {
	editable := g.opts.Lab.Editable[0]
	pe.File = name
	if pe.CompileOnly() {
		// Not Go that builds: told as the compiler would tell it.
		rep.Build = report.Build{OK: false, Output: pe.Lines()}
		g.failAll(rep, report.Cause{Kind: report.BuildFailed})
		return
	}
	rep.Build = report.Build{OK: false, Output: pe.Error(), Rejected: true}
	if pe.File != editable {
		rep.Build.Output = fmt.Sprintf("%s is graded as %s, the lab's file.\n%s", pe.File, editable, rep.Build.Output)
	}
	cause := report.Cause{Kind: report.Rejected}
	if len(pe.Violations) > 0 {
		cause.Detail, cause.Hint = pe.Violations[0].At(pe.File), pe.Violations[0].Hint
	}
	g.failAll(rep, cause)
}

// finish scores every exercise and sums up the report.
func (g *Grader) finish(rep *report.Report, started time.Time) *report.Report {
	for i := range rep.Exercises {
		if ex, err := g.opts.Lab.Exercise(rep.Exercises[i].ID); err == nil {
			report.Score(ex, &rep.Exercises[i])
		}
	}
	for _, ex := range rep.Exercises {
		rep.Score += ex.Points
		rep.MaxScore += ex.MaxPoints
	}
	rep.Seconds = time.Since(started).Seconds()
	return rep
}

// failAll fails every exercise for one cause, listing its tests as not run.
func (g *Grader) failAll(rep *report.Report, cause report.Cause) {
	for _, ex := range g.exercises {
		rep.Exercises = append(rep.Exercises, judge.NotRun(ex.Exercise, ex.Tests, &cause))
	}
}

// studentName is what the student called the lab's file: a lone file or
// an upload of any name (alice.go) is graded as the lab's, and a rejection
// names it as the student knows it.
// A name of other characters than a plain file name's is not repeated: it
// would be the student's text in the report (a line break, a note).
func studentName(sub *submission.Submission, editable string) string {
	if found := path.Base(sub.Found[editable]); plainGoFile.MatchString(found) {
		return found
	}
	return editable
}

// plainGoFile is a file name a report may repeat as it is.
var plainGoFile = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}\.go$`)
