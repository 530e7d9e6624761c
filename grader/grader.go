// Package grader grades student submissions of a lab: it takes the files a
// student may edit, puts them beside the course's pristine files and tests,
// builds the test binary once, and runs it once per exercise, confined and
// bounded, reading results from test2json events and from a report written
// by a grader-owned TestMain that student code cannot reach.
package grader

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/coursekit/course/grader/check"
	"github.com/coursekit/course/grader/internal/goenv"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/coursekit/course/grader/submission"
	"github.com/coursekit/course/grader/testjson"
)

// Defaults for Options.
const (
	// DefaultTimeout bounds one run of the test binary. The lab's tests
	// take well under a second each; this leaves room for a slow machine.
	DefaultTimeout = 30 * time.Second
	// DefaultBuildTimeout bounds the build of one submission.
	DefaultBuildTimeout = 2 * time.Minute
	// budgetTimeouts is how many timeouts one submission's runs may take
	// together when Options.Budget is not set.
	budgetTimeouts = 4
)

// Errors of New that mean nothing can be graded on this machine: it is not
// ready (no C compiler, the lab's modules missing, a temporary directory a
// run cannot reach), or its sandbox is weaker than Options.Sandbox asks.
var (
	ErrSetup   = sandbox.ErrSetup
	ErrSandbox = sandbox.ErrTooWeak
)

// ErrNoToolchain means the go command was not found: nothing can be graded.
var ErrNoToolchain = errors.New("the go command was not found")

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
	// OutputCap is how many bytes of a run's output are kept; DefaultOutputCap if zero.
	OutputCap int
	// Memory is how much memory one run may use, in bytes; DefaultMemoryLimit if zero.
	Memory int64
	// Processes is how many processes and threads one run may have;
	// DefaultProcessLimit if zero.
	Processes int
	// GoBin is the go command; found on PATH (or in GOROOT) if empty.
	GoBin string
	// SkipPolicy turns off the static check of the student file. Only for
	// testing the run-time defences; never for real submissions.
	SkipPolicy bool
	// Sandbox is how strongly runs are confined; SandboxStrict if empty.
	Sandbox sandbox.Mode
	// NoRace builds without the race detector. Every grading build has it
	// (a data race is the one road to memory left without unsafe or
	// reflect); this is only for the course's own code on a machine with
	// no C compiler (course selfcheck --no-race), never for student code.
	NoRace bool
	// OwnCode says the submissions are the course's own code (the
	// self-check's stub, solutions and mutants): their builds keep what
	// they compile in the go command's own cache, as any build of the
	// course does, so that the next self-check compiles only what changed.
	// Never for student code, whose builds only read a cache.
	OwnCode bool
	// TempDir is where private work directories are made; os.TempDir() if empty.
	TempDir string

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
	goBin     string
	test2json string // the toolchain's converter, run directly: `go tool` costs a go command start each time
	exercises []lab.Exercise
	expected  map[string][]expectedTest // exercise id -> its tests
	extra     map[string][]byte         // private test files: name -> content
	secret    []string                  // file names whose lines a build's output must not show
	race      bool                      // build with the race detector
	checker   *check.Checker            // the static wall
	cache     *buildCache               // what builds share, which no build writes
	setupID   string                    // the set-up's key: the toolchain, the machine's settings, the lab
	sandbox   *sandbox.Sandbox          // confines student code and bounds the toolchain
}

type expectedTest struct {
	name   string
	hidden bool
}

// New checks opts and prepares a Grader. Its errors mean nothing can be
// graded: a missing toolchain, an unknown exercise, an unreadable TestsDir,
// a machine whose sandbox is weaker than opts.Sandbox asks (ErrSandbox),
// a machine that cannot build the lab (sandbox.ErrSetup).
func New(opts Options) (*Grader, error) {
	if opts.Lab == nil {
		return nil, errors.New("grader: no lab given")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Budget <= 0 {
		opts.Budget = budgetTimeouts * opts.Timeout
	}
	if opts.Budget < opts.Timeout {
		return nil, fmt.Errorf("grader: the budget of all runs (%s) is shorter than one run's timeout (%s)", opts.Budget, opts.Timeout)
	}
	if opts.BuildTimeout <= 0 {
		opts.BuildTimeout = DefaultBuildTimeout
	}
	if opts.OutputCap <= 0 {
		opts.OutputCap = sandbox.DefaultOutputCap
	}
	if opts.Memory <= 0 {
		opts.Memory = sandbox.DefaultMemoryLimit
	}
	if opts.Processes <= 0 {
		opts.Processes = sandbox.DefaultProcessLimit
	}
	if opts.Sandbox == "" {
		opts.Sandbox = sandbox.Strict
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.NumCPU()
	}
	g := &Grader{opts: opts, expected: map[string][]expectedTest{}, race: !opts.NoRace}
	var err error
	if g.goBin, err = findGo(opts.GoBin); err != nil {
		return nil, err
	}
	if len(opts.Exercises) == 0 {
		for _, ex := range opts.Lab.Exercises {
			if !ex.Bonus || opts.Bonus {
				g.exercises = append(g.exercises, ex)
			}
		}
	}
	for _, id := range opts.Exercises {
		ex, err := opts.Lab.Exercise(id)
		if err != nil {
			return nil, err
		}
		if ex.Bonus && !opts.Bonus {
			return nil, fmt.Errorf("exercise %s is a bonus exercise, graded only when asked for (course grade --bonus)", id)
		}
		g.exercises = append(g.exercises, ex)
	}
	var private []string
	if opts.TestsDir != "" {
		if g.extra, private, err = readPrivateTests(opts.TestsDir); err != nil {
			return nil, err
		}
		if err := checkPrivatePrefixes(opts.TestsDir, private, opts.Lab); err != nil {
			return nil, err
		}
		if err := checkPrivatePackages(opts.TestsDir, g.extra, opts.Lab.Package+"_test"); err != nil {
			return nil, err
		}
	}
	g.secret = append(opts.Lab.HiddenFileNames(), harnessFile)
	for name := range g.extra {
		g.secret = append(g.secret, name)
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
	rec, err := g.setUp(given)
	if err != nil {
		return nil, err
	}
	g.test2json = rec.Test2JSON
	g.checker = check.NewWith(opts.Lab.Editable[0], opts.Lab.Package, opts.Lab.GoVersion(), given, rec.Exports, rec.CheckHelper)
	g.checker.Sequential = opts.Lab.Sequential
	for _, ex := range opts.Lab.Exercises {
		for _, name := range opts.Lab.PublicTests(ex.ID) {
			g.expected[ex.ID] = append(g.expected[ex.ID], expectedTest{name, false})
		}
		if opts.Hidden {
			for _, name := range opts.Lab.HiddenTests(ex.ID) {
				g.expected[ex.ID] = append(g.expected[ex.ID], expectedTest{name, true})
			}
		}
		for _, name := range private {
			if strings.HasPrefix(name, ex.TestPrefix) {
				g.expected[ex.ID] = append(g.expected[ex.ID], expectedTest{name, true})
			}
		}
	}
	return g, nil
}

// Isolation says how this grader confines runs of student code.
func (g *Grader) Isolation() report.Isolation { return g.sandbox.Isolation() }

// Race reports whether submissions are built with the race detector.
func (g *Grader) Race() bool { return g.race }

// GoBin returns the go command the grader builds with.
func (g *Grader) GoBin() string { return g.goBin }

// readPrivateTests reads the *_test.go files of dir and the test names in them.
func readPrivateTests(dir string) (map[string][]byte, []string, error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("--tests %s: %s", dir, submission.DescribeFSError(err))
	} else if !fi.IsDir() {
		return nil, nil, fmt.Errorf("--tests %s: not a directory", dir)
	}
	names, err := lab.TestNames(os.DirFS(dir), ".")
	if err != nil {
		return nil, nil, fmt.Errorf("--tests %s: %w", dir, err)
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("--tests %s: no test functions found in *_test.go files", dir)
	}
	files := map[string][]byte{}
	matches, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, nil, err
	}
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			return nil, nil, fmt.Errorf("--tests: %w", err)
		}
		files["private_"+filepath.Base(m)] = data
	}
	return files, names, nil
}

// checkPrivatePrefixes refuses a --tests suite with a test that belongs to
// no exercise: it would never run, and its author would think it had.
func checkPrivatePrefixes(dir string, names []string, l *lab.Lab) error {
	var prefixes []string
	for _, ex := range l.Exercises {
		prefixes = append(prefixes, ex.TestPrefix)
	}
	for _, name := range names {
		if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			return fmt.Errorf("--tests %s: %s belongs to no exercise, so it would never run: a test's name must start with an exercise's prefix (%s)", dir, name, strings.Join(prefixes, ", "))
		}
	}
	return nil
}

// checkPrivatePackages refuses a --tests file that is not in the external
// test package: the grader's harness, there too, could not run its tests,
// and the build would fail for every student.
func checkPrivatePackages(dir string, files map[string][]byte, want string) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		pkg, err := lab.PackageName(files[name])
		if err != nil {
			return fmt.Errorf("--tests %s: %s: %w", dir, strings.TrimPrefix(name, "private_"), err)
		}
		if pkg != want {
			return fmt.Errorf("--tests %s: %s is package %s; a private test must be in package %s, as the lab's tests are", dir, strings.TrimPrefix(name, "private_"), pkg, want)
		}
	}
	return nil
}

func findGo(explicit string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", fmt.Errorf("%w: %s", ErrNoToolchain, explicit)
		}
		return explicit, nil
	}
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", ErrNoToolchain
}

// findTest2JSON asks the go command where its test2json converter is
// (building it into the build cache first if needed).
func findTest2JSON(goBin string) (string, error) {
	cmd := exec.Command(goBin, "tool", "-n", "test2json")
	cmd.Env = goenv.Env(false)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: go tool -n test2json: %v", ErrNoToolchain, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Grade grades one submission. The report says what happened, including a
// rejected file or a failed build; the error is only for the grader's own
// trouble (no temporary directory, a run that could not be confined), which
// makes the grade unknown, and for ctx ending before the grade is known
// (then it is ctx.Err()).
func (g *Grader) Grade(ctx context.Context, sub *submission.Submission) (*report.Report, error) {
	started := time.Now()
	l := g.opts.Lab
	rep := &report.Report{
		Submission: sub.Name,
		Path:       sub.Path,
		Lab:        l.Chapter,
		Isolation:  g.sandbox.Isolation(),
		Race:       g.race,
	}
	editable := l.Editable[0]
	src, ok := sub.Files[editable]
	if !ok {
		return nil, &submission.Error{Path: sub.Path, Reason: "holds no " + editable}
	}

	if !g.opts.SkipPolicy {
		if err := g.checker.Check(src); err != nil {
			var pe *check.Error
			if !errors.As(err, &pe) {
				return nil, fmt.Errorf("grader: %w", err)
			}
			rep.Build = report.Build{OK: false, Output: err.Error(), Rejected: true}
			reason := "rejected before building"
			if len(pe.Violations) > 0 {
				reason += ": " + pe.Violations[0].In(pe.File)
			}
			g.failAll(rep, reason)
			return g.finish(rep, started), nil
		}
	}

	work, err := os.MkdirTemp(g.opts.TempDir, "course-grade-*")
	if err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}
	defer os.RemoveAll(work)
	srcDir := filepath.Join(work, "src")
	if err := l.WriteGradingDirFor(srcDir, src, g.opts.Hidden, g.graded()); err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}
	for name, data := range g.extra {
		if err := os.WriteFile(filepath.Join(srcDir, name), data, 0o644); err != nil {
			return nil, fmt.Errorf("grader: %w", err)
		}
	}
	harness, err := harnessSource(l.Package, g.allTests())
	if err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}
	if err := os.WriteFile(filepath.Join(srcDir, harnessFile), harness, 0o644); err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}

	bin := filepath.Join(work, "bin", "lab.test")
	rep.Build = g.build(ctx, work, srcDir, bin)
	if err := ctx.Err(); err != nil {
		return nil, err // cancelled: the build's failure says nothing about the submission
	}
	if !rep.Build.OK {
		g.failAll(rep, "the submission does not build")
		return g.finish(rep, started), nil
	}
	// The runs happen as another user, or behind a user namespace: let
	// them run the binary, but not read it (an execute-only binary cannot
	// be read back through /proc either) or anything beside it. The
	// sources, hidden tests included, go now.
	if err := os.RemoveAll(srcDir); err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}
	if err := os.Chmod(bin, 0o111); err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}
	for _, p := range []string{work, filepath.Dir(bin)} {
		if err := os.Chmod(p, 0o711); err != nil {
			return nil, fmt.Errorf("grader: %w", err)
		}
	}
	exReps, err := g.runAll(ctx, work, bin)
	if err != nil {
		return nil, err
	}
	rep.Exercises = exReps
	return g.finish(rep, started), nil
}

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

// failAll fails every exercise for one reason, listing its tests as not run.
func (g *Grader) failAll(rep *report.Report, reason string) {
	for _, ex := range g.exercises {
		er := report.ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points, Reason: reason}
		for _, t := range g.expected[ex.ID] {
			er.Tests = append(er.Tests, report.TestReport{Name: t.name, Status: report.StatusNotRun, Hidden: t.hidden})
		}
		rep.Exercises = append(rep.Exercises, er)
	}
}

// buildEnv is a grading build's environment: the grader's read-only cache,
// or for the course's own code the go command's own (Options.OwnCode).
func (g *Grader) buildEnv(goWork string) []string {
	if g.opts.OwnCode {
		return append(goenv.Env(g.race), "GOTMPDIR="+filepath.Join(goWork, "gotmp"))
	}
	return g.cache.env(goenv.Env(g.race), goWork, false)
}

// buildArgs are the go test -c arguments. No vet, no optimisation, no debug
// information: the binary runs a few quick tests once, so every second of
// compiling and linking saved is most of a submission's grading time (see
// docs/performance.md). -trimpath keeps the grading directory's path out of
// the build, so what does not change between submissions (the tests) comes
// from the build cache although every submission has a directory of its own.
func (g *Grader) buildArgs(bin string) []string {
	args := []string{"test", "-c", "-trimpath", "-vet=off", "-ldflags=-s -w", "-gcflags=-N -l -dwarf=false", "-o", bin}
	if g.race {
		args = append(args, "-race")
	}
	return append(args, ".")
}

func (g *Grader) build(ctx context.Context, work, srcDir, bin string) report.Build {
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return report.Build{Output: err.Error()}
	}
	var kept string
	if g.opts.OwnCode {
		var err error
		if kept, err = g.ownBinary(srcDir); err != nil {
			return report.Build{Output: "keeping the course's own test binaries: " + err.Error()}
		}
		if copyBinary(kept, bin, false) == nil {
			now := time.Now()
			_ = os.Chtimes(kept, now, now)
			return report.Build{OK: true}
		}
	}
	// The go command's own cache and temporary files stay in the build's
	// work directory, which goes with the grade; the shared cache is read.
	goWork := filepath.Join(work, "go")
	if err := g.cache.prepare(goWork); err != nil {
		return report.Build{Output: err.Error()}
	}
	defer os.RemoveAll(goWork)
	res := g.sandbox.Run(ctx, sandbox.Job{
		Path:    g.goBin,
		Args:    g.buildArgs(bin),
		Dir:     srcDir,
		Env:     g.buildEnv(goWork),
		Timeout: g.opts.BuildTimeout,
		Cap:     64 << 10,
	})
	text := g.publicBuildOutput(strings.ReplaceAll(string(res.Output), srcDir+string(filepath.Separator), ""))
	switch {
	case res.StartErr != nil:
		return report.Build{Output: "could not start the go command: " + res.StartErr.Error()}
	case res.TimedOut:
		return report.Build{Output: fmt.Sprintf("the build did not finish in %s\n%s", g.opts.BuildTimeout, text)}
	case res.MemoryExceeded:
		return report.Build{Output: fmt.Sprintf("the compiler ran out of memory (%s) building this file\n%s", humanize.IBytes(uint64(max(sandbox.BuildMemoryLimit, g.opts.Memory))), text)}
	case res.ExitCode != 0:
		return report.Build{Output: text}
	}
	if kept != "" {
		if err := copyBinary(bin, kept, true); err != nil {
			return report.Build{Output: "keeping the course's own test binaries: " + err.Error()}
		}
	}
	return report.Build{OK: true, Output: text, Seconds: res.Duration.Seconds()}
}

// publicBuildOutput drops the compiler's lines about hidden test files and
// the grader's own: a student's file that breaks a hidden test must not
// show its code. A line says how many were left out.
func (g *Grader) publicBuildOutput(text string) string {
	var keep []string
	dropped := 0
	inSecret := false
	for _, line := range strings.SplitAfter(text, "\n") {
		// A compiler message goes on in indented lines ("\thave (...)",
		// "\tother declaration of x"): they belong to the line before.
		if inSecret && (strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " ")) {
			dropped++
			continue
		}
		inSecret = false
		for _, name := range g.secret {
			if strings.Contains(line, name) {
				inSecret = true
				break
			}
		}
		if inSecret {
			dropped++
			continue
		}
		keep = append(keep, line)
	}
	out := strings.Join(keep, "")
	if dropped > 0 {
		out += fmt.Sprintf("(%d more lines about the course's hidden tests are not shown: keep every given name and signature as the handout has it)\n", dropped)
	}
	return out
}

// runState carries what one submission's runs have spent and learned.
type runState struct {
	deadline time.Time // the end of the submission's time budget
	mu       sync.Mutex
	abort    string // when set, every run not yet started fails with this reason
}

func (st *runState) aborted() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.abort
}

func (st *runState) setAbort(reason string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.abort == "" {
		st.abort = reason
	}
}

// runAll runs the tests of every exercise and judges each. An exercise's
// public and hidden tests never share a process, and no hidden run starts
// before every public run has ended: what students see at once (the public
// tests' output) is final before a hidden test runs, so nothing a hidden
// run does, leaves or makes the machine show (the memory its files take,
// the CPU it uses) can reach it.
//
// First all exercises' public tests run in one process. An exercise whose
// tests all passed in a clean run is done. Every other one runs on its
// own, so that a crash, a hang or a failure caused by another exercise
// never decides it. Then the hidden tests, the same way, of the exercises
// whose public tests passed (the others have failed already). Up to
// Parallel runs go at once, each in its own sandbox; all share one time
// budget.
func (g *Grader) runAll(ctx context.Context, work, bin string) ([]report.ExerciseReport, error) {
	st := &runState{deadline: time.Now().Add(g.opts.Budget)}
	n := len(g.exercises)
	public, hidden := make([][]expectedTest, n), make([][]expectedTest, n)
	for i, ex := range g.exercises {
		for _, t := range g.expected[ex.ID] {
			if t.hidden {
				hidden[i] = append(hidden[i], t)
			} else {
				public[i] = append(public[i], t)
			}
		}
	}
	pubParts, hidParts := make([]*report.ExerciseReport, n), make([]*report.ExerciseReport, n)
	var pubTodo, hidTodo []int
	for i, ex := range g.exercises {
		switch {
		case len(g.expected[ex.ID]) == 0:
			part := g.notRun(ex, nil, "the course has no tests for this exercise")
			pubParts[i] = &part
		case len(public[i]) == 0:
			pubParts[i] = &report.ExerciseReport{Passed: true} // only hidden tests: judged by them
		default:
			pubTodo = append(pubTodo, i)
		}
		if len(hidden[i]) > 0 {
			hidTodo = append(hidTodo, i)
		}
	}
	publicPassed := func(i int) bool { return pubParts[i] != nil && pubParts[i].Passed }

	// Stage 1: the public tests of every exercise, in one run.
	pubShared, err := g.sharedRun(ctx, st, work, bin, "public", pubTodo, public)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var alone []int
	for _, i := range pubTodo {
		if r, ok := pubShared[i]; ok {
			pubParts[i] = r
		} else {
			alone = append(alone, i)
		}
	}
	// Stage 2: the public tests of the undecided exercises, each alone.
	if err := g.aloneRuns(ctx, st, work, bin, "public", alone, public, pubParts); err != nil {
		return nil, err
	}
	// Stage 3: the hidden tests of the exercises whose public tests passed,
	// once every public run has ended.
	var stillHidden []int
	for _, i := range hidTodo {
		// An exercise scored per test earns its hidden tests' points even
		// when a public test failed.
		if publicPassed(i) || g.exercises[i].PerTest() {
			stillHidden = append(stillHidden, i)
		} else {
			part := g.notRun(g.exercises[i], hidden[i], "") // failed already: its public reason stands
			hidParts[i] = &part
		}
	}
	hidShared, err := g.sharedRun(ctx, st, work, bin, "hidden", stillHidden, hidden)
	if err != nil {
		return nil, err
	}
	alone = nil
	for _, i := range stillHidden {
		if r, ok := hidShared[i]; ok {
			hidParts[i] = r
		} else {
			alone = append(alone, i)
		}
	}
	if err := g.aloneRuns(ctx, st, work, bin, "hidden", alone, hidden, hidParts); err != nil {
		return nil, err
	}

	out := make([]report.ExerciseReport, n)
	for i, ex := range g.exercises {
		parts := []report.ExerciseReport{*pubParts[i]}
		if hidParts[i] != nil {
			parts = append(parts, *hidParts[i])
		}
		out[i] = combine(ex, parts)
	}
	return out, nil
}

// sharedRun runs the group's tests of the exercises idx in one process and
// returns the verdicts it can give: a pass for each exercise whose tests
// all passed in a clean run, or a failure for all when the package's
// initialisation hangs. The others are left to run alone.
func (g *Grader) sharedRun(ctx context.Context, st *runState, work, bin, group string, idx []int, testsOf [][]expectedTest) (map[int]*report.ExerciseReport, error) {
	out := map[int]*report.ExerciseReport{}
	if len(idx) < 2 {
		return out, nil // one exercise runs alone anyway
	}
	var all []expectedTest
	for _, i := range idx {
		all = append(all, testsOf[i]...)
	}
	r, err := g.runTests(ctx, st, work, bin, group+"-all", all)
	if err != nil {
		return nil, err
	}
	for _, i := range idx {
		ex := g.exercises[i]
		part := report.ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points}
		switch {
		case r.initFailed() != "":
			part = g.notRun(ex, testsOf[i], st.aborted())
		case judgeShared(&part, r, testsOf[i]):
		default:
			continue
		}
		out[i] = &part
	}
	return out, nil
}

// aloneRuns runs the group's tests of each exercise of idx in a process of
// its own, Parallel at a time, and puts each verdict in parts.
func (g *Grader) aloneRuns(ctx context.Context, st *runState, work, bin, group string, idx []int, testsOf [][]expectedTest, parts []*report.ExerciseReport) error {
	errs := make([]error, len(idx))
	sem := make(chan struct{}, g.opts.Parallel)
	var wg sync.WaitGroup
	for k, i := range idx {
		ex := g.exercises[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			part := report.ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points}
			if reason := st.aborted(); reason != "" {
				part = g.notRun(ex, testsOf[i], reason)
			} else if r, err := g.runTests(ctx, st, work, bin, strings.ReplaceAll(ex.ID, ".", "_")+"-"+group, testsOf[i]); err != nil {
				errs[k] = err
				return
			} else {
				part.Seconds = r.out.Duration.Seconds()
				judge(&part, r)
				if r.initFailed() != "" {
					part.Reason = st.aborted()
				}
			}
			parts[i] = &part
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err // cancelled: the runs were killed, not judged
	}
	return errors.Join(errs...)
}

// notRun is a group that was not run; with a reason, it fails.
func (g *Grader) notRun(ex lab.Exercise, tests []expectedTest, reason string) report.ExerciseReport {
	er := report.ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points, Reason: reason, Passed: reason == ""}
	for _, t := range tests {
		er.Tests = append(er.Tests, report.TestReport{Name: t.name, Status: report.StatusNotRun, Hidden: t.hidden})
	}
	return er
}

// combine makes one exercise's report of its public and hidden parts.
func combine(ex lab.Exercise, parts []report.ExerciseReport) report.ExerciseReport {
	er := report.ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points, Passed: true}
	var reasons []string
	allCounts := true
	for i, part := range parts {
		er.Tests = append(er.Tests, part.Tests...)
		er.Seconds += part.Seconds
		er.Output += part.Output
		if !part.Passed {
			er.Passed = false
			reason := part.Reason
			if i > 0 && !isCountReason(reason) {
				// What follows the first colon can come from the hidden
				// run (a race in a hidden test, names student code
				// printed): students see the reason at once, the hidden
				// tests' details only once grades are published.
				er.HiddenReason = reason
				reason, _, _ = strings.Cut(reason, ":")
				reason = "hidden tests: " + reason
			}
			reasons = append(reasons, reason)
			allCounts = allCounts && isCountReason(part.Reason)
		}
	}
	switch {
	case er.Passed:
		er.Points = float64(er.MaxPoints)
	case allCounts:
		er.Reason = countReason(er.Tests)
	default:
		er.Reason = strings.Join(reasons, "; ")
	}
	return er
}

// countReason is the reason of an exercise whose tests ran and some
// failed: "12 of 18 tests failed, 6 not run" (hidden tests are not run once
// a public one fails).
func countReason(tests []report.TestReport) string {
	notRun := report.CountStatus(tests, report.StatusNotRun)
	failed := len(tests) - report.CountStatus(tests, report.StatusPass) - notRun
	s := fmt.Sprintf("%d of %d tests failed", failed, len(tests))
	if notRun > 0 {
		s += fmt.Sprintf(", %d not run", notRun)
	}
	return s
}

var countReasonRE = regexp.MustCompile(`^\d+ of \d+ tests failed(, \d+ not run)?$`)

// isCountReason reports whether reason only counts failed tests, which
// every format shows test by test anyway.
func isCountReason(reason string) bool { return countReasonRE.MatchString(reason) }

// runTests runs the binary once for exactly tests, in the sandbox, and
// collects what the run did. A run left with less than a second of the
// submission's budget does not start: it comes back timed out.
func (g *Grader) runTests(ctx context.Context, st *runState, work, bin, label string, tests []expectedTest) (*runResult, error) {
	r := &runResult{tests: tests, cap: g.opts.OutputCap, lim: g.limits(), sum: testjson.NewSummary()}
	remaining := time.Until(st.deadline).Truncate(time.Millisecond)
	if remaining < time.Second {
		reason := fmt.Sprintf("not run: the submission's runs used up their time budget of %s", g.opts.Budget)
		st.setAbort(reason)
		r.timeout, r.out, r.notStarted = max(remaining, 0), sandbox.Outcome{TimedOut: true, ExitCode: -1}, reason
		return r, nil
	}
	r.timeout = min(g.opts.Timeout, remaining)
	// The report travels on fd 3, a file only the grader and its TestMain
	// hold; the nonce, given on fd 4 with the tests to run, proves the
	// report was written by this very run.
	report, err := openReport(filepath.Join(work, "report-"+label))
	if err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}
	defer report.Close()
	names := make([]string, len(tests))
	for i, t := range tests {
		names[i] = t.name
	}
	nonce := newNonce()
	input, err := harnessInput(work, nonce, names)
	if err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}
	defer input.Close()
	started := time.Now()
	if f := g.opts.observeRun; f != nil {
		defer func() { f(label, started, time.Now()) }()
	}
	r.out = g.sandbox.Run(ctx, sandbox.Job{
		Path: bin,
		Args: []string{
			"-test.run=^" + harnessTest + "$",
			"-test.v=test2json",
			"-test.paniconexit0",
			"-test.count=1",
			"-test.timeout=" + r.timeout.String(),
		},
		Env:        runEnv,
		Timeout:    r.timeout + runGrace,
		Cap:        g.opts.OutputCap,
		Extra:      []*os.File{report, input},
		Untrusted:  true,
		PrivateDir: filepath.Join(work, "run-"+label),
	})
	if r.out.StartErr != nil {
		return nil, fmt.Errorf("grader: run %s: %w", label, r.out.StartErr)
	}
	// File names in test output are relative to the grading directory, as
	// the build's are: its temporary path is noise to a reader.
	r.out.Output = bytes.ReplaceAll(r.out.Output, []byte(filepath.Join(work, "src")+string(filepath.Separator)), nil)
	if bytes.Count(r.out.Output, []byte("\n")) > maxOutputLines {
		r.tooManyLines = true
	} else if r.sum, err = g.events(ctx, r.out.Output); err != nil {
		return nil, err
	}
	r.rep = readHarnessReport(readReport(report, maxReportBytes), nonce)
	if reason := r.initFailed(); reason != "" {
		// Not one test started before the run hung or ran out of memory
		// or processes: the package's initialisation did, and would do
		// the same in every other run.
		st.setAbort(reason)
	}
	return r, nil
}

// runEnv is the environment of every run of student code. One P and no
// asynchronous preemption: goroutines then change only where the code calls
// into the scheduler, never between the two words of an interface or the
// three of a slice, so even a data race the detector misses cannot tear a
// value and reach memory (docs/grading.md, "Data races"). The Go runtime
// reads these from its own start-up stack, not from /proc.
//
// No GORACE: the race detector reads it from /proc/self/environ, which a
// process whose binary it may not read (ours is execute-only) cannot open;
// it runs with its defaults. A race it sees is printed before the racing
// access completes, and the run fails on that report.
var runEnv = []string{"GOTRACEBACK=single", "GOMAXPROCS=1", "GODEBUG=asyncpreemptoff=1"}

// openReport makes the file a run's report goes to, open for reading and
// writing, and takes every permission from it: the run inherits it open as
// fd 3, and nobody, not even a run under the grader's own uid, can open it
// again (through /proc/self/fd/3, say).
func openReport(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// maxReportBytes bounds what the grader reads of a run's report: a line per
// test, a few hundred tests. More than that is not the harness's.
const maxReportBytes = 1 << 20

// readReport reads f from its start, at most limit+1 bytes: a report longer
// than limit comes back too long, and readHarnessReport refuses it.
func readReport(f *os.File, limit int64) []byte {
	data, _ := io.ReadAll(io.NewSectionReader(f, 0, limit+1))
	return data
}

// runGrace is how long after -test.timeout the grader kills a run: the test
// binary's own timeout fires first and says which test hung.
const runGrace = 5 * time.Second

func (g *Grader) limits() limits {
	iso := g.sandbox.Isolation()
	return limits{memory: iso.MemoryLimit, processes: iso.ProcessLimit}
}

// events converts a run's framed output (-test.v=test2json) to events with
// the toolchain's own converter, and sums them up per test.
func (g *Grader) events(ctx context.Context, output []byte) (*testjson.Summary, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.test2json)
	cmd.Stdin = bytes.NewReader(output)
	converted, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("grader: test2json: %w", err)
	}
	// The tests run as the harness's subtests: "TestCourseGrader/TestX"
	// is test TestX. What the harness itself prints between them is the
	// run's own output.
	sum := testjson.NewSummary()
	d := testjson.NewDecoder(bytes.NewReader(converted))
	for {
		ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			return sum, nil
		}
		if err != nil {
			return nil, fmt.Errorf("grader: reading test events: %w", err)
		}
		if ev.Test == harnessTest {
			if ev.Action != testjson.ActionOutput {
				continue
			}
			ev.Test = ""
		}
		ev.Test = strings.TrimPrefix(ev.Test, harnessTest+"/")
		sum.Add(ev)
	}
}

func newNonce() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return hex.EncodeToString(b)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// allTests is every test this grader may run: the harness must name them.
func (g *Grader) allTests() []string {
	var out []string
	for _, ex := range g.exercises {
		for _, t := range g.expected[ex.ID] {
			out = append(out, t.name)
		}
	}
	return out
}

// exerciseIDs is the ids of the exercises this grader grades.
func (g *Grader) exerciseIDs() []string {
	ids := make([]string, len(g.exercises))
	for i, ex := range g.exercises {
		ids[i] = ex.ID
	}
	return ids
}

// graded is the exercises this grader grades, when they are not all of
// the lab's (a --lab selection, or all but the bonus ones): the grading
// directory then holds only the test files they need. Nil with private
// tests (--tests), which may use any test file.
func (g *Grader) graded() []string {
	if len(g.exercises) == len(g.opts.Lab.Exercises) || len(g.extra) > 0 {
		return nil
	}
	return g.exerciseIDs()
}
