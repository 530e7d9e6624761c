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
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/testjson"
)

// Defaults for Options.
const (
	DefaultTimeout      = 60 * time.Second
	DefaultBuildTimeout = 5 * time.Minute
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
	// Timeout bounds one exercise's run (wall clock); DefaultTimeout if zero.
	Timeout time.Duration
	// BuildTimeout bounds the build; DefaultBuildTimeout if zero.
	BuildTimeout time.Duration
	// OutputCap is how many bytes of a run's output are kept; DefaultOutputCap if zero.
	OutputCap int
	// GoBin is the go command; found on PATH (or in GOROOT) if empty.
	GoBin string
	// SkipPolicy turns off the static check of the student file. Only for
	// testing the run-time defences; never for real submissions.
	SkipPolicy bool
	// NoSandbox runs student code in a process group only, without
	// namespaces or a user change.
	NoSandbox bool
	// Race builds with the race detector, so a data race fails the test it
	// happens in. It needs cgo and a C compiler, and makes builds slower.
	Race bool
	// TempDir is where private work directories are made; os.TempDir() if empty.
	TempDir string
}

// Grader grades submissions of one lab. It is safe for concurrent use.
type Grader struct {
	opts      Options
	goBin     string
	test2json string // the toolchain's converter, run directly: `go tool` costs a go command start each time
	exercises []lab.Exercise
	expected  map[string][]expectedTest // exercise id -> its tests
	extra     map[string][]byte         // private test files: name -> content
	sandbox   *sandbox                  // confines student code
	trusted   *sandbox                  // process groups only, for the toolchain
}

type expectedTest struct {
	name   string
	hidden bool
}

// New checks opts and prepares a Grader. Its errors mean nothing can be
// graded: a missing toolchain, an unknown exercise, an unreadable TestsDir.
func New(opts Options) (*Grader, error) {
	if opts.Lab == nil {
		return nil, errors.New("grader: no lab given")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.BuildTimeout <= 0 {
		opts.BuildTimeout = DefaultBuildTimeout
	}
	if opts.OutputCap <= 0 {
		opts.OutputCap = DefaultOutputCap
	}
	g := &Grader{opts: opts, expected: map[string][]expectedTest{}, sandbox: newSandbox(!opts.NoSandbox), trusted: newSandbox(false)}
	var err error
	if g.goBin, err = findGo(opts.GoBin); err != nil {
		return nil, err
	}
	if g.test2json, err = findTest2JSON(g.goBin); err != nil {
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
	}
	if err := g.checkReachable(); err != nil {
		return nil, err
	}
	if err := g.checkSetup(); err != nil {
		return nil, err
	}
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

// GoBin returns the go command the grader builds with.
func (g *Grader) GoBin() string { return g.goBin }

// readPrivateTests reads the *_test.go files of dir and the test names in them.
func readPrivateTests(dir string) (map[string][]byte, []string, error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("--tests %s: %s", dir, describeFSError(err))
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
	cmd.Env = buildEnv(false)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: go tool -n test2json: %v", ErrNoToolchain, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Grade grades one submission. The report says what happened, including a
// rejected file or a failed build; the error is only for the grader's own
// trouble (no temporary directory, say), which makes the grade unknown, and
// for ctx ending before the grade is known (then it is ctx.Err()).
func (g *Grader) Grade(ctx context.Context, sub *Submission) (*Report, error) {
	started := time.Now()
	l := g.opts.Lab
	rep := &Report{
		Submission: sub.Name,
		Path:       sub.Path,
		Lab:        l.Chapter,
		Isolation:  Isolation{Name: "not run"},
	}
	editable := l.Editable[0]
	src, ok := sub.Files[editable]
	if !ok {
		return nil, &SubmissionError{Path: sub.Path, Reason: "holds no " + editable}
	}

	if !g.opts.SkipPolicy {
		if err := CheckPolicy(editable, src, l.Package); err != nil {
			rep.Build = Build{OK: false, Output: err.Error(), Rejected: true}
			reason := "rejected before building"
			var pe *PolicyError
			if errors.As(err, &pe) && len(pe.Violations) > 0 {
				v := pe.Violations[0]
				reason += fmt.Sprintf(": %s:%d: %s", pe.File, v.Line, v.Problem)
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
	if err := l.WriteGradingDir(srcDir, src, g.opts.Hidden); err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}
	for name, data := range g.extra {
		if err := os.WriteFile(filepath.Join(srcDir, name), data, 0o644); err != nil {
			return nil, fmt.Errorf("grader: %w", err)
		}
	}
	mainTest := fmt.Sprintf(graderMainTest, l.Package)
	if err := os.WriteFile(filepath.Join(srcDir, graderMainFile), []byte(mainTest), 0o644); err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}

	if !g.opts.SkipPolicy {
		if err := CheckTestReferences(srcDir, editable); err != nil {
			var pe *PolicyError
			if !errors.As(err, &pe) {
				return nil, fmt.Errorf("grader: %w", err)
			}
			rep.Build = Build{OK: false, Output: err.Error(), Rejected: true}
			v := pe.Violations[0]
			g.failAll(rep, fmt.Sprintf("rejected before building: %s:%d: %s", pe.File, v.Line, v.Problem))
			return g.finish(rep, started), nil
		}
	}

	bin := filepath.Join(work, "bin", "lab.test")
	rep.Build = g.build(ctx, srcDir, bin)
	if err := ctx.Err(); err != nil {
		return nil, err // cancelled: the build's failure says nothing about the submission
	}
	if !rep.Build.OK {
		g.failAll(rep, "the submission does not build")
		return g.finish(rep, started), nil
	}
	// The runs may happen as another user: let it run the binary, but not
	// read it or anything beside it. The sources, hidden tests included, go
	// now; an execute-only binary cannot be read back through /proc either.
	if err := os.RemoveAll(srcDir); err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}
	for _, p := range []string{work, filepath.Dir(bin), bin} {
		if err := os.Chmod(p, 0o711); err != nil {
			return nil, fmt.Errorf("grader: %w", err)
		}
	}
	for _, ex := range g.exercises {
		exRep, iso, err := g.runExercise(ctx, work, bin, ex)
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err // cancelled: the run was killed, not judged
		}
		rep.Isolation = iso
		rep.Exercises = append(rep.Exercises, exRep)
	}
	return g.finish(rep, started), nil
}

func (g *Grader) finish(rep *Report, started time.Time) *Report {
	for _, ex := range rep.Exercises {
		rep.Score += ex.Points
		rep.MaxScore += ex.MaxPoints
	}
	rep.Seconds = time.Since(started).Seconds()
	return rep
}

// failAll fails every exercise for one reason, listing its tests as not run.
func (g *Grader) failAll(rep *Report, reason string) {
	for _, ex := range g.exercises {
		er := ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points, Reason: reason}
		for _, t := range g.expected[ex.ID] {
			er.Tests = append(er.Tests, TestReport{Name: t.name, Status: StatusNotRun, Hidden: t.hidden})
		}
		rep.Exercises = append(rep.Exercises, er)
	}
}

// buildEnv is the toolchain's environment: this machine's, with the module
// proxy and cgo off and the local toolchain forced, so a build can neither
// download anything nor compile C.
func buildEnv(race bool) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "CGO_ENABLED", "GOWORK", "GOOS", "GOARCH", "GOENV":
			continue
		}
		env = append(env, kv)
	}
	cgo := "CGO_ENABLED=0"
	if race {
		cgo = "CGO_ENABLED=1" // the race detector's runtime needs cgo; the policy still forbids import "C"
	}
	return append(env, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local", cgo, "GOWORK=off", "GOENV=off")
}

// buildArgs are the go test -c arguments. No vet, no optimisation, no debug
// information: the binary runs a few quick tests once, so every second of
// compiling and linking saved is most of a submission's grading time (see
// docs/performance.md).
func (g *Grader) buildArgs(bin string) []string {
	args := []string{"test", "-c", "-vet=off", "-ldflags=-s -w", "-gcflags=-N -l -dwarf=false", "-o", bin}
	if g.opts.Race {
		args = append(args, "-race")
	}
	return append(args, ".")
}

func (g *Grader) build(ctx context.Context, srcDir, bin string) Build {
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return Build{Output: err.Error()}
	}
	out := runJob(ctx, job{
		Path:    g.goBin,
		Args:    g.buildArgs(bin),
		Dir:     srcDir,
		Env:     buildEnv(g.opts.Race),
		Timeout: g.opts.BuildTimeout,
		Cap:     64 << 10,
	}, g.trusted)
	text := strings.ReplaceAll(string(out.Output), srcDir+string(filepath.Separator), "")
	switch {
	case out.StartErr != nil:
		return Build{Output: "could not start the go command: " + out.StartErr.Error()}
	case out.TimedOut:
		return Build{Output: fmt.Sprintf("the build did not finish in %s\n%s", g.opts.BuildTimeout, text)}
	case out.ExitCode != 0:
		return Build{Output: text}
	}
	return Build{OK: true, Output: text, Seconds: out.Duration.Seconds()}
}

// runExercise runs the test binary for one exercise and judges it. The
// public and the hidden tests run in two separate processes: output that
// student code prints while a hidden test runs could otherwise be credited
// to a public test running beside it, and shown to the student with it.
func (g *Grader) runExercise(ctx context.Context, work, bin string, ex lab.Exercise) (ExerciseReport, Isolation, error) {
	var public, hidden []expectedTest
	for _, t := range g.expected[ex.ID] {
		if t.hidden {
			hidden = append(hidden, t)
		} else {
			public = append(public, t)
		}
	}
	er := ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points}
	var iso Isolation
	var parts []ExerciseReport
	for _, group := range []struct {
		name  string
		tests []expectedTest
	}{{"public", public}, {"hidden", hidden}} {
		if len(group.tests) == 0 && group.name == "hidden" {
			continue
		}
		part, partIso, err := g.runGroup(ctx, work, bin, ex, group.name, group.tests)
		if err != nil {
			return er, partIso, err
		}
		iso = partIso
		parts = append(parts, part)
	}
	er.Passed = true
	var reasons []string
	allCounts := true
	for _, part := range parts {
		er.Tests = append(er.Tests, part.Tests...)
		er.Seconds += part.Seconds
		er.Output += part.Output
		if !part.Passed {
			er.Passed = false
			reasons = append(reasons, part.Reason)
			allCounts = allCounts && strings.HasSuffix(part.Reason, "tests failed")
		}
	}
	switch {
	case er.Passed:
		er.Points = er.MaxPoints
	case allCounts:
		er.Reason = fmt.Sprintf("%d of %d tests failed", len(er.Tests)-countStatus(er.Tests, StatusPass), len(er.Tests))
	default:
		er.Reason = strings.Join(reasons, "; ")
	}
	return er, iso, nil
}

// runGroup runs the binary once for exactly the tests of one group and
// judges that run.
func (g *Grader) runGroup(ctx context.Context, work, bin string, ex lab.Exercise, group string, tests []expectedTest) (ExerciseReport, Isolation, error) {
	er := ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points}
	runDir := filepath.Join(work, "run-"+strings.ReplaceAll(ex.ID, ".", "_")+"-"+group)
	tmp := filepath.Join(runDir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return er, Isolation{}, fmt.Errorf("grader: %w", err)
	}
	if uid := g.sandbox.runUID(); uid >= 0 {
		for _, d := range []string{runDir, tmp} {
			if err := os.Chown(d, uid, uid); err != nil {
				return er, Isolation{}, fmt.Errorf("grader: %w", err)
			}
		}
	}
	// The report travels on fd 3, a file only the grader and its TestMain
	// hold; the nonce proves the report was written by this very run.
	reportPath := filepath.Join(work, "report-"+ex.ID+"-"+group)
	report, err := os.OpenFile(reportPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return er, Isolation{}, fmt.Errorf("grader: %w", err)
	}
	defer report.Close()
	// Exactly the group's tests; an exercise without public tests still
	// runs (nothing), so that "no tests" is judged like everything else.
	pattern := "^" + ex.TestPrefix
	if len(tests) > 0 {
		names := make([]string, len(tests))
		for i, t := range tests {
			names[i] = regexp.QuoteMeta(t.name)
		}
		pattern = "^(" + strings.Join(names, "|") + ")$"
	}
	nonce := newNonce()
	timeout := g.opts.Timeout
	out := runJob(ctx, job{
		Path: bin,
		Args: []string{
			"-test.run=" + pattern,
			"-test.v=test2json",
			"-test.paniconexit0",
			"-test.count=1",
			"-test.timeout=" + timeout.String(),
		},
		Dir:     runDir,
		Env:     []string{"HOME=" + runDir, "TMPDIR=" + tmp, "GOTRACEBACK=single", nonceEnv + "=" + nonce},
		Timeout: timeout + 5*time.Second, // -test.timeout fires first and says which test hung
		Cap:     g.opts.OutputCap,
		Extra:   []*os.File{report},
	}, g.sandbox)
	if out.StartErr != nil {
		return er, out.Isolation, fmt.Errorf("grader: cannot run the test binary: %w", out.StartErr)
	}
	// File names in test output are relative to the grading directory, as
	// the build's are: its temporary path is noise to a reader.
	out.Output = bytes.ReplaceAll(out.Output, []byte(filepath.Join(work, "src")+string(filepath.Separator)), nil)
	er.Seconds = out.Duration.Seconds()
	sum, err := g.events(ctx, out.Output)
	if err != nil {
		return er, out.Isolation, err
	}
	reported, _ := os.ReadFile(reportPath)
	judge(&er, tests, sum, out, checkReport(reported, nonce), timeout, g.opts.OutputCap)
	return er, out.Isolation, nil
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
	sum, err := testjson.Summarize(bytes.NewReader(converted))
	if err != nil {
		return nil, fmt.Errorf("grader: reading test events: %w", err)
	}
	return sum, nil
}

const (
	nonceEnv       = "COURSE_GRADER_NONCE"
	graderMainFile = "zz_course_grader_main_test.go"
	// graderMainTest is the grader's own TestMain. It writes the result of
	// m.Run, with the run's nonce, to fd 3. Student code may not import os
	// (see CheckPolicy), so it can neither read the nonce nor write fd 3.
	graderMainTest = `// Code generated by course grade. DO NOT EDIT.

package %s

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	nonce := os.Getenv("` + nonceEnv + `")
	os.Unsetenv("` + nonceEnv + `")
	code := m.Run()
	if f := os.NewFile(3, "grader-report"); f != nil {
		fmt.Fprintf(f, "%%s %%d\n", nonce, code)
		f.Close()
	}
	os.Exit(code)
}
`
)

func newNonce() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return hex.EncodeToString(b)
}

// runReport is what the grader's TestMain said, if it said anything.
type runReport struct {
	ok   bool // a report with the right nonce was there
	code int  // m.Run's result
}

func checkReport(data []byte, nonce string) runReport {
	fields := strings.Fields(string(data))
	if len(fields) != 2 || fields[0] != nonce {
		return runReport{}
	}
	code, err := strconv.Atoi(fields[1])
	if err != nil {
		return runReport{}
	}
	return runReport{ok: true, code: code}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
