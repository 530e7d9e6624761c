package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
)

// The student-side commands are tested against a small lab 7 (two graded
// exercises and a bonus one, which its manifest lists first) and a fake go test that replays -json streams
// built here, so that no test but the one marked end-to-end runs go.

const demoManifest = `{
  "chapter": "7",
  "slug": "07-demo",
  "title": "Demo",
  "package": "demo",
  "module": "lab7",
  "editable": ["demo.go"],
  "exercises": [
    {"id": "7.3", "name": "Three", "test_prefix": "TestLab7_3_", "points": 5, "bonus": true},
    {"id": "7.1", "name": "One", "test_prefix": "TestLab7_1_", "points": 10},
    {"id": "7.2", "name": "Two", "test_prefix": "TestLab7_2_", "points": 20}
  ]
}`

const demoTests = `package demo

import "testing"

func TestLab7_1_A(t *testing.T) {}
func TestLab7_1_B(t *testing.T) {}
func TestLab7_2_A(t *testing.T) {}
func TestLab7_3_A(t *testing.T) {}
`

const demoHints = `{
  "7.1": {
    "locate": {"en": "Start at the leaf.", "zh": "从叶子开始。"},
    "signature": {"en": "func Walk(leaf string) []string", "zh": "func Walk(leaf string) []string（签名）"},
    "pseudocode": {"en": "Walk up the parents,\nthen reverse.", "zh": "沿着父节点向上走，\n然后反转。"},
    "local": {"en": "at = parent[at]", "zh": "at = parent[at]（一步）"}
  }
}`

// demoCatalog is a Catalog func holding lab 7, with hints unless noHints.
func demoCatalog(t *testing.T, noHints bool) func() (*lab.Catalog, error) {
	t.Helper()
	return demoCatalogOf(t, demoManifest, noHints)
}

// demoCatalogOf is demoCatalog with another lab.json for lab 7.
func demoCatalogOf(t *testing.T, manifest string, noHints bool) func() (*lab.Catalog, error) {
	t.Helper()
	labsFS := fstest.MapFS{
		"go.mod":                 {Data: []byte("module github.com/coursekit/course/labs\n\ngo 1.22\n")},
		"07-demo/.meta/lab.json": {Data: []byte(manifest)},
		"07-demo/demo.go":        {Data: []byte("package demo\n")},
		"07-demo/demo_test.go":   {Data: []byte(demoTests)},
	}
	if !noHints {
		labsFS["07-demo/"+lab.HintsPath] = &fstest.MapFile{Data: []byte(demoHints)}
	}
	solFS := fstest.MapFS{"07-demo/demo.go": {Data: []byte("package demo\n// solved\n")}}
	c, err := lab.LoadFS(labsFS, solFS)
	require.NoError(t, err)
	return func() (*lab.Catalog, error) { return c, nil }
}

// demoWorkspace makes a workspace of lab 7: only its .course/workspace.json,
// which is all the commands read when go test is fake.
func demoWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	info, err := json.Marshal(lab.WorkspaceInfo{Chapter: "7", Slug: "07-demo"})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".course"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(lab.WorkspaceInfoPath)), info, 0o644))
	return dir
}

// goTestRun is a recorded `go test -json` run: its stream and exit status.
type goTestRun struct {
	lines []string
	code  int
	err   error // instead of a run: go could not be started
}

func (r *goTestRun) event(action, test, output string) {
	ev := map[string]any{"Time": "2026-01-02T03:04:05Z", "Action": action, "Package": "lab7"}
	if test != "" {
		ev["Test"] = test
	}
	if output != "" {
		ev["Output"] = output
	}
	b, _ := json.Marshal(ev)
	r.lines = append(r.lines, string(b))
}

// pass records a test that passed.
func (r *goTestRun) pass(names ...string) *goTestRun {
	for _, name := range names {
		r.event("run", name, "")
		r.event("output", name, "=== RUN   "+name+"\n")
		r.event("output", name, "--- PASS: "+name+" (0.00s)\n")
		r.event("pass", name, "")
	}
	return r
}

// fail records a test that failed after printing out (one line each,
// indented as t.Log does).
func (r *goTestRun) fail(name string, out ...string) *goTestRun {
	r.event("run", name, "")
	r.event("output", name, "=== RUN   "+name+"\n")
	for _, o := range out {
		r.event("output", name, "    "+o+"\n")
	}
	r.event("output", name, "--- FAIL: "+name+" (0.00s)\n")
	r.event("fail", name, "")
	return r
}

// crash records a test that started, printed and never ended.
func (r *goTestRun) crash(name string, out ...string) *goTestRun {
	r.event("run", name, "")
	for _, o := range out {
		r.event("output", name, o+"\n")
	}
	return r
}

// exit ends the run as go test does, with status code.
func (r *goTestRun) exit(code int) *goTestRun {
	r.code = code
	if code == 0 {
		r.event("output", "", "PASS\n")
		r.event("output", "", "ok  \tlab7\t0.01s\n")
		r.event("pass", "", "")
	} else {
		r.event("output", "", "FAIL\n")
		r.event("output", "", "FAIL\tlab7\t0.01s\n")
		r.event("fail", "", "")
	}
	return r
}

func (r *goTestRun) stream() string {
	start := `{"Time":"2026-01-02T03:04:05Z","Action":"start","Package":"lab7"}`
	return strings.Join(append([]string{start}, r.lines...), "\n") + "\n"
}

func newRun() *goTestRun { return &goTestRun{} }

// buildFailure is what go test -json prints when the code does not compile.
func buildFailure() *goTestRun {
	return &goTestRun{code: 1, lines: []string{
		`{"ImportPath":"lab7 [lab7.test]","Action":"build-output","Output":"# lab7 [lab7.test]\n"}`,
		`{"ImportPath":"lab7 [lab7.test]","Action":"build-output","Output":"./demo.go:3:17: declared and not used: x\n"}`,
		`{"ImportPath":"lab7 [lab7.test]","Action":"build-fail"}`,
		`{"Time":"2026-01-02T03:04:05Z","Action":"start","Package":"lab7"}`,
		`{"Time":"2026-01-02T03:04:05Z","Action":"output","Package":"lab7","Output":"FAIL\tlab7 [build failed]\n"}`,
		`{"Time":"2026-01-02T03:04:05Z","Action":"fail","Package":"lab7","Elapsed":0,"FailedBuild":"lab7 [lab7.test]"}`,
	}}
}

// fakeGoTest is a GoTestFunc that answers each call with respond, given
// the call's number (from 0) and its -run pattern, and records the calls.
type fakeGoTest struct {
	t       *testing.T
	respond func(call int, run string) *goTestRun

	mu    sync.Mutex
	calls [][]string // the args of each call
	dirs  []string
}

func (f *fakeGoTest) goTest(ctx context.Context, dir string, args []string, out io.Writer) (int, error) {
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, args)
	f.dirs = append(f.dirs, dir)
	f.mu.Unlock()
	r := f.respond(n, runFlag(args))
	if r == nil {
		f.t.Errorf("unexpected go test call %d: %q", n, args)
		return -1, errors.New("unexpected call")
	}
	if r.err != nil {
		return -1, r.err
	}
	if _, err := io.WriteString(out, r.stream()); err != nil {
		return -1, err
	}
	return r.code, ctx.Err()
}

// runs returns the -run pattern of every call so far.
func (f *fakeGoTest) runs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		out = append(out, runFlag(c))
	}
	return out
}

func runFlag(args []string) string {
	for i, a := range args {
		if a == "-run" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// byPattern answers every call by its -run pattern.
func byPattern(runs map[string]*goTestRun) func(int, string) *goTestRun {
	return func(_ int, run string) *goTestRun { return runs[run] }
}

const (
	runAll = "^(TestLab7_1_|TestLab7_2_|TestLab7_3_)"
	run71  = "^(TestLab7_1_)"
	run72  = "^(TestLab7_2_)"
	run73  = "^(TestLab7_3_)"
)

// termBuffer is an output stream that says it is a terminal.
type termBuffer struct{ bytes.Buffer }

func (*termBuffer) IsTerminal() bool { return true }

// noEnv is a Getenv with nothing set.
func noEnv(string) string { return "" }

// env is a Getenv holding vars.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func openDemo(t *testing.T, dir string) *Workspace {
	t.Helper()
	ws, err := openWorkspace(dir, demoCatalog(t, false))
	require.NoError(t, err)
	return ws
}

func TestOpenWorkspaceFromInside(t *testing.T) {
	dir := demoWorkspace(t)
	sub := filepath.Join(dir, "notes", "deeper")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	for _, from := range []string{dir, sub} {
		ws := openDemo(t, from)
		assert.Equal(t, dir, ws.Dir)
		assert.Equal(t, "7", ws.Lab.Chapter)
	}
}

func TestOpenWorkspaceRelativeDir(t *testing.T) {
	dir := demoWorkspace(t)
	t.Chdir(dir)
	ws := openDemo(t, ".")
	wd, err := os.Getwd()
	require.NoError(t, err)
	assert.Equal(t, wd, ws.Dir, "an absolute root")
}

func TestOpenWorkspaceRefusals(t *testing.T) {
	outside := t.TempDir()
	notDir := filepath.Join(outside, "file")
	require.NoError(t, os.WriteFile(notDir, nil, 0o644))
	otherChapter := demoWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(otherChapter, ".course", "workspace.json"), []byte(`{"chapter":"9","slug":"09-x"}`), 0o644))
	broken := demoWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(broken, ".course", "workspace.json"), []byte(`{`), 0o644))

	for name, tc := range map[string]struct {
		dir, want string
		help      bool
	}{
		"outside":       {outside, "not inside a practice workspace (no " + filepath.Join(".course", "workspace.json") + " here or above); create one with 'course practice 7 <dir>'", false},
		"missing":       {filepath.Join(outside, "nope"), "--dir " + filepath.Join(outside, "nope") + ": " + notExist(t), false},
		"a file":        {notDir, "--dir " + notDir + ": not a directory", false},
		"other chapter": {otherChapter, "workspace " + otherChapter + `: unknown chapter "9" (known: 7)`, false},
		"broken info":   {broken, "not a usable practice workspace: " + filepath.Join(broken, ".course", "workspace.json") + ": unexpected end of JSON input", false},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := openWorkspace(tc.dir, demoCatalog(t, false))
			var ee *ExitError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, ExitUsage, ee.Code)
			assert.Equal(t, tc.want, ee.Error())
			assert.Equal(t, tc.help, !ee.NoHelp, "pointer to --help")
		})
	}
}

// notExist is how this system says that a file does not exist.
func notExist(t *testing.T) string {
	_, err := os.Stat(filepath.Join(t.TempDir(), "nope"))
	return pathErrCause(err).Error()
}

func TestEveryStudentCommandNeedsAWorkspace(t *testing.T) {
	outside := t.TempDir()
	real, err := lab.Load()
	require.NoError(t, err)
	require.Greater(t, len(real.Labs()), 1, "the course has several labs")
	for name, tc := range map[string]struct {
		catalog func() (*lab.Catalog, error)
		how     string // how the message says to make a workspace
	}{
		"several labs": {lab.Load, "'course practice <chapter> <dir>' (chapters " + strings.Join(real.Chapters(), ", ") + ")"},
		"one lab":      {demoCatalog(t, false), "'course practice 7 <dir>'"},
	} {
		for _, args := range [][]string{
			{"status"}, {"test", real.Labs()[0].Exercises[0].ID}, {"watch"}, {"hint", real.Labs()[0].Exercises[0].ID},
		} {
			var stdout, stderr bytes.Buffer
			f := &Factory{IO: IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, Catalog: tc.catalog}
			code := Run(f, append(args, "--dir", outside))
			assert.Equal(t, ExitUsage, code, "%s: course %v", name, args)
			assert.Empty(t, stdout.String(), "%s: course %v", name, args)
			assert.Equal(t, "course "+args[0]+": not inside a practice workspace (no "+filepath.Join(".course", "workspace.json")+
				" here or above); create one with "+tc.how+"\n", stderr.String(), "%s: course %v", name, args)
		}
	}
}

func TestTestExercisesArgsAndDir(t *testing.T) {
	dir := demoWorkspace(t)
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{
		runAll: newRun().pass("TestLab7_1_A", "TestLab7_1_B", "TestLab7_2_A", "TestLab7_3_A").exit(0),
	})}
	ws := openDemo(t, dir)
	res, err := ws.testExercises(context.Background(), fake.goTest, orderedExercises(ws.Lab), nil)
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"-json", "-count=1", "-timeout", "1m0s", "-run", runAll, "."}}, fake.calls)
	assert.Equal(t, []string{dir}, fake.dirs)
	for _, eo := range res.Exercises {
		assert.True(t, eo.Passed, eo.Exercise.ID)
		assert.Empty(t, eo.Reason)
	}
	assert.Equal(t, []string{"7.1", "7.2", "7.3"}, []string{res.Exercises[0].Exercise.ID, res.Exercises[1].Exercise.ID, res.Exercises[2].Exercise.ID}, "the bonus last")
}

func TestTestExercisesOneSharedRunDecidesWhenItCan(t *testing.T) {
	// 7.2 fails, so go test exits 1; 7.1 and 7.3 passed every test, which
	// is their verdict on their own too: no second run.
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{
		runAll: newRun().pass("TestLab7_1_A", "TestLab7_1_B").fail("TestLab7_2_A", "demo_test.go:9: want 2").pass("TestLab7_3_A").exit(1),
	})}
	ws := openDemo(t, demoWorkspace(t))
	res, err := ws.testExercises(context.Background(), fake.goTest, orderedExercises(ws.Lab), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{runAll}, fake.runs())
	assert.True(t, res.find("7.1").Passed)
	assert.False(t, res.find("7.2").Passed)
	assert.Equal(t, "1 of 1 tests failed", res.find("7.2").Reason)
	assert.Equal(t, "    demo_test.go:9: want 2\n", strings.SplitAfter(res.find("7.2").Tests[0].Output, "\n")[1])
	assert.True(t, res.find("7.3").Passed)
}

func TestTestExercisesRerunsWhatACrashCutShort(t *testing.T) {
	// 7.1's second test panics and takes the test binary down: 7.2 and 7.3
	// never ran, and only their own runs can tell.
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{
		runAll: newRun().pass("TestLab7_1_A").fail("TestLab7_1_B", "panic: boom [recovered]").exit(2),
		run72:  newRun().pass("TestLab7_2_A").exit(0),
		run73:  newRun().crash("TestLab7_3_A", "panic: test timed out after 10m0s").exit(2),
	})}
	ws := openDemo(t, demoWorkspace(t))
	var progress []string
	res, err := ws.testExercises(context.Background(), fake.goTest, orderedExercises(ws.Lab), func(label string, done, total int) {
		progress = append(progress, fmt.Sprintf("%s %d/%d", label, done, total))
	})
	require.NoError(t, err)
	assert.Equal(t, []string{runAll, run72, run73}, fake.runs())
	assert.False(t, res.find("7.1").Passed)
	assert.True(t, res.find("7.2").Passed)
	e3 := res.find("7.3")
	assert.False(t, e3.Passed)
	assert.Equal(t, report.StatusNoEnd, e3.Tests[0].Status)
	assert.Equal(t, "1 of 1 tests did not pass", e3.Reason)
	assert.Equal(t, []string{
		"running the tests 0/4", "running the tests 1/4", "running the tests 2/4",
		"running 7.2 0/1", "running 7.2 1/1",
		"running 7.3 0/1",
	}, progress)
}

func TestTestExercisesDoesNotRerunAHang(t *testing.T) {
	// 7.1's second test hangs until go test's -timeout: running 7.1 again
	// would only wait as long again. 7.2 and 7.3 never ran.
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{
		runAll: newRun().pass("TestLab7_1_A").crash("TestLab7_1_B", "panic: test timed out after 10m0s", "\trunning tests:", "\t\tTestLab7_1_B (10m0s)").exit(2),
		run72:  newRun().pass("TestLab7_2_A").exit(0),
		run73:  newRun().pass("TestLab7_3_A").exit(0),
	})}
	ws := openDemo(t, demoWorkspace(t))
	res, err := ws.testExercises(context.Background(), fake.goTest, orderedExercises(ws.Lab), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{runAll, run72, run73}, fake.runs())
	assert.False(t, res.find("7.1").Passed)
	assert.Equal(t, report.StatusNoEnd, res.find("7.1").Tests[1].Status)
	assert.True(t, res.find("7.2").Passed)
	assert.True(t, res.find("7.3").Passed)
}

func TestTestExercisesRerunsWhenGoTestFailedWithoutAFailingTest(t *testing.T) {
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{
		runAll: newRun().pass("TestLab7_1_A", "TestLab7_1_B", "TestLab7_2_A", "TestLab7_3_A").exit(1),
		run71:  newRun().pass("TestLab7_1_A", "TestLab7_1_B").exit(0),
		run72:  newRun().pass("TestLab7_2_A").exit(1),
		run73:  newRun().pass("TestLab7_3_A").exit(0),
	})}
	ws := openDemo(t, demoWorkspace(t))
	res, err := ws.testExercises(context.Background(), fake.goTest, orderedExercises(ws.Lab), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{runAll, run71, run72, run73}, fake.runs())
	assert.True(t, res.find("7.1").Passed)
	assert.False(t, res.find("7.2").Passed, "go test -run Lab7_2 exits 1: so does the verdict")
	assert.Equal(t, "every test passed, but go test exited with status 1", res.find("7.2").Reason)
	assert.True(t, res.find("7.3").Passed)
}

func TestTestExercisesMissingTestFails(t *testing.T) {
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{
		run71: newRun().pass("TestLab7_1_A").exit(0), // TestLab7_1_B was deleted from the workspace
	})}
	ws := openDemo(t, demoWorkspace(t))
	e, _ := ws.Lab.Exercise("7.1")
	res, err := ws.testExercises(context.Background(), fake.goTest, []lab.Exercise{e}, nil)
	require.NoError(t, err)
	eo := res.Exercises[0]
	assert.False(t, eo.Passed)
	assert.Equal(t, []testOutcome{
		{Name: "TestLab7_1_A", Status: report.StatusPass, Output: "=== RUN   TestLab7_1_A\n--- PASS: TestLab7_1_A (0.00s)\n"},
		{Name: "TestLab7_1_B", Status: report.StatusNotRun},
	}, eo.Tests)
	assert.Equal(t, "1 of 2 tests did not pass", eo.Reason)
}

func TestTestExercisesCountsTheStudentsOwnTests(t *testing.T) {
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{
		run71: newRun().pass("TestLab7_1_A", "TestLab7_1_B").fail("TestLab7_1_Mine", "mine_test.go:5: oops").exit(1),
	})}
	ws := openDemo(t, demoWorkspace(t))
	e, _ := ws.Lab.Exercise("7.1")
	res, err := ws.testExercises(context.Background(), fake.goTest, []lab.Exercise{e}, nil)
	require.NoError(t, err)
	eo := res.Exercises[0]
	assert.False(t, eo.Passed, "as go test -run Lab7_1 says")
	require.Len(t, eo.Tests, 3)
	assert.True(t, eo.Tests[2].Own)
	assert.Equal(t, "1 of 3 tests failed", eo.Reason)
}

func TestTestExercisesNoTestsRan(t *testing.T) {
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{
		run72: newRun().exit(0), // "testing: warning: no tests to run"
	})}
	ws := openDemo(t, demoWorkspace(t))
	e, _ := ws.Lab.Exercise("7.2")
	res, err := ws.testExercises(context.Background(), fake.goTest, []lab.Exercise{e}, nil)
	require.NoError(t, err)
	assert.False(t, res.Exercises[0].Passed)
	assert.Equal(t, "no tests ran (go test exited with status 0)", res.Exercises[0].Reason)
}

func TestTestExercisesBuildFailure(t *testing.T) {
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{runAll: buildFailure()})}
	ws := openDemo(t, demoWorkspace(t))
	res, err := ws.testExercises(context.Background(), fake.goTest, orderedExercises(ws.Lab), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{runAll}, fake.runs(), "no second run of a build failure")
	assert.True(t, res.Broken)
	assert.True(t, res.BuildFailed)
	assert.Equal(t, "# lab7 [lab7.test]\n./demo.go:3:17: declared and not used: x\n", res.BrokenOutput)
	for _, eo := range res.Exercises {
		assert.False(t, eo.Passed)
		assert.Equal(t, "the code does not compile", eo.Reason)
	}
}

func TestTestExercisesGoCommandError(t *testing.T) {
	// No go.mod: the go command prints to standard error and exits 1.
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{
		run71: {lines: []string{"go: go.mod file not found in current directory or any parent directory; see 'go help modules'"}, code: 1},
	})}
	ws := openDemo(t, demoWorkspace(t))
	e, _ := ws.Lab.Exercise("7.1")
	res, err := ws.testExercises(context.Background(), fake.goTest, []lab.Exercise{e}, nil)
	require.NoError(t, err)
	assert.True(t, res.Broken)
	assert.False(t, res.BuildFailed)
	assert.Contains(t, res.BrokenOutput, "go: go.mod file not found")
	assert.Equal(t, "go test ran no test", res.Exercises[0].Reason)
}

func TestTestExercisesCannotRunGo(t *testing.T) {
	noGo := errors.New(`cannot run go test: exec: "go": executable file not found in $PATH`)
	fake := &fakeGoTest{t: t, respond: func(int, string) *goTestRun { return &goTestRun{err: noGo} }}
	ws := openDemo(t, demoWorkspace(t))
	_, err := ws.testExercises(context.Background(), fake.goTest, orderedExercises(ws.Lab), nil)
	assert.Equal(t, noGo, err)
}

func TestExecGoTestReportsTheExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the go command")
	}
	var out bytes.Buffer
	code, err := execGoTest(context.Background(), t.TempDir(), []string{"-json", "."}, &out)
	require.NoError(t, err)
	assert.Equal(t, 1, code)
	assert.Contains(t, out.String(), "go.mod file not found", "standard error is kept too")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = execGoTest(ctx, t.TempDir(), []string{"."}, &out)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestProgressBar(t *testing.T) {
	for _, tc := range []struct {
		done, total int
		want        string
	}{
		{0, 0, "[░░░░░░░░]"},
		{0, 9, "[░░░░░░░░]"},
		{1, 100, "[█░░░░░░░]"}, // something passes: it shows
		{4, 8, "[████░░░░]"},
		{99, 100, "[███████░]"}, // not all: never full
		{9, 9, "[████████]"},
	} {
		assert.Equal(t, tc.want, progressBar(tc.done, tc.total, 8), "%d/%d", tc.done, tc.total)
	}
}

func TestStyleFollowsTerminalAndNoColor(t *testing.T) {
	assert.False(t, styleFor(&bytes.Buffer{}, noEnv).Color, "not a terminal")
	assert.True(t, styleFor(&termBuffer{}, noEnv).Color)
	assert.False(t, styleFor(&termBuffer{}, env(map[string]string{"NO_COLOR": "1"})).Color)
}

func TestLiveLineOnlyOnATerminal(t *testing.T) {
	var plain bytes.Buffer
	l := newLiveLine(&plain)
	l.progress("running 7.1", 1, 2)
	l.clear()
	assert.Empty(t, plain.String())

	var tty termBuffer
	l = newLiveLine(&tty)
	l.progress("running 7.1", 1, 2)
	l.progress("running 7.1", 2, 2)
	l.clear()
	bar := progressBar(1, 2, 20)
	assert.Equal(t, "\rrunning 7.1: 1/2 tests "+bar+"\rrunning 7.1: 2/2 tests "+progressBar(2, 2, 20)+
		"\r"+strings.Repeat(" ", len([]rune("running 7.1: 2/2 tests "+bar)))+"\r", tty.String())
}

func TestTestExercisesKeepsABoundedOutput(t *testing.T) {
	line := strings.Repeat("x", 1023)
	lines := make([]string, 3*maxKeptOutput/1024)
	for i := range lines {
		lines[i] = line
	}
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{
		run71: newRun().fail("TestLab7_1_A", lines...).pass("TestLab7_1_B").exit(1),
	})}
	ws := openDemo(t, demoWorkspace(t))
	e, _ := ws.Lab.Exercise("7.1")
	res, err := ws.testExercises(context.Background(), fake.goTest, []lab.Exercise{e}, nil)
	require.NoError(t, err)
	eo := res.Exercises[0]
	assert.Equal(t, report.StatusFail, eo.Tests[0].Status, "its end still counts")
	assert.LessOrEqual(t, len(eo.Tests[0].Output), maxKeptOutput+1024+len("=== RUN   TestLab7_1_A\n"))
	assert.Equal(t, report.StatusPass, eo.Tests[1].Status)
}
