package grader

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/run"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/coursekit/course/grader/submission"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is one submission and the verdict it must get. Every fixture is
// a session.go a student could hand in; with skipPolicy it is graded as if
// the static wall had fallen, to prove the sandbox holds on its own.
type fixture struct {
	name       string
	src        []byte
	skipPolicy bool
	timeout    time.Duration // one run; 30s if zero
	budget     time.Duration // all runs; the grader's default if zero
	memory     int64         // one run; 512 MiB if zero
	pass       []string      // the exercises that must pass; every other must fail
	rejected   bool          // refused by the static check
	buildFails bool
	bonus      bool                                   // grade the bonus exercises too
	reason     string                                 // every failing exercise's reason contains this
	anyReason  string                                 // some failing exercise's reason contains this
	check      func(t *testing.T, rep *report.Report) // more to check of the report
	after      func(t *testing.T)                     // more to check of the machine once graded
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

const pathToSig = "func PathTo(entries []SessionEntry, leafID string) ([]SessionEntry, error) {"

func fixtures(t *testing.T) []fixture {
	sol, stub := solutionSource(t), stubSource(t)
	fs := []fixture{
		{name: "stub", src: stub, reason: "tests failed"},
		{name: "solution", src: sol, pass: allExercises, check: func(t *testing.T, rep *report.Report) {
			assert.True(t, rep.Race, "lab 10 marks 10.3 and 10.5 race: the submission is built with the race detector")
			require.NotNil(t, rep.Settings, "every report records how it was graded")
			assert.Equal(t, report.Settings{Graded: rep.Settings.Graded, Sandbox: "strict", Timeout: 30 * time.Second,
				Budget: 2 * time.Minute, Memory: 512 << 20, Hidden: true}, *rep.Settings, "the report's settings: the grader's options, defaults filled in")
			assert.WithinDuration(t, time.Now(), rep.Settings.Graded, time.Hour, "when its grading began")
		}},
		// Not Go that builds: a failed build, as the compiler would say, not a
		// broken rule, though the static check is what finds it.
		{name: "type-error", src: append(append([]byte{}, sol...), "\nvar broken int = \"text\"\n"...), buildFails: true, reason: "does not build", check: func(t *testing.T, rep *report.Report) {
			assert.Contains(t, rep.Build.Output, "session.go:", "the file and line")
			assert.Contains(t, rep.Build.Output, "does not type-check: cannot use \"text\"", "the type error")
			assert.NotContains(t, rep.Build.Output, "grading rules", "no rule was broken")
		}},
		{name: "syntax-error", src: append(append([]byte{}, sol...), "\nfunc broken( {\n"...), buildFails: true, reason: "does not build"},
		{name: "rejected-import", src: withInit(t, sol, []string{"os"}, `_ = os.Args`), rejected: true, reason: "import \"os\""},
		// A timeout long enough for the other exercises on a busy machine.
		{name: "infinite-loop", timeout: 3 * time.Second, budget: time.Minute, pass: []string{"10.2", "10.3", "10.4", "10.5", "10.6"}, reason: "timed out",
			src: prefixBody(t, sol, pathToSig, "for {\n}")},
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
	// No name a student declares can meet a name the tests declare: the
	// tests, hidden ones and the grader's TestMain included, are in the
	// external package session_test (issue 10).
	fs = append(fs, fixture{name: "declares-every-test-name", src: declaringTestNames(t, sol), bonus: true,
		pass: append(slices.Clone(allExercises), "10.7"), check: func(t *testing.T, rep *report.Report) {
			assert.Equal(t, 110, rep.MaxScore)
			assert.Equal(t, 110.0, rep.Score, "the reference solution with every test's names declared again: full marks")
		}})
	return append(fs, attackFixtures(t, sol, stub)...)
}

// childMarker is an argument no other process on the machine has, so the
// test can look for a child the submission left running.
const childMarker = "987.654321"

// gradeFixture grades fx as a submission directory and checks everything a
// fixture promises: the verdicts and reasons, the time bound, the
// submission unchanged, no process left, nothing written by student code
// outside its run.
func gradeFixture(t *testing.T, l *lab.Lab, fx fixture) {
	timeout := fx.timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	memory := fx.memory
	if memory == 0 {
		memory = 512 << 20 // 10.3's tests take about 200 MiB under the race detector
	}
	g, work := fixtureGrader(t, Options{Lab: l, Hidden: true, Bonus: fx.bonus, Timeout: timeout, Budget: fx.budget, Memory: memory, SkipPolicy: fx.skipPolicy})

	dir := filepath.Join(t.TempDir(), fx.name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session.go"), fx.src, 0o444))
	before := hashTree(t, dir)

	sub, err := submission.Read(dir, l.Editable)
	require.NoError(t, err)
	start := time.Now()
	rep, err := g.Grade(context.Background(), sub)
	require.NoError(t, err)
	elapsed := time.Since(start)

	passed := map[string]bool{}
	for _, ex := range rep.Exercises {
		passed[ex.ID] = ex.Passed
	}
	ids := allExercises
	if fx.bonus {
		ids = append(slices.Clone(ids), "10.7")
	}
	for _, id := range ids {
		want := slices.Contains(fx.pass, id)
		assert.Equal(t, want, passed[id], "exercise %s of fixture %s: passed=%v, want %v\n%s", id, fx.name, passed[id], want, textReport(rep))
	}
	var reasons []string
	for _, ex := range rep.Exercises {
		if !ex.Passed {
			reasons = append(reasons, ex.Reason)
			if fx.reason != "" {
				assert.Contains(t, ex.Reason, fx.reason, "exercise %s of fixture %s", ex.ID, fx.name)
			}
		}
	}
	if fx.anyReason != "" {
		assert.True(t, slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(r, fx.anyReason) }),
			"fixture %s: no failing exercise says %q; reasons: %q", fx.name, fx.anyReason, reasons)
	}
	assert.Equal(t, !fx.buildFails && !fx.rejected, rep.Build.OK, "build ok of %s\n%s", fx.name, rep.Build.Output)
	assert.Equal(t, fx.rejected, rep.Build.Rejected, "rejected of %s", fx.name)
	assert.Equal(t, len(fx.pass) > 0, rep.Score > 0, "score %v of %s", rep.Score, fx.name)

	// Bounded: the build, then at most the submission's budget of runs.
	budget := fx.budget
	if budget == 0 {
		budget = budgetTimeouts * timeout
	}
	assert.Less(t, elapsed, DefaultBuildTimeout+budget+run.Grace+15*time.Second, "grading %s took %s", fx.name, elapsed)
	assert.Equal(t, before, hashTree(t, dir), "grading %s changed the submission", fx.name)
	if rep.Build.OK {
		assert.Equal(t, report.LevelFull, rep.Isolation.Level, "isolation of %s: %s", fx.name, rep.Isolation.Name)
		for _, m := range []string{"mount", "pid", "net", "user", "rlimits"} {
			assert.True(t, rep.Isolation.Has(m), "isolation of %s lacks %s: %s", fx.name, m, rep.Isolation.Name)
		}
		if os.Geteuid() == 0 {
			assert.True(t, rep.Isolation.Has("uid"), "as root, student code must run as a uid of its own; isolation was %q", rep.Isolation.Name)
		}
	}
	var markers []string
	if strings.Contains(string(fx.src), childMarker) {
		markers = append(markers, childMarker)
	}
	assertNoProcessLeft(t, work, markers...)
	assertNothingWritten(t)
	if fx.check != nil {
		fx.check(t, rep)
	}
	if fx.after != nil {
		fx.after(t)
	}
}

// fixtureGrader is a sandboxed grader with opts, and its own work
// directory (reachable by the runs' users): every fixture has its own, so
// that fixtures can run in parallel and each can tell its own processes.
// Making one is cheap once the set-up's answer is kept.
func fixtureGrader(t *testing.T, opts Options) (*Grader, string) {
	t.Helper()
	work, err := os.MkdirTemp("", "course-fixtures-*")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(work, 0o711))
	t.Cleanup(func() { os.RemoveAll(work) })
	opts.TempDir = work
	return newSandboxedGrader(t, opts), work
}

func TestGradeFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs some forty submissions")
	}
	l := testLab(t)
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel() // many wait for a timeout: the machine works meanwhile
			gradeFixture(t, l, fx)
		})
	}
}

// newSandboxedGrader is New(opts) in the strict sandbox. A machine without
// Linux namespaces (macOS, a container that refuses them) cannot run these
// tests: they skip there, saying why, unless COURSE_REQUIRE_SANDBOX is set
// (CI sets it: there, a missing sandbox is a failure).
func newSandboxedGrader(t *testing.T, opts Options) *Grader {
	t.Helper()
	g, err := New(opts)
	if errors.Is(err, sandbox.ErrTooWeak) {
		if os.Getenv("COURSE_REQUIRE_SANDBOX") != "" {
			t.Fatalf("COURSE_REQUIRE_SANDBOX is set but this machine has no full sandbox: %v", err)
		}
		t.Skipf("this machine cannot give a full sandbox, which the grader's fixtures need: %v", err)
	}
	require.NoError(t, err)
	return g
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

func textReport(r *report.Report) string {
	var b strings.Builder
	_ = format.WriteText(&b, r, format.Style{})
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

func TestGradeCancelledIsAnErrorNotAVerdict(t *testing.T) {
	g, err := New(Options{Lab: testLab(t), TempDir: reachableTempDir(t)})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sub := &submission.Submission{Name: "x", Path: "x", Files: map[string][]byte{"session.go": solutionSource(t)}}
	rep, err := g.Grade(ctx, sub)
	assert.ErrorIs(t, err, context.Canceled, "a killed build says nothing about the submission")
	assert.Nil(t, rep)
}

func TestPrivateTestsDirMustExist(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "private")
	_, err := New(Options{Lab: testLab(t), TestsDir: missing})
	assert.EqualError(t, err, "--tests "+missing+": no such file or directory")
}

// A machine without the lab's modules must not grade: it would fail every
// student for its own fault.
func TestNewRefusesAMachineWithoutTheLabsModules(t *testing.T) {
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOFLAGS", "-modcacherw")
	_, err := New(Options{Lab: testLab(t), TempDir: reachableTempDir(t)})
	require.ErrorIs(t, err, sandbox.ErrSetup)
	assert.Contains(t, err.Error(), "go mod download")
}

// As root, a temporary directory that the unprivileged user cannot reach is
// refused up front, instead of running student code with more privilege.
func TestNewRefusesAnUnreachableTempDir(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("only as root on Linux, where student code runs as nobody")
	}
	_, err := New(Options{Lab: testLab(t), TempDir: t.TempDir()}) // t.TempDir's parent is 0700
	require.ErrorIs(t, err, sandbox.ErrSetup)
	assert.Contains(t, err.Error(), "cannot pass through")
}

// declaringTestNames is src with a declaration of every top-level name that
// a public or hidden test file of lab 10 declares, and TestMain (the
// grader's), except the names src or the given files declare themselves.
func declaringTestNames(t *testing.T, src []byte) []byte {
	t.Helper()
	l := testLab(t)
	names, err := l.TestFileNames()
	require.NoError(t, err)
	require.NotEmpty(t, names)
	taken := map[string]bool{}
	given, err := l.GivenFiles()
	require.NoError(t, err)
	fset := token.NewFileSet()
	files := [][]byte{src}
	for _, g := range given {
		files = append(files, g)
	}
	for _, data := range files {
		f, err := parser.ParseFile(fset, "x.go", data, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					taken[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						taken[spec.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							taken[n.Name] = true
						}
					}
				}
			}
		}
	}
	var b strings.Builder
	b.Write(src)
	b.WriteString("\n// Every name the tests declare, declared again.\n")
	added := 0
	for _, n := range append(names, "TestMain") {
		if taken[n] || n == "_" || n == "init" {
			continue
		}
		taken[n] = true
		fmt.Fprintf(&b, "func %s() {}\n", n)
		added++
	}
	require.Greater(t, added, 50, "the tests declare many names; a handful means the list is wrong")
	return []byte(b.String())
}

// A --tests test whose name starts with no exercise's prefix would never
// run; it is refused, named, with the prefixes it could have.
func TestPrivateTestsMustBelongToAnExercise(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "extra_test.go"), []byte(`package session_test

import "testing"

func TestLab10_1_MyCase(t *testing.T) {}

func TestMyForgottenPrefix(t *testing.T) {}
`), 0o644))
	_, err := New(Options{Lab: testLab(t), TestsDir: dir, Sandbox: sandbox.Off})
	require.Error(t, err, "New(--tests with TestMyForgottenPrefix) = nil error, want a refusal")
	assert.Contains(t, err.Error(), "TestMyForgottenPrefix belongs to no exercise")
	assert.Contains(t, err.Error(), "TestLab10_1_")
}

// A --tests file outside the external test package could not be run by
// the grader's harness (and would break every build): it is refused.
func TestPrivateTestsMustBeInTheExternalTestPackage(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "extra_test.go"), []byte("package session\n\nimport \"testing\"\n\nfunc TestLab10_1_MyCase(t *testing.T) {}\n"), 0o644))
	_, err := New(Options{Lab: testLab(t), TestsDir: dir, Sandbox: sandbox.Off})
	require.Error(t, err, "New(--tests with a file in package session) = nil error, want a refusal")
	assert.Contains(t, err.Error(), "extra_test.go is package session; a private test must be in package session_test")
}

// TestStudentNameRepeatsOnlyAPlainFileName: a report names the lab's file
// as the student handed it in (main.go) only when that is a plain file
// name; a name with a line break, markup or spaces is the student's text
// in the report, and the lab's own name stands instead.
func TestStudentNameRepeatsOnlyAPlainFileName(t *testing.T) {
	for found, want := range map[string]string{
		"session.go":      "session.go",
		"main.go":         "main.go",
		"sub/alice_v2.go": "alice_v2.go",
		"x\n```\n[full marks](https://e.x)\ny.go": "session.go",
		"a b.go": "session.go",
		".go":    "session.go",
		"":       "session.go",
	} {
		sub := &submission.Submission{Found: map[string]string{"session.go": found}}
		assert.Equal(t, want, studentName(sub, "session.go"), "studentName of a file found as %q", found)
	}
}
