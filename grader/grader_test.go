package grader

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is one submission and the verdict it must get.
type fixture struct {
	name       string
	src        []byte
	skipPolicy bool
	timeout    time.Duration
	pass       []string // the exercises that must pass; every other must fail
	rejected   bool     // refused by the static check
	buildFails bool
	reason     string // every failing exercise's reason contains this
}

var allExercises = []string{"10.1", "10.2", "10.3", "10.4", "10.5", "10.6"}

// forgeLines prints fake test2json framing: a pass for every test of the lab.
func forgeLines(t testing.TB) string {
	l := testLab(t)
	var names []string
	for _, ex := range l.Exercises {
		names = append(names, l.PublicTests(ex.ID)...)
		names = append(names, l.HiddenTests(ex.ID)...)
	}
	return fmt.Sprintf(`for _, name := range %#v {
		fmt.Printf("\x16=== RUN   %%s\n\x16--- PASS: %%s (0.00s)\n", name, name)
	}
	fmt.Printf("\x16PASS\n")`, names)
}

func fixtures(t testing.TB) []fixture {
	sol, stub := solutionSource(t), stubSource(t)
	fs := []fixture{
		{name: "stub", src: stub, reason: "tests failed"},
		{name: "solution", src: sol, pass: allExercises},
		{name: "compile-error", src: append(append([]byte{}, sol...), "\nvar broken int = \"text\"\n"...), buildFails: true, reason: "does not build"},
		{name: "rejected-import", src: withInit(t, sol, []string{"os"}, `_ = os.Args`), rejected: true, reason: "import \"os\""},
		{name: "infinite-loop", timeout: 3 * time.Second, pass: []string{"10.2", "10.3", "10.4", "10.5", "10.6"}, reason: "timed out",
			src: prefixBody(t, sol, "func PathTo(entries []SessionEntry, leafID string) ([]SessionEntry, error) {", "for {\n}")},
		{name: "panic-in-init", src: withInit(t, sol, nil, `panic("boom")`), reason: "no tests ran"},
		{name: "exit0-in-init", skipPolicy: true, src: withInit(t, sol, []string{"os"}, `os.Exit(0)`), reason: "no tests ran"},
		{name: "forged-pass-lines", src: withInit(t, stub, []string{"fmt"}, forgeLines(t))},
		{name: "forging-goroutine", src: withInit(t, stub, []string{"fmt", "time"},
			"go func() {\nfor i := 0; i < 50; i++ {\n"+forgeLines(t)+"\ntime.Sleep(time.Millisecond)\n}\n}()")},
		{name: "forged-on-solution", src: withInit(t, sol, []string{"fmt"}, forgeLines(t)), reason: "imitates the test runner"},
		{name: "huge-output", src: withInit(t, sol, []string{"fmt", "strings"}, `fmt.Print(strings.Repeat("spam\n", 4<<20))`), reason: "output"},
	}
	for _, id := range allExercises {
		fs = append(fs, fixture{name: "only-" + id, src: onlyExercise(t, id), pass: []string{id}})
	}
	if runtime.GOOS == "linux" && os.Geteuid() == 0 {
		// As root the grader runs student code as nobody: it may run the test
		// binary but not read it, and the sources (hidden tests) are gone.
		fs = append(fs, fixture{name: "peeks-at-hidden-tests", skipPolicy: true, pass: allExercises,
			src: withInit(t, sol, []string{"os", "path/filepath", "strings"}, `
	if b, err := os.ReadFile("/proc/self/exe"); err == nil && len(b) > 0 {
		panic("read the test binary, hidden tests and all")
	}
	// The run's directory sits in the grader's work directory, beside the
	// binary and, until the build was done, the sources.
	for _, pattern := range []string{"../*", "../*/*_test.go", "../src/*"} {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			panic("found the grader's files: " + strings.Join(m, ", "))
		}
	}
	if _, err := os.ReadFile("../src/pathto_hidden_test.go"); err == nil {
		panic("read a hidden test")
	}`)})
	}
	if runtime.GOOS == "linux" {
		fs = append(fs, fixture{name: "child-process", skipPolicy: true, pass: allExercises,
			src: withInit(t, sol, []string{"os/exec"}, fmt.Sprintf(`_ = exec.Command("/bin/sleep", %q).Start()`, childMarker))})
	}
	return fs
}

// childMarker is an argument no other process on the machine has, so the
// test can look for a child the submission left running.
const childMarker = "987.654321"

func TestGradeFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a dozen submissions")
	}
	l := testLab(t)
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			timeout := fx.timeout
			if timeout == 0 {
				timeout = 30 * time.Second
			}
			work := reachableTempDir(t)
			g, err := New(Options{Lab: l, Hidden: true, Timeout: timeout, SkipPolicy: fx.skipPolicy, TempDir: work})
			require.NoError(t, err)

			dir := filepath.Join(t.TempDir(), fx.name)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "session.go"), fx.src, 0o444))
			before := hashTree(t, dir)

			sub, err := ReadSubmission(dir, l.Editable)
			require.NoError(t, err)
			start := time.Now()
			rep, err := g.Grade(context.Background(), sub)
			require.NoError(t, err)
			elapsed := time.Since(start)

			passed := map[string]bool{}
			for _, ex := range rep.Exercises {
				passed[ex.ID] = ex.Passed
			}
			for _, id := range allExercises {
				want := contains(fx.pass, id)
				assert.Equal(t, want, passed[id], "exercise %s of fixture %s: passed=%v, want %v\n%s", id, fx.name, passed[id], want, textReport(rep))
			}
			for _, ex := range rep.Exercises {
				if !ex.Passed && fx.reason != "" {
					assert.Contains(t, ex.Reason, fx.reason, "exercise %s of fixture %s", ex.ID, fx.name)
				}
			}
			assert.Equal(t, !fx.buildFails && !fx.rejected, rep.Build.OK, "build ok of %s\n%s", fx.name, rep.Build.Output)
			assert.Equal(t, fx.rejected, rep.Build.Rejected, "rejected of %s", fx.name)
			assert.Equal(t, len(fx.pass) > 0, rep.Score > 0, "score %d of %s", rep.Score, fx.name)

			// Bounded: at most one timeout (plus the grace) per exercise
			// that hangs, plus building.
			assert.Less(t, elapsed, 6*(timeout+10*time.Second)+2*time.Minute, "grading %s took %s", fx.name, elapsed)
			assert.Equal(t, before, hashTree(t, dir), "grading %s changed the submission", fx.name)
			if runtime.GOOS == "linux" && os.Geteuid() == 0 && rep.Build.OK {
				assert.True(t, rep.Isolation.Unprivileged, "as root, student code must run as nobody; isolation was %q", rep.Isolation.Name)
			}
			assertNoProcessLeft(t, work)
		})
	}
}

// reachableTempDir is a t.TempDir that the unprivileged user student code
// runs as may pass through (t.TempDir's own parent is private to root).
func reachableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		require.NoError(t, os.Chmod(d, 0o711))
	}
	return dir
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func textReport(r *Report) string {
	var b strings.Builder
	_ = WriteText(&b, r, Style{})
	return b.String()
}

// hashTree returns a digest of every file name, mode and content under dir.
func hashTree(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v\n", p, info.Mode())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	require.NoError(t, err)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// assertNoProcessLeft fails if any process still runs from the grader's
// work directory or carries the child fixture's marker (Linux only: it
// reads /proc).
func assertNoProcessLeft(t *testing.T, work string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cl := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if strings.Contains(cl, work) || strings.Contains(cl, childMarker) {
			t.Errorf("process %s is still running after grading: %s", e.Name(), cl)
		}
	}
}

func TestGradeCancelledIsAnErrorNotAVerdict(t *testing.T) {
	g, err := New(Options{Lab: testLab(t), TempDir: reachableTempDir(t)})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sub := &Submission{Name: "x", Path: "x", Files: map[string][]byte{"session.go": solutionSource(t)}}
	rep, err := g.Grade(ctx, sub)
	assert.ErrorIs(t, err, context.Canceled, "a killed build says nothing about the submission")
	assert.Nil(t, rep)
}

func TestWriteTextKeepsColumnsNarrow(t *testing.T) {
	rep := &Report{Submission: "s", Lab: "10", Path: "s", Build: Build{OK: true}, Exercises: []ExerciseReport{
		{ID: "10.1", Name: "PathTo", MaxPoints: 15, Reason: "a reason much longer than any exercise's name",
			Tests: []TestReport{{Name: "TestLab10_1_X", Status: StatusFail}}},
		{ID: "10.2", Name: "ParseSessionEntry", Passed: true, Points: 20, MaxPoints: 20,
			Tests: []TestReport{{Name: "TestLab10_2_X", Status: StatusPass}}},
	}, Score: 20, MaxScore: 35}
	lines := strings.Split(textReport(rep), "\n")
	assert.Equal(t, []string{
		"EXERCISE  NAME               RESULT  TESTS  POINTS",
		"10.1      PathTo             FAIL    0/1    0/15",
		"          a reason much longer than any exercise's name",
		"          first failure: TestLab10_1_X (fail)",
		"10.2      ParseSessionEntry  pass    1/1    20/20",
	}, lines[1:6])
}

func TestPrivateTestsDirMustExist(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "private")
	_, err := New(Options{Lab: testLab(t), TestsDir: missing})
	assert.EqualError(t, err, "--tests "+missing+": no such file or directory")
}

func TestWriteTextAlignsColouredColumns(t *testing.T) {
	rep := &Report{Submission: "s", Lab: "10", Path: "s", Build: Build{OK: true}, Exercises: []ExerciseReport{
		{ID: "10.1", Name: "PathTö", Passed: true, Points: 15, MaxPoints: 15, Tests: []TestReport{{Name: "TestLab10_1_X", Status: StatusPass}}},
		{ID: "10.2", Name: "Parse", MaxPoints: 20, Reason: "1 of 1 tests failed", Tests: []TestReport{{Name: "TestLab10_2_X", Status: StatusFail}}},
	}, MaxScore: 35}
	var b strings.Builder
	require.NoError(t, WriteText(&b, rep, Style{Color: true}))
	lines := strings.Split(b.String(), "\n")
	assert.Equal(t, []string{
		"EXERCISE  NAME    RESULT  TESTS  POINTS",
		"10.1      PathTö  \x1b[32mpass\x1b[0m    1/1    15/15",
		"10.2      Parse   \x1b[31mFAIL\x1b[0m    0/1    0/20",
		"          \x1b[2m1 of 1 tests failed\x1b[0m",
	}, lines[1:5])
}

func TestCheckTestReferences(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	write("given.go", "package session\n\nfunc shared() int { return 1 }\n")
	write("a_test.go", "package session\n\ntype fakeFS struct{}\n\nfunc chapterTree() int { return 2 }\n\nfunc shared2() {}\n")
	write("session.go", `package session

func uses(x any) int {
	ids := 3 // a local that a test's name would not clash with
	_ = ids
	if _, ok := x.(*fakeFS); ok {
		return shared()
	}
	return chapterTree()
}
`)
	err := CheckTestReferences(dir, "session.go")
	var pe *PolicyError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, []Violation{
		{Line: 6, Problem: "fakeFS is declared only in the course's tests; the file must build without them"},
		{Line: 9, Problem: "chapterTree is declared only in the course's tests; the file must build without them"},
	}, pe.Violations)

	write("session.go", "package session\n\nfunc uses() int { return shared() + len(\"x\") }\n")
	assert.NoError(t, CheckTestReferences(dir, "session.go"))
}

func TestFailureExcerptKeepsDiffHeaders(t *testing.T) {
	out := "=== RUN   TestX\n    x_test.go:1: \n        \tDiff:\n        \t--- Expected\n        \t+++ Actual\n--- FAIL: TestX (0.00s)\n"
	assert.Equal(t, "    x_test.go:1: \n        \tDiff:\n        \t--- Expected\n        \t+++ Actual\n", failureExcerpt(out))
}

// A machine without the lab's modules must not grade: it would fail every
// student for its own fault.
func TestNewRefusesAMachineWithoutTheLabsModules(t *testing.T) {
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOFLAGS", "-modcacherw")
	_, err := New(Options{Lab: testLab(t), TempDir: reachableTempDir(t)})
	require.ErrorIs(t, err, ErrSetup)
	assert.Contains(t, err.Error(), "go mod download")
}

// As root, a temporary directory that the unprivileged user cannot reach is
// refused up front, instead of running student code with more privilege.
func TestNewRefusesAnUnreachableTempDir(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("only as root on Linux, where student code runs as nobody")
	}
	_, err := New(Options{Lab: testLab(t), TempDir: t.TempDir()}) // t.TempDir's parent is 0700
	require.ErrorIs(t, err, ErrSetup)
	assert.Contains(t, err.Error(), "cannot pass through")
}
