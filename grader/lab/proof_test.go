package lab_test

// The course's own proof: what `course practice` makes is a module that
// builds and runs offline, the stub fails every test, and the reference
// solution passes every public and hidden test, also under the race
// detector. These tests run the real go command, so -short skips them.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/internal/offline"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/grader/testjson"
	"github.com/coursekit/course/labs"
)

// goResult is what one run of the go command did.
type goResult struct {
	code           int
	stdout, stderr string
}

// tail returns the end of the run's output, enough to see why it failed.
func (r goResult) tail() string {
	s := r.stdout + r.stderr
	if len(s) > 6000 {
		s = "…" + s[len(s)-6000:]
	}
	return s
}

// goTool finds the go command that is running these tests.
func goTool(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the proof, which runs the go command")
	}
	exe := "go"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	// go test puts its own GOROOT/bin first on PATH; GOROOT is the fallback.
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", exe)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no go command on PATH nor at %s", p)
	}
	return p
}

// runGo runs the go command in dir as a student offline would: no proxy,
// no workspace file, no toolchain download. The build cache is shared.
func runGo(t *testing.T, dir string, args ...string) goResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool(t), args...)
	cmd.Dir = dir
	offline.Modules(t)
	cmd.Env = offline.Env()
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := goResult{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("go %s in %s: %v", strings.Join(args, " "), dir, err)
	}
	return r
}

func lab10(t *testing.T) *lab.Lab {
	t.Helper()
	c, err := lab.Load()
	require.NoError(t, err)
	l, err := c.Lookup("10")
	require.NoError(t, err)
	return l
}

// eachLab runs proof for every lab of the course, each in a parallel
// subtest named after its chapter: every lab gets the same proof, a new
// one included.
func eachLab(t *testing.T, proof func(t *testing.T, l *lab.Lab)) {
	t.Helper()
	goTool(t)
	t.Parallel()
	c, err := lab.Load()
	require.NoError(t, err)
	require.NotEmpty(t, c.Labs())
	for _, l := range c.Labs() {
		t.Run("lab "+l.Chapter, func(t *testing.T) {
			t.Parallel()
			proof(t, l)
		})
	}
}

// allTests returns every test of the lab from its sources, public then
// hidden, and fails t if an exercise has no public test or a test belongs to
// no exercise.
func allTests(t *testing.T, l *lab.Lab, withHidden bool) []string {
	t.Helper()
	var names []string
	for _, e := range l.Exercises {
		pub := l.PublicTests(e.ID)
		if len(pub) == 0 {
			t.Errorf("exercise %s has no public test (no func %s… in labs/%s/*_test.go)", e.ID, e.TestPrefix, l.Slug)
		}
		names = append(names, pub...)
		if withHidden {
			names = append(names, l.HiddenTests(e.ID)...)
		}
	}
	if u := l.UngroupedTests(); len(u) > 0 {
		t.Errorf("tests that belong to no exercise, so no grade counts them: %v", u)
	}
	return names
}

// topLevel matches the result line of a top-level test in go test's output.
var topLevel = regexp.MustCompile(`(?m)^--- (?:PASS|FAIL|SKIP): (\S+)`)

func TestProofPracticeWorkspaceRunsEachExerciseOffline(t *testing.T) {
	eachLab(t, proofPracticeWorkspaceRunsEachExerciseOffline)
}

func proofPracticeWorkspaceRunsEachExerciseOffline(t *testing.T, l *lab.Lab) {
	ws := filepath.Join(t.TempDir(), "mylab")
	require.NoError(t, l.WriteWorkspace(ws))

	if r := runGo(t, ws, "vet", "./..."); r.code != 0 {
		t.Fatalf("go vet in a fresh workspace: exit %d\n%s", r.code, r.tail())
	}
	for _, e := range l.Exercises {
		n := strings.TrimPrefix(e.ID, l.Chapter+".")
		run := "Lab" + l.Chapter + "_" + n
		r := runGo(t, ws, "test", "-run", run)
		out := r.stdout + r.stderr
		if strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]") {
			t.Errorf("go test -run %s: the stub does not build:\n%s", run, r.tail())
			continue
		}
		if r.code != 1 {
			t.Errorf("go test -run %s on the stub: exit %d, want 1 (tests failing)\n%s", run, r.code, r.tail())
		}
		ran := topLevel.FindAllStringSubmatch(out, -1)
		if len(ran) == 0 {
			t.Errorf("go test -run %s on the stub ran no test\n%s", run, r.tail())
		}
		for _, m := range ran {
			if !strings.HasPrefix(m[1], e.TestPrefix) {
				t.Errorf("go test -run %s also ran %s, which is not exercise %s's", run, m[1], e.ID)
			}
		}
	}
}

func TestProofStubFailsEveryTest(t *testing.T) {
	eachLab(t, proofStubFailsEveryTest)
}

func proofStubFailsEveryTest(t *testing.T, l *lab.Lab) {
	// The grading directory with the stub is the practice workspace plus
	// the hidden tests, so one run covers both.
	dir := filepath.Join(t.TempDir(), "stub")
	require.NoError(t, l.WriteGradingDir(dir, nil, true))
	r := runGo(t, dir, "test", "-json", "-count=1")
	s, err := testjson.Summarize(strings.NewReader(r.stdout))
	require.NoError(t, err)
	require.Empty(t, s.BuildFailed, "the stub must build\n%s", r.tail())
	assert.Equal(t, 1, r.code, "go test exit status on the stub\n%s", r.tail())

	var passed, notRun []string
	names := allTests(t, l, true)
	for _, name := range names {
		res, ok := s.Test(name)
		switch {
		case !ok || res.Runs == 0:
			notRun = append(notRun, name)
		case res.Status != testjson.ActionFail:
			passed = append(passed, name+" ("+string(res.Status)+")")
		}
	}
	assert.Empty(t, passed, "tests that do not fail on the stub assert nothing")
	assert.Empty(t, notRun, "tests from the sources that did not run")
	for _, res := range s.Tests {
		if !slices.Contains(names, res.Name) {
			t.Errorf("%s ran but is not among the tests found in the sources", res.Name)
		}
	}
}

// TestProofSolutionIsFinished: the reference solution neither returns the
// stub's error nor keeps its helper. That it passes every public and hidden
// test, under the race detector, as graded, is TestSelfcheck's to prove
// (grader/selfcheck), once: grading it here again would prove the same.
func TestProofSolutionIsFinished(t *testing.T) {
	eachLab(t, func(t *testing.T, l *lab.Lab) {
		sol := releasetest.Solution(t, l) // skips in a student release, which has none
		if bytes.Contains(sol, []byte("ErrNotImplemented")) {
			t.Errorf("solutions/%s/%s mentions ErrNotImplemented, the stub's error: a finished reference solution neither returns it nor keeps the stub's helper that does (remove it, then refresh the mutants)", l.Slug, l.Editable[0])
		}
	})
}

// TestProofTestNamesNeverClashWithAStudentsNames declares, beside the
// reference solution, every package-level name the lab's public and hidden
// test files declare (and TestMain, the grader's own): the tests live in
// the external test package (package session_test for package session), so
// the file still builds and every test passes. A student can name a helper
// as they like.
func TestProofTestNamesNeverClashWithAStudentsNames(t *testing.T) {
	eachLab(t, proofTestNamesNeverClashWithAStudentsNames)
}

func proofTestNamesNeverClashWithAStudentsNames(t *testing.T, l *lab.Lab) {
	sol := releasetest.Solution(t, l) // skips in a student release, which has none
	names, err := l.TestFileNames()
	require.NoError(t, err)
	require.NotEmpty(t, names, "lab %s: TestFileNames found no declaration in the lab's test files", l.Chapter)

	// A name the package itself declares (a given file, or the solution's
	// own helper) cannot be declared twice in it; the test files cannot
	// declare those either without shadowing, so they are left out.
	dir := filepath.Join(t.TempDir(), "names")
	require.NoError(t, l.WriteGradingDir(dir, sol, true))
	inPackage := map[string]bool{}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					inPackage[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							inPackage[n.Name] = true
						}
					case *ast.TypeSpec:
						inPackage[s.Name.Name] = true
					}
				}
			}
		}
	}
	var b strings.Builder
	b.WriteString("\n// Every name the course's tests declare, declared again by the student.\nvar (\n")
	declared := 0
	for _, n := range append(names, "TestMain") {
		if !inPackage[n] {
			fmt.Fprintf(&b, "\t%s = %q\n", n, n)
			declared++
		}
	}
	b.WriteString(")\n")
	require.Greater(t, declared, len(allTests(t, l, true)), "the fixture declares every test's name and more")
	student := append(append([]byte(nil), sol...), b.String()...)
	require.NoError(t, os.WriteFile(filepath.Join(dir, l.Editable[0]), student, 0o644))

	r := runGo(t, dir, "test", "-json", "-count=1")
	s, err := testjson.Summarize(strings.NewReader(r.stdout))
	require.NoError(t, err)
	require.Empty(t, s.BuildFailed, "the solution with the tests' names declared again must build\n%s", r.tail())
	var bad []string
	for _, name := range allTests(t, l, true) {
		if res, ok := s.Test(name); !ok || res.Status != testjson.ActionPass {
			bad = append(bad, name)
		}
	}
	assert.Empty(t, bad, "tests that do not pass once the student file declares the tests' names\n%s", r.tail())
	assert.Equal(t, 0, r.code, r.tail())
}

// TestProofHandoutCommandsSkipTheOptionalExercise follows the handout with
// a student who did the six graded exercises and not the optional 10.7:
// the command it gives for the graded lab passes, and the one for 10.7 is
// where its failures are.
func TestProofHandoutCommandsSkipTheOptionalExercise(t *testing.T) {
	goTool(t)
	t.Parallel()
	l := lab10(t)
	sol := string(releasetest.Solution(t, l)) // skips in a student release, which has none
	handout, err := fs.ReadFile(labs.FS, l.Slug+"/README.md")
	require.NoError(t, err)
	const graded, optional = "go test -skip Lab10_7", "go test -run Lab10_7"
	require.Contains(t, string(handout), graded, "the handout's command for the six graded exercises")
	require.Contains(t, string(handout), optional, "the handout's command for the optional 10.7")

	// The reference solution with 10.7 left as the stub leaves it.
	start := strings.Index(sol, "func RepairUnterminatedTail(")
	require.GreaterOrEqual(t, start, 0)
	end := start + strings.Index(sol[start:], "\n}\n") + len("\n}\n")
	undone := sol[:start] + "func RepairUnterminatedTail(fsys RepairFS, path string) (RepairResult, error) {\n" +
		"\treturn RepairResult{}, fmt.Errorf(\"Lab 10.7: RepairUnterminatedTail: %w\", ErrNotImplemented)\n}\n" + sol[end:]
	ws := filepath.Join(t.TempDir(), "mylab")
	require.NoError(t, l.WriteWorkspace(ws))
	require.NoError(t, os.WriteFile(filepath.Join(ws, l.Editable[0]), []byte(undone), 0o644))

	if r := runGo(t, ws, strings.Fields(graded)[1:]...); r.code != 0 {
		t.Errorf("%s in a workspace where 10.1 to 10.6 are done and 10.7 is not: exit %d, want 0\n%s", graded, r.code, r.tail())
	}
	if r := runGo(t, ws, strings.Fields(optional)[1:]...); r.code != 1 {
		t.Errorf("%s where 10.7 is not done: exit %d, want 1 (its tests fail until it is written)\n%s", optional, r.code, r.tail())
	}
}

func TestProofGradingOneExerciseBuildsWhatItNeeds(t *testing.T) {
	eachLab(t, proofGradingOneExerciseBuildsWhatItNeeds)
}

// proofGradingOneExerciseBuildsWhatItNeeds: a grading of one exercise
// leaves out the test files only other exercises need; what is left, with
// the reference solution and the hidden tests, must still vet (and so
// compile), and must still hold every test of that exercise.
func proofGradingOneExerciseBuildsWhatItNeeds(t *testing.T, l *lab.Lab) {
	if testing.Short() {
		t.Skip("vets a grading directory per exercise")
	}
	sol := releasetest.Solution(t, l)
	all, err := os.ReadDir(writeGrading(t, l, sol, nil))
	require.NoError(t, err)
	for _, e := range l.Exercises {
		dir := writeGrading(t, l, sol, []string{e.ID})
		kept, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Less(t, len(kept), len(all), "grading only %s leaves no test file out", e.ID)
		names, err := lab.TestNames(os.DirFS(dir), ".")
		require.NoError(t, err)
		for _, want := range append(l.PublicTests(e.ID), l.HiddenTests(e.ID)...) {
			assert.Contains(t, names, want, "grading only %s left out one of its tests", e.ID)
		}
		if r := runGo(t, dir, "vet", "."); r.code != 0 {
			t.Errorf("go vet of a grading directory for %s alone: exit %d\n%s", e.ID, r.code, r.tail())
		}
	}
}

// writeGrading writes a grading directory of l, with the hidden tests,
// for the exercises ids (all when nil).
func writeGrading(t *testing.T, l *lab.Lab, src []byte, ids []string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src")
	require.NoError(t, l.WriteGradingDirFor(dir, src, true, ids))
	return dir
}

// headLines returns the first n lines of s.
func headLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…\n")
	}
	return strings.Join(lines, "")
}
