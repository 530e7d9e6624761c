package cli

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
)

// testOf runs `course test args...` in a demo workspace whose go test
// answers with runs.
func testOf(t *testing.T, runs map[string]*goTestRun, out io.Writer, args ...string) (string, *fakeGoTest, error) {
	t.Helper()
	if out == nil {
		out = &bytes.Buffer{}
	}
	fake := &fakeGoTest{t: t, respond: byPattern(runs)}
	opts := &TestOptions{IO: IOStreams{In: strings.NewReader(""), Out: out, ErrOut: &bytes.Buffer{}},
		Catalog: demoCatalog(t, false), Getenv: noEnv, GoTest: fake.goTest}
	err := execute(newCmdTest(opts), append(args, "--dir", demoWorkspace(t))...)
	return fmt.Sprint(out), fake, err
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	require.ErrorAs(t, err, &ee)
	return ee.Code
}

func TestTestGroupsAndIndentsFailures(t *testing.T) {
	out, fake, err := testOf(t, map[string]*goTestRun{
		run71: newRun().pass("TestLab7_1_A").fail("TestLab7_1_B",
			"=== RUN   TestLab7_1_B/empty",
			"demo_test.go:12: ",
			"    \tError Trace:\t/ws/demo_test.go:12",
			"    \tError:      \tNot equal:",
			"    \t            \texpected: 2",
			"    \t            \tactual  : 0",
			"",
			"    \t            \t--- Expected",
			"    \tTest:       \tTestLab7_1_B/empty",
			"--- FAIL: TestLab7_1_B/empty (0.00s)",
		).exit(1),
	}, nil, "7.1")
	assert.Equal(t, []string{run71}, fake.runs())
	assert.Equal(t, ExitFailure, exitCode(t, err))
	assert.EqualError(t, err, "7.1 One fails: 1 of 2 tests failed")
	assert.Equal(t, `7.1 One  (go test -run Lab7_1)

  ✓ TestLab7_1_A
  ✗ TestLab7_1_B
      demo_test.go:12: 
          	Error Trace:	/ws/demo_test.go:12
          	Error:      	Not equal:
          	            	expected: 2
          	            	actual  : 0
          	            	--- Expected
          	Test:       	TestLab7_1_B/empty

FAIL 7.1 One: 1 of 2 tests passed  (course hint 7.1 for a nudge)
`, out)
}

func TestTestPasses(t *testing.T) {
	out, fake, err := testOf(t, map[string]*goTestRun{run72: newRun().pass("TestLab7_2_A").exit(0)}, nil, "7.2")
	require.NoError(t, err)
	assert.Equal(t, []string{run72}, fake.runs(), "course test runs go test as the student would, without -race")
	assert.Equal(t, "7.2 Two  (go test -run Lab7_2)\n\n  ✓ TestLab7_2_A\n\nPASS 7.2 Two: 1 of 1 tests passed\n"+
		"Grading runs it with the race detector on: go test -race -run Lab7_2 finds a data race this run does not look for.\n",
		out, "a lab whose code may run goroutines: a pass says what grading adds")
}

func TestTestOfASequentialLabSaysNothingOfRaces(t *testing.T) {
	manifest := strings.Replace(demoManifest, `"editable"`, `"sequential": true, "editable"`, 1)
	require.NotEqual(t, demoManifest, manifest)
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{run72: newRun().pass("TestLab7_2_A").exit(0)})}
	var out bytes.Buffer
	opts := &TestOptions{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &bytes.Buffer{}},
		Catalog: demoCatalogOf(t, manifest, false), Getenv: noEnv, GoTest: fake.goTest}
	require.NoError(t, execute(newCmdTest(opts), "7.2", "--dir", demoWorkspace(t)))
	assert.Equal(t, "7.2 Two  (go test -run Lab7_2)\n\n  ✓ TestLab7_2_A\n\nPASS 7.2 Two: 1 of 1 tests passed\n", out.String(),
		"a sequential lab's code runs no goroutine, so the race detector has nothing of the student's to find")
}

func TestTestFailingSaysNothingOfRaces(t *testing.T) {
	out, _, err := testOf(t, map[string]*goTestRun{run72: newRun().fail("TestLab7_2_A", "demo_test.go:9: not yet").exit(1)}, nil, "7.2")
	assert.Equal(t, ExitFailure, exitCode(t, err))
	assert.NotContains(t, out, "race detector", "a failing exercise has other work to do first")
}

func TestTestTakesTheShortID(t *testing.T) {
	_, fake, err := testOf(t, map[string]*goTestRun{run73: newRun().pass("TestLab7_3_A").exit(0)}, nil, "3")
	require.NoError(t, err)
	assert.Equal(t, []string{run73}, fake.runs())
}

func TestTestUnknownExercise(t *testing.T) {
	out, fake, err := testOf(t, nil, nil, "7.9")
	assert.Equal(t, ExitUsage, exitCode(t, err))
	assert.EqualError(t, err, `chapter 7 has no exercise "7.9" (known: 7.3, 7.1, 7.2)`)
	assert.Empty(t, out)
	assert.Empty(t, fake.runs())

	// Through the whole command line, in a real workspace.
	dir := filepath.Join(t.TempDir(), "mylab")
	c, err := lab.Load()
	require.NoError(t, err)
	l, err := c.Lookup("10")
	require.NoError(t, err)
	require.NoError(t, l.WriteWorkspace(dir))
	var stdout, stderr bytes.Buffer
	f := &Factory{IO: IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, Catalog: lab.Load, BuildInfo: debug.ReadBuildInfo}
	assert.Equal(t, ExitUsage, Run(f, []string{"test", "10.99", "--dir", dir}))
	assert.Regexp(t, `^course test: chapter 10 has no exercise "10.99" \(known: 10\.1, .*\)\nRun 'course test --help' for usage.\n$`, stderr.String())
	stderr.Reset()
	assert.Equal(t, ExitUsage, Run(f, []string{"test", "10.1", "10.2", "--dir", dir}))
	assert.Contains(t, stderr.String(), "course test: accepts at most 1 arg(s), received 2\n")
}

func TestTestWithoutExerciseShowsTheCurrentOne(t *testing.T) {
	out, fake, err := testOf(t, map[string]*goTestRun{
		runAll: newRun().pass("TestLab7_1_A", "TestLab7_1_B").fail("TestLab7_2_A", "demo_test.go:9: not yet").fail("TestLab7_3_A").exit(1),
	}, nil)
	assert.Equal(t, []string{runAll}, fake.runs(), "one run of every exercise, as course watch starts")
	assert.Equal(t, ExitFailure, exitCode(t, err))
	assert.EqualError(t, err, "7.2 Two fails: 1 of 1 tests failed")
	assert.Equal(t, "7.2 Two  (go test -run Lab7_2)\n\n  ✗ TestLab7_2_A\n      demo_test.go:9: not yet\n\n"+
		"FAIL 7.2 Two: 0 of 1 tests passed  (course hint 7.2 for a nudge)\n", out)
}

func TestTestWithoutExerciseNeverFailsTheOptionalOne(t *testing.T) {
	out, _, err := testOf(t, map[string]*goTestRun{
		runAll: newRun().pass("TestLab7_1_A", "TestLab7_1_B", "TestLab7_2_A").fail("TestLab7_3_A", "demo_test.go:4: not done").exit(1),
	}, nil)
	require.NoError(t, err, "every graded exercise passes; the bonus one is optional")
	assert.Equal(t, "Every graded exercise passes! Optional: 7.3 Three (bonus), when you want it: course test 7.3\n", out)
	assert.NotContains(t, out, "FAIL")

	out, _, err = testOf(t, map[string]*goTestRun{
		runAll: newRun().pass("TestLab7_1_A", "TestLab7_1_B", "TestLab7_2_A", "TestLab7_3_A").exit(0),
	}, nil)
	require.NoError(t, err)
	assert.Equal(t, "All exercises pass!\n", out)
}

func TestTestCutsLongOutput(t *testing.T) {
	var lines []string
	for i := 1; i <= maxOutputLines+15; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	out, _, err := testOf(t, map[string]*goTestRun{
		run71: newRun().pass("TestLab7_1_A").fail("TestLab7_1_B", lines...).exit(1),
	}, nil, "7.1")
	assert.Equal(t, ExitFailure, exitCode(t, err))
	assert.Contains(t, out, fmt.Sprintf("      line %d\n      … 15 more lines: go test -v -run \"^TestLab7_1_B$\"\n", maxOutputLines))
	assert.NotContains(t, out, fmt.Sprintf("line %d\n", maxOutputLines+1))
}

func TestTestShowsLessOfLaterFailures(t *testing.T) {
	var lines []string
	for i := 1; i <= maxOutputLines+5; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	out, _, err := testOf(t, map[string]*goTestRun{
		run71: newRun().fail("TestLab7_1_A", lines...).fail("TestLab7_1_B", lines...).exit(1),
	}, nil, "7.1")
	assert.Equal(t, ExitFailure, exitCode(t, err))
	assert.Contains(t, out, fmt.Sprintf("      line %d\n      … 5 more lines: go test -v -run \"^TestLab7_1_A$\"\n", maxOutputLines))
	assert.Contains(t, out, fmt.Sprintf("      line %d\n      … %d more lines: go test -v -run \"^TestLab7_1_B$\"\n",
		maxLaterOutputLines, maxOutputLines+5-maxLaterOutputLines))
}

func TestTestCrashHangMissingAndOwnTests(t *testing.T) {
	out, _, err := testOf(t, map[string]*goTestRun{
		run71: newRun().crash("TestLab7_1_A", "panic: runtime error: index out of range [3] with length 3", "goroutine 7 [running]:").
			fail("TestLab7_1_Mine", "mine_test.go:4: my own check").exit(2),
	}, nil, "7.1")
	assert.Equal(t, ExitFailure, exitCode(t, err))
	assert.Contains(t, out, "  ✗ TestLab7_1_A (did not end: it crashed or hung)\n      panic: runtime error: index out of range [3] with length 3\n      goroutine 7 [running]:\n")
	assert.Contains(t, out, "  ✗ TestLab7_1_B (did not run)\n")
	assert.Contains(t, out, "  ✗ TestLab7_1_Mine (your own test)\n      mine_test.go:4: my own check\n")
	assert.Contains(t, out, "FAIL 7.1 One: 0 of 3 tests passed")
}

func TestTestPrintsWhatWasOutsideTheTests(t *testing.T) {
	r := newRun().pass("TestLab7_2_A")
	r.event("output", "", "panic: init went wrong\n")
	out, _, err := testOf(t, map[string]*goTestRun{run72: r.exit(1)}, nil, "7.2")
	assert.Equal(t, ExitFailure, exitCode(t, err))
	assert.EqualError(t, err, "7.2 Two fails: every test passed, but go test exited with status 1")
	assert.Contains(t, out, "  printed outside the tests:\n      panic: init went wrong\n\nFAIL 7.2 Two: every test passed, but go test exited with status 1")
}

func TestTestBuildFailure(t *testing.T) {
	out, _, err := testOf(t, map[string]*goTestRun{run72: buildFailure()}, nil, "7.2")
	assert.Equal(t, ExitFailure, exitCode(t, err))
	assert.Equal(t, "7.2 Two  (go test -run Lab7_2)\n\n"+
		"The code does not compile, so every exercise fails:\n    # lab7 [lab7.test]\n    ./demo.go:3:17: declared and not used: x\n\n"+
		"FAIL 7.2 Two: the code does not compile  (course hint 7.2 for a nudge)\n", out)
}

func TestTestColour(t *testing.T) {
	var tty termBuffer
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{
		run71: newRun().pass("TestLab7_1_A").fail("TestLab7_1_B").exit(1),
	})}
	opts := &TestOptions{IO: IOStreams{In: strings.NewReader(""), Out: &tty, ErrOut: &bytes.Buffer{}},
		Catalog: demoCatalog(t, false), Getenv: noEnv, GoTest: fake.goTest}
	err := execute(newCmdTest(opts), "7.1", "--dir", demoWorkspace(t))
	assert.Equal(t, ExitFailure, exitCode(t, err))
	assert.Contains(t, tty.String(), "  \x1b[32m✓\x1b[0m TestLab7_1_A\n  \x1b[31m✗\x1b[0m TestLab7_1_B\n")
	assert.Contains(t, tty.String(), "\x1b[31mFAIL\x1b[0m 7.1 One")
}

func TestTestProgressOnATerminalIsCleared(t *testing.T) {
	var errOut termBuffer
	fake := &fakeGoTest{t: t, respond: byPattern(map[string]*goTestRun{run72: newRun().pass("TestLab7_2_A").exit(0)})}
	opts := &TestOptions{IO: IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &errOut},
		Catalog: demoCatalog(t, false), Getenv: noEnv, GoTest: fake.goTest}
	require.NoError(t, execute(newCmdTest(opts), "7.2", "--dir", demoWorkspace(t)))
	assert.Contains(t, errOut.String(), "\rrunning 7.2: 1/1 tests ")
	assert.True(t, strings.HasSuffix(errOut.String(), " \r"), "cleared: %q", errOut.String())
}

func TestLookupExerciseAcceptsTheGoTestName(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	l, err := cat.Lookup("10")
	require.NoError(t, err)
	for _, id := range []string{"10.3", "3", "Lab10_3"} {
		e, err := lookupExercise(l, id)
		require.NoError(t, err, "exercise %q", id)
		assert.Equal(t, "10.3", e.ID, "exercise %q", id)
	}
	_, err = lookupExercise(l, "Lab10_9")
	assert.Error(t, err)
}
